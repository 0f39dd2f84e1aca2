// streamscan/cuda/dispatch/select_policy.cuh - tuning parameters of the
// compaction kernels, one constexpr source for host and device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace streamscan::cuda {

// The stable single-pass kernel's candidate shapes: threads per block x
// 16-byte loads in flight per thread (for sources read 16 bytes at a time;
// others hold `vectors` items; at most 64 elements per thread either way).
// Named "tTHREADSxVECTORS" in select_options::policy. A shape with `stages`
// is the pipelined kernel (sm_90+, kernels/pipeline.cuh): `threads` consumer
// threads, `vectors` rows each, that many tiles in shared memory; named
// "pTHREADSxVECTORSsSTAGES" (+ "rN" with N reduce warps, not 2). It runs
// compaction and partition of raw pointers to 4- or 8-byte values (not in
// place); other calls naming it run the default shape.
struct select_shape {
  int threads, vectors, stages = 0, reduce_warps = 2;
};
// Default 512 x 8: fastest at every fraction on an H200 (docs/performance.md,
// 2^28 int32: 0.533 / 0.651 / 0.865 ms at 5 / 50 / 95% selected, against 0.597 /
// 0.677 / 0.875 for 256 x 8; tiles of 4096 elements ran 1.5x slower: each tile
// pays a fixed tile-id + look-back latency). Persistent blocks (as many as
// fit, each looping over tiles and loading its next tile before the current
// one's look-back) ran 3-4x slower and were dropped (256 x 8: 1.96 / 2.10 /
// 1.92 ms, same run as the numbers above' re-measurement, 2026-11-22).
// The pipelined shape p512x4s6r3 (tiles streamed into shared memory while
// earlier ones look back) is a candidate, not the default: H200, 2026-11-23,
// 0.762 / 0.772 / 0.858 ms against t512x8's 0.545 / 0.661 / 0.870 (p256x8s6
// 0.82-1.16 / 0.85-1.15 / 1.03-1.08, r3 0.841 / 0.869 / 1.007, r6 0.859 /
// 0.929 / 1.082): unlike the scan it is bound by its warps' work (the
// predicate runs in the reduce and the consumer warps; ballot ranks and
// staged scatter), not by the look-back.
inline constexpr select_shape select_shapes[] = {{512, 8}, {256, 8}, {256, 16}, {128, 16}, {512, 4, 6, 3}};
inline constexpr int select_shape_count = sizeof(select_shapes) / sizeof(select_shapes[0]);
inline constexpr int default_select_shape = 0;
// Partition (every element written) of 4-byte values defaults to the
// pipelined shape (8-byte values are not measured yet and keep t512x8): H200,
// 2026-11-23, 2^28 int32, 0.822 / 0.825 / 0.824 ms at 5 / 50 / 95% selected
// against t512x8's 0.859 / 0.867 / 0.862 and CUB DevicePartition::If's 0.825 /
// 0.823 / 0.809 (docs/results/streamscan_bench_select_2026-11-23_h200.json).
// Calls it cannot run (in place, misaligned, iterators, before sm_90) take
// default_select_shape, and so do calls below pipelined_partition_from
// values: at 2^20 the persistent pipeline took 0.024 ms against t512x8's
// 0.018, at 2^24 0.070 against 0.074 (H200, 2026-11-23, every fraction;
// docs/results/streamscan_bench_select_sizes_2026-11-23d_h200.json). The
// same run is why compaction keeps t512x8 at every size: the pipelined shape
// wins at 50 / 95% from 2^26 but loses 8-11% at 5% selected.
inline constexpr int default_partition_shape = 4;
inline constexpr std::int64_t pipelined_partition_from = std::int64_t{1} << 24;
static_assert(select_shapes[default_partition_shape].stages > 0, "the pipelined shape");
// Partition's default shape for n values of `item_bytes` (the rule above).
constexpr int partition_shape_for(std::size_t item_bytes, std::int64_t n) {
  return item_bytes == 4 && n >= pipelined_partition_from ? default_partition_shape : default_select_shape;
}

constexpr int select_vectors(const select_shape& shape, int width) {
  return shape.vectors * width > 64 ? 64 / width : shape.vectors;
}

template <int Width, int Shape = default_select_shape>
struct select_policy {
  static constexpr int threads = select_shapes[Shape].threads;
  static constexpr int vectors = select_vectors(select_shapes[Shape], Width);
  static constexpr int tile_items = threads * vectors * Width;
  static constexpr unsigned look_back_sleep_ns = 1024;
  // The pipelined shape (stages > 0), as the scan's (scan_policy.cuh).
  static constexpr int stages = select_shapes[Shape].stages;
  static constexpr int scan_warps = threads / 32;
  static constexpr int rows = vectors;
  static constexpr int reduce_warps = select_shapes[Shape].reduce_warps;
  static constexpr int look_back_warps = 2;
};

// The smallest tile of any shape: the tile status words are sized for it.
template <int Width>
constexpr std::int64_t smallest_select_tile() {
  std::int64_t t = std::int64_t{1} << 40;
  for (const auto& shape : select_shapes) {
    const std::int64_t items = std::int64_t{shape.threads} * select_vectors(shape, Width) * Width;
    t = items < t ? items : t;
  }
  return t;
}

inline std::string select_shape_name(int index) {
  char buf[32];
  if (select_shapes[index].stages > 0 && select_shapes[index].reduce_warps != 2)
    std::snprintf(buf, sizeof buf, "p%dx%ds%dr%d", select_shapes[index].threads, select_shapes[index].vectors,
                  select_shapes[index].stages, select_shapes[index].reduce_warps);
  else if (select_shapes[index].stages > 0)
    std::snprintf(buf, sizeof buf, "p%dx%ds%d", select_shapes[index].threads, select_shapes[index].vectors,
                  select_shapes[index].stages);
  else
    std::snprintf(buf, sizeof buf, "t%dx%d", select_shapes[index].threads, select_shapes[index].vectors);
  return buf;
}

// Seed 002's kernels: 128 threads per block (the seed's best on both its
// GPUs), a warp per 1024-element group.
struct seed002_policy {
  static constexpr int threads = 128;
  static constexpr int group_items = 1024;
};

}  // namespace streamscan::cuda
