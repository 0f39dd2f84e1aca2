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
//
// A shape with `outbox_kb` is the outbox compaction kernel
// (kernels/outbox_select_kernel.cuh, sm_90+): `threads` pack threads,
// `vectors` rows each, `stages` landing stages and a ring of that many KB
// for the selected values waiting for their prefix; named
// "oTHREADSxVECTORSsSTAGESbKB". It runs compaction of raw pointers to 4- or
// 8-byte values by a predicate, or by flags of a raw pointer that land with
// the values (taking stage room too), not in place; other calls naming it
// run the default shape.
struct select_shape {
  int threads, vectors, stages = 0, reduce_warps = 2, outbox_kb = 0;
};
// Default 512 x 8: fastest at every fraction on an H200 (docs/performance.md,
// 2^28 int32: 0.533 / 0.651 / 0.865 ms at 5 / 50 / 95% selected, against 0.597 /
// 0.677 / 0.875 for 256 x 8; tiles of 4096 elements ran 1.5x slower: each tile
// pays a fixed tile-id + look-back latency). Persistent blocks (as many as
// fit, each looping over tiles and loading its next tile before the current
// one's look-back) ran 3-4x slower and were dropped (256 x 8: 1.96 / 2.10 /
// 1.92 ms, same run as the numbers above' re-measurement, 2026-11-22).
// Pipelined shapes (tiles streamed into shared memory while earlier ones
// look back), each a candidate for every call: p512x4s6r3 (tiles of 8192
// int32, 6 stages), p512x4s4 (its flagged twin: six stages of 32 + 8 KB do
// not fit in 227 KB), and the smaller tiles with more stages p512x2s12r4
// (4096 int32, 12 stages, 4 reduce warps: the segmented scan's default
// shape) and p512x2s10 (its flagged twin, 10 stages of 16 + 4 KB). More
// stages of smaller tiles keep more of each SM's loads in flight; the select
// kernels are not issue-bound at full clocks (H100 ncu, 2^28 at 50%: issue
// 40-50%, DRAM 72% of peak, no excess bytes; docs/performance.md). H100,
// 2026-11-24, 2^28 int32 at 5 / 50 / 95% kept
// (docs/results/streamscan_bench_select_2026-11-24e_h100.json):
//   partition       p512x2s12r4 0.851 / 0.851 / 0.843 ms, p512x4s6r3 0.896 /
//                   0.900 / 0.890, t512x8 0.962 / 0.962 / 0.958, CUB 1.013 /
//                   1.011 / 0.993;
//   select_if       p512x2s12r4 0.537 / 0.646 / 0.810, p512x4s6r3 0.539 /
//                   0.684 / 0.870, t512x8 0.580 / 0.745 / 0.897;
//   split           p512x2s10 1.114 / 1.141 / 1.109, p512x4s4 1.226 / 1.228 /
//                   1.224;
//   select_flagged  p512x2s10 0.812 / 0.839 / 0.961, p512x4s4 0.781 / 0.920 /
//                   1.081.
// Tiles of 2048 (p512x1s24r4, p512x1s20) ran 6-55% slower and were dropped.
// On the H200 (2026-11-23) p512x4s6r3 lost 8-11% to t512x8 for compaction at
// 5% kept; the smaller-tile shapes are not measured there yet.
// The outbox kernel o512x4s3b128 (tiles of 8192 int32 landing in 3 stages of
// 32 KB, a 128 KB ring): selections wait for their prefix in the ring, not
// in the stage, so at low fractions the stages keep streaming. H100,
// 2026-11-25, 2^28 int32 at 5 / 50 / 95% kept (experiments/pipelined_select.cu,
// docs/results/pipelined_select_outbox_2026-11-25_h100.txt): 0.428 / 0.590 /
// 0.826 ms against p512x2s12r4's 0.565 / 0.638 / 0.813 and CUB's 0.585 /
// 0.709 / 0.968; tiles of 4096 (o512x2s6b128) 0.618 / 0.691 / 0.792; 4
// stages and a 64 KB ring 0.418 / 0.685 / 0.989.
inline constexpr select_shape select_shapes[] = {{512, 8},        {256, 8},        {256, 16},
                                                 {128, 16},       {512, 4, 6, 3},  {512, 4, 4, 2},
                                                 {512, 2, 12, 4}, {512, 2, 10, 2}, {512, 4, 3, 2, 128},
                                                 {512, 4, 4, 2, 64}};
