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
// at most 64 values (one bit each in a mask of the agent).
struct segmented_shape {
  int threads, vectors;
};
// Default 128 x 8, fastest on an H200 (2026-11-22, int32 sums over head bits,
// 2^28, mean segment 64: 1.090 ms; 256 x 8 1.193, 512 x 4 1.198, 128 x 16
// 1.652 (159 registers); 2^24: 90.7 us against 99.1 / 93.4 / 139.0). Few
// candidates: each is two more kernels (directions) per value type and operator.
inline constexpr segmented_shape segmented_shapes[] = {{128, 8}, {256, 8}};
inline constexpr int segmented_shape_count = sizeof(segmented_shapes) / sizeof(segmented_shapes[0]);
inline constexpr int default_segmented_shape = 0;

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
};

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
  std::snprintf(buf, sizeof buf, "s%dx%d", segmented_shapes[index].threads, segmented_shapes[index].vectors);
  return buf;
}

}  // namespace streamscan::cuda
