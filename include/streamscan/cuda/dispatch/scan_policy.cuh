// streamscan/cuda/dispatch/scan_policy.cuh - tuning parameters of the scans.
//
// One constexpr source, read by the host (grid size, temp storage) and by the
// kernels (compile-time shapes).
#pragma once

#include <cstddef>

#include "../block/block_scan.cuh"

namespace streamscan::cuda {

struct scan_policy {
  int threads;                           // threads per block
  int items_per_thread;                  // tile = threads * items_per_thread
  block_scan_algorithm block_algorithm;  // how a tile's thread totals are scanned
  int partitions_per_sm;                 // reduce_then_scan / scan_then_add: partitions = SMs * this
};

// Defaults for the multi-pass strategies, not yet tuned per GPU: 256 threads,
// about 64 bytes of values per thread in registers (16 x int32, 8 x int64,
// 4 x 16-byte structs), which keeps a tile's exchange buffer at 16 KiB, and
// 8 partitions per SM so that the partition count (~1k) stays one block's work
// for the middle pass while every SM has several blocks to switch between.
constexpr scan_policy select_scan_policy(std::size_t value_bytes) {
  int items = value_bytes >= 64 ? 1 : static_cast<int>(64 / value_bytes);
  if (items > 16) items = 16;
  return scan_policy{256, items, block_scan_algorithm::kogge_stone, 8};
}

// Defaults for the single-pass strategies. decoupled look-back: tiles as for
// the multi-pass strategies. chained: every tile costs one serial hand-off
// (a status store seen by the next block: ~0.4 us on an H200), so its tiles are twice as
// large (512 threads) while the exchange buffer still fits 48 KiB of static
// shared memory.
constexpr scan_policy select_single_pass_policy(bool chained, std::size_t value_bytes) {
  scan_policy p = select_scan_policy(value_bytes);
  if (chained) p.threads = 512;
  return p;
}

template <class A, bool Chained>
struct single_pass_policy_for {
  static constexpr scan_policy value = select_single_pass_policy(Chained, sizeof(A));
  static constexpr int threads = value.threads;
  static constexpr int items_per_thread = value.items_per_thread;
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr block_scan_algorithm block_algorithm = value.block_algorithm;
};

// The vectorised single-pass kernel: 16-byte loads, `vectors` of them in
// flight per thread. Chosen by bench/tune_single_pass on an H200, 2026-11-21
// (docs/results/tune_single_pass_2026-11-21_h200.txt), 2^28 values:
//   4-byte:  128 threads x 16 loads: 0.689 ms (74% of memcpy); 256 x 8: 0.725 ms
//   8-byte:  256 x 12: 1.591 ms (64%); 256 x 8: 1.731 ms
//   16-byte: 256 x 16: 0.843 ms at 2^26 (67%); 256 x 8: 0.956 ms
// Values under 4 bytes keep 32 values per thread (registers).
struct vector_scan_policy {
  int threads;
  int vectors;
};

constexpr vector_scan_policy select_vector_scan_policy(std::size_t value_bytes) {
  if (value_bytes < 4) return vector_scan_policy{128, static_cast<int>(32 / (16 / value_bytes))};
  if (value_bytes == 4) return vector_scan_policy{128, 16};
  if (value_bytes == 8) return vector_scan_policy{256, 12};
  return vector_scan_policy{256, 16};
}

template <class A>
struct vector_scan_policy_for {
  static constexpr bool applies = sizeof(A) <= 16 && 16 % sizeof(A) == 0;
  static constexpr vector_scan_policy value = select_vector_scan_policy(applies ? sizeof(A) : 16);
  static constexpr int threads = value.threads;
  static constexpr int vectors = value.vectors;
  static constexpr int vector_width = applies ? static_cast<int>(16 / sizeof(A)) : 1;
  static constexpr int tile_items = threads * vectors * vector_width;
  static constexpr unsigned look_back_sleep_ns = 1024;  // cap of the look-back's polling backoff
};

template <class A>
struct scan_policy_for {
  static constexpr scan_policy value = select_scan_policy(sizeof(A));
  static constexpr int threads = value.threads;
  static constexpr int items_per_thread = value.items_per_thread;
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr block_scan_algorithm block_algorithm = value.block_algorithm;
};

}  // namespace streamscan::cuda
