// streamscan/tuning/select.hpp - the shapes of compaction, partition and
// split: candidates, the built-in default of each call and the compile-time
// policies. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shape.hpp"

namespace streamscan::tuning {

// The stable single-pass kernel (threads x 16-byte loads per thread; sources
// not read 16 bytes at a time hold `vectors` items; at most 64 elements per
// thread either way); the pipelined kernel (sm_90+: consumer threads x rows,
// stages, reduce warps; compaction and partition of raw pointers to 4- or
// 8-byte values, not in place); the outbox compaction kernel (sm_90+: pack
// threads x rows, landing stages and a ring of selections; by a predicate,
// or by flags of a raw pointer that land with the values). Calls a shape
// cannot run (in place, misaligned, iterators, before sm_90, flags too wide
// for the stage) run the default one-tile shape.
inline constexpr shape select_shapes[] = {tile(512, 8),          tile(256, 8),          tile(256, 16),
                                          tile(128, 16),         pipeline(512, 4, 6, 3), pipeline(512, 4, 4),
                                          pipeline(512, 2, 12, 4), pipeline(512, 2, 10), outbox(512, 4, 3, 128),
                                          outbox(512, 4, 4, 64)};
inline constexpr int select_shape_count = sizeof(select_shapes) / sizeof(select_shapes[0]);
inline constexpr int default_select_shape = 0;         // t512x8
inline constexpr int default_partition_shape = 6;      // p512x2s12r4
inline constexpr int flagged_pipelined_shape = 7;      // p512x2s10: the flags staged with the values
inline constexpr int default_compaction_shape = 8;     // o512x4s3b128
inline constexpr int flagged_compaction_shape = 9;     // o512x4s4b64
static_assert(select_shapes[default_partition_shape].kind == shape_kind::pipeline &&
                  select_shapes[flagged_pipelined_shape].kind == shape_kind::pipeline &&
                  select_shapes[default_compaction_shape].kind == shape_kind::outbox &&
                  select_shapes[flagged_compaction_shape].kind == shape_kind::outbox,
              "the pipelined shapes");
// Where the pipelined defaults start (below, the persistent pipeline's start
// costs more than it gains; docs/performance.md): 4-byte values that write
// every element or come with flags from pipelined_select_from, 4-byte
// compaction (the outbox) from pipelined_compaction_from, 8-byte compaction
// by predicate from wide_compaction_from.
inline constexpr std::int64_t pipelined_select_from = std::int64_t{1} << 24;
inline constexpr std::int64_t pipelined_compaction_from = std::int64_t{1} << 26;
inline constexpr std::int64_t wide_compaction_from = std::int64_t{1} << 25;

// The default shape of a call that writes every element (`writes_all`:
// partition, split) or compacts, of n values of `item_bytes`, `flagged` when
// its flags come from an array the pipeline can stage beside the values.
// 8-byte flagged compaction keeps the one-tile kernel, which skips values
// whose flags are all false.
constexpr int default_select_shape_for(bool writes_all, bool flagged, std::size_t item_bytes, std::int64_t n) {
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

template <int Width, int Shape = default_select_shape>
struct select_policy : look_back_tuning {
  static constexpr int threads = select_shapes[Shape].threads;
  static constexpr int vectors = vectors_for(select_shapes[Shape], Width);
  static constexpr int tile_items = threads * vectors * Width;
  static constexpr int stages = select_shapes[Shape].stages;
  static constexpr int scan_warps = threads / 32;
  static constexpr int rows = vectors;
  static constexpr int reduce_warps = select_shapes[Shape].reduce_warps;
  // The outbox (outbox_bytes > 0): tiles between packing and drained, and
  // the warps that drain them (fewer waiting warps ran faster).
  static constexpr unsigned outbox_bytes = static_cast<unsigned>(select_shapes[Shape].ring_kb) * 1024u;
  static constexpr int records = 32;
  static constexpr int drain_warps = 1;
};

// The smallest tile of any shape: the tile status words are sized for it.
template <int Width>
constexpr std::int64_t smallest_select_tile() {
  std::int64_t t = std::int64_t{1} << 40;
  for (const shape& s : select_shapes) {
    const std::int64_t items = std::int64_t{s.threads} * vectors_for(s, Width) * Width;
    t = items < t ? items : t;
  }
  return t;
}

// The counting pass of stable_partition and split: threads per block,
// vector loads in flight per thread, blocks per SM (a full SM of threads).
struct count_policy {
  static constexpr int threads = 256;
  static constexpr int unroll = 4;
  static constexpr int blocks_per_sm = 8;
};

// The kernels of [Compaction] as written there: 128 threads per block (the
// paper's best on both its GPUs), a warp per 1024-element group.
struct compaction_paper_policy {
  static constexpr int threads = 128;
  static constexpr int group_items = 1024;
};

}  // namespace streamscan::tuning
