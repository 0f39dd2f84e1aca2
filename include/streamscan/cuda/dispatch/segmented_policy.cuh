// streamscan/cuda/dispatch/segmented_policy.cuh - tuning parameters of the
// dedicated segmented (and backward) scan kernel, one constexpr source for
// host and device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace streamscan::cuda {

// Candidate shapes: threads per block x 16-byte loads in flight per thread,
// named "sTHREADSxVECTORS" in segmented_options::scan.policy. A thread holds
// at most 64 values (one bit each in a mask of the agent). A shape with
// `stages` runs on the pipeline (pipelined_segmented_scan_kernel.cuh, sm_90+,
// values of 4, 8 or 16 bytes; others, and older GPUs, run shape 0), named
// "pTHREADSxVECTORSsSTAGES": `threads` consumer threads x `vectors` rows,
// `stages` tiles in shared memory, the plain pipelined scan's shape.
struct segmented_shape {
  int threads, vectors;
  int stages = 0;
  int reduce_warps = 0;  // pipelined: warps that fold each tile's (value, head) aggregates
};
// Default 128 x 8, fastest on an H200 (2026-11-22, int32 sums over head bits,
// 2^28, mean segment 64: 1.090 ms; 256 x 8 1.193, 512 x 4 1.198, 128 x 16
// 1.652 (159 registers); 2^24: 90.7 us against 99.1 / 93.4 / 139.0). Few
// candidates: each is two more kernels (directions) per value type and operator.
//
// The pipelined ones, on an H200 (2026-11-23, experiments/pipelined_segmented.cu,
// int32 sums over head bits, 2^28, 64-long segments, one run; the library call
// with its temp allocation, so all a little slow against the bench):
//                 forward  backward
//   s128x8         0.854    0.868   (the one-tile kernel)
//   p512x4s6r6     0.749    0.834   512 consumer threads x 4 rows, 6 stages, 6 reduce warps
//   p512x2s12r4    0.709    0.953   x 2 rows (4096-value tiles), 12 stages, 4 reduce warps
// A tile's (value, head) fold in one reduce warp is the long step (7.2 us for
// 8192 values, 4.6 for 4096): smaller tiles and more stages keep more of them
// in flight. Other shapes measured: 256 x 8 with 3 reduce warps 0.784
// forward, 512 x 4 with 3 0.771, 256 x 4 x 12 stages 0.875. Backward then
// read the mirrored head bits (two words, a funnel shift, a bit reversal) in
// every reduce and consumer step; with the tile's words rewritten in scan
// order once (prepare_side), backward took, in 2 processes each (same
// experiment, 2026-11-23, seg 64 / seg 4):
//   p512x4s6r6     0.756-0.763 / 0.774-0.780   (before: 0.808-0.810 / 0.814-0.843)
//   p512x2s12r4    0.743       / 0.746-0.761   (before: 0.808-0.823 / 0.864-0.872)
// against forward p512x2s12r4's 0.705-0.715: one default for both directions.
inline constexpr segmented_shape segmented_shapes[] = {{128, 8}, {256, 8}, {512, 4, 6, 6}, {512, 2, 12, 4}};
inline constexpr int segmented_shape_count = sizeof(segmented_shapes) / sizeof(segmented_shapes[0]);
inline constexpr int default_segmented_shape = 0;
// The built-in default for 4-byte values from pipelined_segmented_from on GPUs
// that can run the pipeline: the fastest pipelined shape of each direction
// (the same one).
inline constexpr int pipelined_segmented_backward = 3;
inline constexpr int pipelined_segmented_forward = 3;
inline constexpr std::int64_t pipelined_segmented_from = std::int64_t{1} << 26;

constexpr int segmented_vectors(const segmented_shape& shape, int width) {
  return shape.vectors * width > 64 ? 64 / width : shape.vectors;
}

// Scan positions per tile of shape `index` for values of `value_bytes`.
constexpr std::int64_t segmented_tile_items(int index, std::size_t value_bytes) {
  const int width = static_cast<int>(16 / value_bytes);
  return std::int64_t{segmented_shapes[index].threads} * segmented_vectors(segmented_shapes[index], width) * width;
}

template <class V, int Shape = default_segmented_shape>
struct segmented_scan_policy {
  static constexpr int vector_width = static_cast<int>(16 / sizeof(V));
  static constexpr int threads = segmented_shapes[Shape].threads;
  static constexpr int vectors = segmented_vectors(segmented_shapes[Shape], vector_width);
  static constexpr int tile_items = threads * vectors * vector_width;
  static_assert(tile_items == segmented_tile_items(Shape, sizeof(V)));
  static constexpr unsigned look_back_sleep_ns = 1024;
  // Register cap (__launch_bounds__): enough blocks per SM to keep about
  // 100 KB of loads in flight.
  static constexpr int min_blocks_per_sm = threads >= 256 ? 3 : 6;
  // The pipelined shapes (stages > 0), as pipelined_shape reads them; two
  // look-back warps.
  static constexpr int stages = segmented_shapes[Shape].stages;
  static constexpr int scan_warps = threads / 32;
  static constexpr int rows = vectors;
  static constexpr int reduce_warps = segmented_shapes[Shape].reduce_warps;
  static constexpr int look_back_warps = 2;
  static constexpr int look_back_windows = 4;
};

// Whether values of `value_bytes` can take a pipelined shape: 4 and 8 bytes
// (the (value, head) aggregate packed in one status word) and 16 bytes (the
// split status layout, tile_status.cuh).
constexpr bool segmented_pipeline_fits(std::size_t value_bytes) {
  return value_bytes == 4 || value_bytes == 8 || value_bytes == 16;
}

// The smallest tile of any shape: the tile status words are sized for it.
template <class V>
constexpr std::int64_t smallest_segmented_tile() {
  std::int64_t t = std::int64_t{1} << 40;
  for (int i = 0; i < segmented_shape_count; ++i) {
    const std::int64_t items = segmented_tile_items(i, sizeof(V));
    t = items < t ? items : t;
  }
  return t;
}

inline std::string segmented_shape_name(int index) {
  char buf[32];
  const segmented_shape& s = segmented_shapes[index];
  if (s.stages > 0) std::snprintf(buf, sizeof buf, "p%dx%ds%dr%d", s.threads, s.vectors, s.stages, s.reduce_warps);
  else std::snprintf(buf, sizeof buf, "s%dx%d", s.threads, s.vectors);
  return buf;
}

}  // namespace streamscan::cuda
