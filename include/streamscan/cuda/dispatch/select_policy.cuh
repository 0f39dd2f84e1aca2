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
// staged scatter), not by the look-back: ncu, 2^28 int32 at 50%, issue
// slots busy 69% (compaction) and 71% (partition) of the cycles, 1.5 and 1.9
// warp instructions per element, DRAM at 44-47% of its peak
// (docs/results/ncu_select_metrics_2026-11-23g_h200.csv).
// p512x4s4 is p512x4s6r3 for flagged sources, whose stages also hold a
// tile's flags (six stages of 32 + 8 KB do not fit in 227 KB).
inline constexpr select_shape select_shapes[] = {{512, 8},      {256, 8},        {256, 16},
                                                 {128, 16},     {512, 4, 6, 3},  {512, 4, 4, 2}};
inline constexpr int select_shape_count = sizeof(select_shapes) / sizeof(select_shapes[0]);
inline constexpr int default_select_shape = 0;
// Calls that write every element (partition, stable_partition, split) and
// flagged compaction default to a pipelined shape for 4-byte values from
// pipelined_select_from of them (8-byte values are not measured yet and keep
// t512x8). H200, 2026-11-23, 2^28 int32 at 5 / 50 / 95% selected:
//   partition p512x4s6r3 0.822 / 0.825 / 0.824 ms against t512x8's 0.859 /
//     0.867 / 0.862 and CUB DevicePartition::If's 0.825 / 0.823 / 0.809
//     (docs/results/streamscan_bench_select_2026-11-23_h200.json);
//   stable_partition p512x4s6r3 0.955 / 0.959 / 0.956 against t512x8's 1.311 /
//     1.305 / 1.307 (both with count_selected_kernel's counting pass); split
//     and select_flagged p512x4s4 (flags staged with the values) 1.088 / 1.088
//     / 1.084 and 0.778 / 0.835 / 0.968 against t512x8's 1.283 / 1.283 / 1.285
//     and 0.848 / 1.019 / 1.284
//     (docs/results/streamscan_bench_select_2026-11-23g_h200.json).
// Below 2^24 the persistent pipeline's start costs more than it gains: 2^20
// partition 0.024 ms against t512x8's 0.018; at 2^24 0.070 against 0.071,
// stable_partition 0.092-0.093 against 0.095-0.106 (any one-tile shape),
// split 0.092-0.094 against 0.095-0.104; select_flagged at 5% 0.068 against
// 0.065 (the one loss; 2026-11-23f run). Compaction by predicate keeps t512x8 at every
// size: the pipelined shape wins at 50 / 95% from 2^26 but loses 8-11% at 5%.
// Calls a pipelined shape cannot run (in place, misaligned, iterators, before
// sm_90) take default_select_shape.
inline constexpr int default_partition_shape = 4;   // p512x4s6r3
inline constexpr int flagged_pipelined_shape = 5;   // p512x4s4
inline constexpr std::int64_t pipelined_select_from = std::int64_t{1} << 24;
static_assert(select_shapes[default_partition_shape].stages > 0 && select_shapes[flagged_pipelined_shape].stages > 0,
              "the pipelined shapes");
// The default shape (the rule above) of a call that writes every element
// (`writes_all`) or compacts, of n values of `item_bytes`, `flagged` when its
// flags come from an array the pipeline can stage beside the values.
constexpr int default_shape_for(bool writes_all, bool flagged, std::size_t item_bytes, std::int64_t n) {
  if (item_bytes != 4 || n < pipelined_select_from) return default_select_shape;
  if (flagged) return flagged_pipelined_shape;
  return writes_all ? default_partition_shape : default_select_shape;
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

// The counting pass of stable_partition and split (count_selected_kernel):
// threads per block, vector loads in flight per thread, blocks per SM (a
// full SM of threads).
struct count_policy {
  static constexpr int threads = 256;
  static constexpr int unroll = 4;
  static constexpr int blocks_per_sm = 8;
};

// Seed 002's kernels: 128 threads per block (the seed's best on both its
// GPUs), a warp per 1024-element group.
struct seed002_policy {
  static constexpr int threads = 128;
  static constexpr int group_items = 1024;
};

}  // namespace streamscan::cuda