inline constexpr int select_shape_count = sizeof(select_shapes) / sizeof(select_shapes[0]);
inline constexpr int default_select_shape = 0;
// The defaults, for 4-byte values (8-byte values: below): calls that write
// every element (partition, stable_partition; p512x2s12r4) and flagged calls
// (split, select_flagged; p512x2s10, the flags staged with the values) from
// pipelined_select_from;
// compaction (the outbox kernel: o512x4s3b128 by predicate, o512x4s4b64 by
// flags) from pipelined_compaction_from.
// Below those the persistent pipeline's start costs more than it gains (same
// run, 2^24: select_if p512x2s12r4 0.061 / 0.066 / 0.075 ms against t512x8's
// 0.058 / 0.066 / 0.072; at 2^26 0.156 / 0.190 / 0.229 against 0.162 / 0.205
// / 0.238; partition at 2^24 0.077 / 0.076 against t512x8's 0.078 / 0.078 at
// 50 / 95%; split p512x2s10 0.099 / 0.099 / 0.097 against t512x8's 0.106 /
// 0.103 / 0.102).
// Calls a pipelined shape cannot run (in place, misaligned, iterators, before
// sm_90, flags too wide for the stage) take default_select_shape.
inline constexpr int default_partition_shape = 6;   // p512x2s12r4
inline constexpr int flagged_pipelined_shape = 7;   // p512x2s10
inline constexpr int default_compaction_shape = 8;  // o512x4s3b128
// o512x4s4b64: 4 stages of 32 KB values + 8 KB byte flags, a 64 KB ring. H100,
// 2^28 int32 by byte flags at 5 / 50 / 95% kept: 0.505 / 0.777 / 1.023 ms
// against p512x2s10's 0.817 / 0.844 / 0.970 (2^26: 0.150 / 0.219 / 0.282
// against 0.229 / 0.237 / 0.266; docs/results/streamscan_bench_select_2026-11-25d_h100.json).
inline constexpr int flagged_compaction_shape = 9;
inline constexpr std::int64_t pipelined_select_from = std::int64_t{1} << 24;
inline constexpr std::int64_t pipelined_compaction_from = std::int64_t{1} << 26;
// 8-byte values (uint64 by predicate, H100, 2026-11-25, experiments/select_wide.cu,
// docs/results/select_wide_2026-11-25_h100.txt; 5 / 50 / 95% kept): partition
// and stable_partition on p512x2s12r4 from pipelined_select_from (2^27: 0.860 /
// 0.848 / 0.870 ms against t512x8's 0.932 / 0.930 / 0.937 and CUB's 0.877 /
// 0.876 / 0.883; 2^24 0.132 / 0.133 against 0.135 / 0.132 at 5 / 95%);
// select_if on the outbox o512x4s3b128 from wide_compaction_from (2^25: 0.147 /
// 0.170 / 0.224 against 0.164 / 0.200 / 0.236; 2^27: 0.526 / 0.613 / 0.808
// against 0.585 / 0.742 / 0.895, CUB 0.617 / 0.717 / 0.907; at 2^24 the outbox
// loses at 95%: 0.133 against 0.128). select_flagged keeps t512x8, which skips
// values whose flags are all false (2^27: 0.468 / 0.745 / 0.906 against the
// outbox's 0.454 / 0.751 / 0.986).
inline constexpr std::int64_t wide_compaction_from = std::int64_t{1} << 25;
static_assert(select_shapes[default_partition_shape].stages > 0 && select_shapes[flagged_pipelined_shape].stages > 0 &&
                  select_shapes[default_partition_shape].outbox_kb == 0 &&
                  select_shapes[flagged_pipelined_shape].outbox_kb == 0 &&
                  select_shapes[default_compaction_shape].outbox_kb > 0 &&
                  select_shapes[flagged_compaction_shape].outbox_kb > 0,
              "the pipelined shapes");
// The default shape (the rule above) of a call that writes every element
// (`writes_all`) or compacts, of n values of `item_bytes`, `flagged` when its
// flags come from an array the pipeline can stage beside the values.
constexpr int default_shape_for(bool writes_all, bool flagged, std::size_t item_bytes, std::int64_t n) {
  if (item_bytes == 8 && n >= pipelined_select_from) {
    if (flagged) return default_select_shape;
    if (writes_all) return default_partition_shape;
    return n >= wide_compaction_from ? default_compaction_shape : default_select_shape;
  }
  if (item_bytes != 4 || n < pipelined_select_from) return default_select_shape;
  if (flagged) return !writes_all && n >= pipelined_compaction_from ? flagged_compaction_shape : flagged_pipelined_shape;
  if (writes_all) return default_partition_shape;
  return n >= pipelined_compaction_from ? default_compaction_shape : default_select_shape;
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
  static constexpr int look_back_windows = 4;
  // The outbox shape (outbox_bytes > 0): tiles between packing and drained
  // (16: no slower), and the warps that drain them: fewer waiting warps were
  // faster (H100, 2^28 int32 at 95% kept: 1 warp 0.791 ms, 2 0.823, 4 0.847,
  // 8 0.906; level at 5 and 50%).
  static constexpr unsigned outbox_bytes = static_cast<unsigned>(select_shapes[Shape].outbox_kb) * 1024u;
  static constexpr int records = 32;
  static constexpr int drain_warps = 1;
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
  if (select_shapes[index].outbox_kb > 0)
    std::snprintf(buf, sizeof buf, "o%dx%ds%db%d", select_shapes[index].threads, select_shapes[index].vectors,
                  select_shapes[index].stages, select_shapes[index].outbox_kb);
  else if (select_shapes[index].stages > 0 && select_shapes[index].reduce_warps != 2)
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
