// streamscan/cuda/dispatch/select_policy.cuh - tuning parameters of the
// compaction kernels, one constexpr source for host and device.
#pragma once

#include <cstddef>

namespace streamscan::cuda {

// The stable single-pass kernel: 256 threads; about 64 bytes of items per
// thread in registers (16 x 4-byte, 8 x 8-byte, 4 x 16-byte), so every thread
// has 4-16 independent loads in flight.
template <std::size_t ItemBytes>
struct select_policy {
  static constexpr int threads = 256;
  static constexpr int items_per_thread = ItemBytes <= 4 ? 16 : ItemBytes <= 8 ? 8 : 4;
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr unsigned look_back_sleep_ns = 1024;
};

// Seed 002's kernels: 128 threads per block (the seed's best on both its
// GPUs), a warp per 1024-element group.
struct seed002_policy {
  static constexpr int threads = 128;
  static constexpr int group_items = 1024;
};

}  // namespace streamscan::cuda
