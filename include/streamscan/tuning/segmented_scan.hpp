// streamscan/tuning/segmented_scan.hpp - the shapes of the dedicated
// segmented (and backward) scan kernel: candidates, the built-in default and
// the compile-time policy. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "linear_recurrence.hpp"
#include "shape.hpp"

namespace streamscan::tuning {

// The one-tile kernel (threads x 16-byte loads; a thread holds at most 64
// values, one bit each in the agent's masks) and the pipelined ones (sm_90+,
// values of 4, 8 or 16 bytes): consumer threads x rows, stages, and the
// reduce warps that fold each tile's (value, head) aggregates. Few
// candidates: each is two more kernels (directions) per value type and
// operator.
inline constexpr shape segmented_shapes[] = {segmented_tile(128, 8), segmented_tile(256, 8), pipeline(512, 4, 6, 6),
                                             pipeline(512, 2, 12, 4)};
inline constexpr int segmented_shape_count = sizeof(segmented_shapes) / sizeof(segmented_shapes[0]);
inline constexpr int default_segmented_shape = 0;
// The default for 4-byte values from pipelined_segmented_from on GPUs that
// can run the pipeline, for both directions (docs/performance.md).
inline constexpr int pipelined_segmented_shape = 3;
inline constexpr std::int64_t pipelined_segmented_from = std::int64_t{1} << 26;

// Values a 16-byte vector holds: the largest power of two whose values fit
// 16 bytes, and at least one (a wider value takes a vector of its own; a
// struct of fields read from separate arrays, zip_tile_io.cuh, may be of any
// size).
constexpr int segmented_vector_width(std::size_t value_bytes) {
  int width = 1;
  while (static_cast<std::size_t>(width) * 2 * value_bytes <= 16) width *= 2;
  return width;
}

// Scan positions per tile of shape `index` for values of `value_bytes`.
constexpr std::int64_t segmented_tile_items(int index, std::size_t value_bytes) {
  const int width = segmented_vector_width(value_bytes);
  return std::int64_t{segmented_shapes[index].threads} * vectors_for(segmented_shapes[index], width) * width;
}

// Whether values of `value_bytes` can take a pipelined shape: 4 and 8 bytes
// (the (value, head) aggregate packed in one status word) and 16 bytes (the
// split status layout).
constexpr bool segmented_pipeline_fits(std::size_t value_bytes) {
  return value_bytes == 4 || value_bytes == 8 || value_bytes == 16;
}

template <class V, int Shape = default_segmented_shape>
struct segmented_scan_policy : look_back_tuning {
  static constexpr int vector_width = segmented_vector_width(sizeof(V));
  static constexpr int threads = segmented_shapes[Shape].threads;
  static constexpr int vectors = vectors_for(segmented_shapes[Shape], vector_width);
  static constexpr int tile_items = threads * vectors * vector_width;
  static_assert(tile_items == segmented_tile_items(Shape, sizeof(V)));
  // Register cap (__launch_bounds__): enough blocks per SM to keep about
  // 100 KB of loads in flight.
  static constexpr int min_blocks_per_sm = threads >= 256 ? 3 : 6;
  static constexpr int stages = segmented_shapes[Shape].stages;
  static constexpr int scan_warps = threads / 32;
  static constexpr int rows = vectors;
  static constexpr int reduce_warps = segmented_shapes[Shape].reduce_warps;
};

// The scan of structs read field by field (cuda/kernels/zip_scan_kernel.cuh,
// operators compiled at run time): the segmented scan's one-tile default
// shape, each field read in vectors of up to 16 bytes (Width values of the
// widest field), with no more loads in flight than keep a thread's values
// within zip_thread_bytes, and a looser register cap for structs wider than 8
// bytes. Spills (ptxas -v, sm_90) under the segmented scan's own policy (one
// vector of the struct's size) and with these: a (float, float) pair 10 -> 0
// bytes a thread, (float, int64) 240 -> 0, a 2x2 matrix of doubles about
// 1.4 KB -> 44. Not timed yet.
inline constexpr int zip_thread_bytes = 128;
template <class V, std::size_t WidestField, int Shape = default_segmented_shape>
struct zip_scan_policy : look_back_tuning {
  static constexpr int vector_width = segmented_vector_width(WidestField);
  static constexpr int threads = segmented_shapes[Shape].threads;
  static constexpr int most_vectors = vectors_for(segmented_shapes[Shape], vector_width);
  static constexpr int vectors_by_bytes = static_cast<int>(zip_thread_bytes / (vector_width * sizeof(V)));
  static constexpr int vectors = vectors_by_bytes < 1             ? 1
                                 : vectors_by_bytes < most_vectors ? vectors_by_bytes
                                                                   : most_vectors;
  static constexpr int tile_items = threads * vectors * vector_width;
  static constexpr int min_blocks_per_sm = sizeof(V) > 8 ? 4 : threads >= 256 ? 3 : 6;
};

// The same scan with one warp a row (zip_rows_chunks; agent_row_chunks.cuh),
// for many rows: a block's threads, a lane's vectors (of Width values) per
// chunk, the blocks an SM its registers must allow, whether a warp loads its
// next chunk before scanning the current one, and from how many rows an SM
// the host may prefer it to the look-back. The linear recurrence's chunk
// shape (linear_recurrence.hpp), with no vector where a lane's values would
// pass zip_thread_bytes, and its register prefetch rather than its
// shared-memory stages (the zip IO does not stage).
struct zip_chunk_shape {
  int threads, rows, min_blocks, min_rows_per_sm;
  bool prefetch;
};
template <class V, std::size_t WidestField>
constexpr zip_chunk_shape zip_chunk_shape_for() {
  constexpr int width = segmented_vector_width(WidestField);
  constexpr int by_bytes = static_cast<int>(zip_thread_bytes / (width * sizeof(V)));
  constexpr recurrence_chunk_shape like = recurrence_chunk_shape_for(4);
  return {like.threads, by_bytes < 1 ? 1 : by_bytes < like.rows ? by_bytes : like.rows, like.min_blocks,
          like.min_sequences_per_sm, like.prefetch};
}

// Head bits from CSR offsets (mark_segment_heads_kernel): threads a block,
// consecutive offsets a thread folds into one word, and the words a block
// owns: the largest power of two from mark_heads_min_words to
// mark_heads_max_words (its shared memory) that still gives every SM
// mark_heads_blocks_per_sm blocks.
inline constexpr int mark_heads_threads = 256;
inline constexpr int mark_heads_items = 8;
inline constexpr int mark_heads_min_words = 256;
inline constexpr int mark_heads_max_words = 4096;
inline constexpr int mark_heads_blocks_per_sm = 4;
static_assert(mark_heads_threads >= 64 && mark_heads_threads % 32 == 0, "two whole warps search a tile's offsets");
constexpr int mark_heads_tile_words(std::int64_t words, int sm_count) {
  int w = mark_heads_max_words;
  while (w > mark_heads_min_words && (words + w - 1) / w < std::int64_t{sm_count} * mark_heads_blocks_per_sm) w /= 2;
  return w;
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

}  // namespace streamscan::tuning
