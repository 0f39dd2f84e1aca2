// streamscan/cuda/dispatch/scan_policy.cuh - tuning parameters of the scans.
//
// One constexpr source, read by the host (grid size, temp storage) and by the
// kernels (compile-time shapes). The candidate lists live in
// detail/tuning_space.hpp so that the tuner and the tuning file's validation
// see the same ones; each policy here is one candidate by index.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/tuning_space.hpp"
#include "../block/block_scan.cuh"

namespace streamscan::cuda {

// reduce_then_scan / scan_then_add: 256 threads, about 64 bytes of values
// per thread in registers (16 x int32, 8 x int64, 4 x 16-byte structs), which
// keeps a tile's exchange buffer at 16 KiB. Partitions per SM are a run-time
// candidate (partition_counts: 8 by default, so that ~1k partition totals stay
// one block's work for the middle pass while every SM has several blocks).
template <class A>
struct scan_policy_for {
  static constexpr int threads = streamscan::detail::multi_pass_threads;
  static constexpr int items_per_thread = streamscan::detail::items_per_thread_for(sizeof(A));
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr block_scan_algorithm block_algorithm = block_scan_algorithm::kogge_stone;
};

// The matrix-scan single-pass kernel (seed 000's 2D scan: chained's first
// candidates and its fallback where the 3D scan does not apply; the decoupled
// look-back on iterators): tile_shapes[Shape]. chained's 2D default has twice
// the threads: every tile costs one serial hand-off (a status store seen by
// the next block: ~0.4 us on an H100 or H200), while the exchange buffer still
// fits 48 KiB. chained's 3D shapes: stream_scan_policy_for
// (agent_stream_scan.cuh).
template <class A, bool Chained, int Shape = streamscan::detail::default_tile_shape(Chained)>
struct single_pass_policy_for {
  static constexpr streamscan::detail::tile_shape shape = streamscan::detail::tile_shapes[Shape];
  static constexpr int threads = shape.threads;
  static constexpr int items_per_thread = streamscan::detail::items_per_thread_for(sizeof(A));
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr block_scan_algorithm block_algorithm = shape.algorithm;
};

// The vectorised single-pass kernel: 16-byte loads, `vectors` of them in
// flight per thread: vector_shapes[Shape]. The defaults were chosen by
// bench/tune_single_pass on an H200, 2026-11-21
// (docs/results/tune_single_pass_2026-11-21_h200.txt), 2^28 values:
//   4-byte:  128 threads x 16 loads: 0.689 ms (74% of memcpy); 256 x 8: 0.725 ms
//   8-byte:  256 x 12: 1.591 ms (64%); 256 x 8: 1.731 ms
//   16-byte: 256 x 16: 0.843 ms at 2^26 (67%); 256 x 8: 0.956 ms
// Values under 4 bytes keep 32 values per thread (registers), one shape.
template <class A, int Shape = streamscan::detail::default_vector_shape(sizeof(A))>
struct vector_scan_policy_for {
  static constexpr bool applies = sizeof(A) <= 16 && 16 % sizeof(A) == 0;
  static constexpr bool tunable = streamscan::detail::vector_shapes_tunable(sizeof(A));
  static constexpr int vector_width = applies ? static_cast<int>(16 / sizeof(A)) : 1;
  static constexpr int threads =
      tunable ? streamscan::detail::vector_shapes[Shape].threads : streamscan::detail::fixed_vector_threads;
  static constexpr int vectors = tunable ? streamscan::detail::vector_shapes[Shape].vectors
                                         : streamscan::detail::fixed_vector_values_per_thread / vector_width;
  static constexpr int tile_items = threads * vectors * vector_width;
  static constexpr unsigned look_back_sleep_ns = 1024;  // cap of the look-back's polling backoff
  // The pipelined shape (stages > 0): its scan warps are the threads, its
  // rows the vectors; two reduce and two look-back warps were the fastest of
  // 1-6 on the H200 (experiments/pipelined_scan.cu, 2026-11-22: int32 2^28
  // 0.665 ms with 2 + 2, 0.689 with 3 + 3, 0.694 with 2 + 6; one reduce warp
  // could not keep up: 0.819 ms).
  static constexpr int stages = tunable ? streamscan::detail::vector_shapes[Shape].stages : 0;
  static constexpr int scan_warps = threads / 32;
  static constexpr int rows = vectors;
  static constexpr int reduce_warps = 2;
  static constexpr int look_back_warps = 2;
  static constexpr int look_back_windows = 4;
};

// The smallest tile any single-pass candidate of A can run with: the status
// array is sized for it, so one temp allocation fits whichever candidate runs.
template <class A>
constexpr std::int64_t smallest_single_pass_tile() {
  std::int64_t t = vector_scan_policy_for<A>::tile_items;
  if (vector_scan_policy_for<A>::tunable)
    for (const auto& v : streamscan::detail::vector_shapes) {
      const std::int64_t x = std::int64_t{v.threads} * v.vectors * vector_scan_policy_for<A>::vector_width;
      t = x < t ? x : t;
    }
  for (const auto& s : streamscan::detail::tile_shapes) {
    const std::int64_t x = std::int64_t{s.threads} * streamscan::detail::items_per_thread_for(sizeof(A));
    t = x < t ? x : t;
  }
  return t;
}

}  // namespace streamscan::cuda
