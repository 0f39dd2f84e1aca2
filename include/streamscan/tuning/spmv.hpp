// streamscan/tuning/spmv.hpp - the SpMV kernels' shapes and the default's
// choice between them. No CUDA.
#pragma once

namespace streamscan::tuning {

// Merge path: a tile is threads x items "merge items", each either one
// non-zero or one row end; a thread walks its items sequentially. The
// tile's slice of row ends and its products are staged in shared memory
// first.
struct spmv_shape {
  int threads;
  int items;  // merge items per thread
  constexpr int tile_items() const { return threads * items; }
};

constexpr spmv_shape spmv_shape_for(int /*value_bytes*/) { return {128, 8}; }

// Non-zero split: a tile is threads x items non-zeros, `items` consecutive
// ones a thread once they are staged; min_blocks a multiprocessor bounds the
// registers (__launch_bounds__).
struct spmv_split_shape {
  int threads;
  int items;
  int min_blocks;
  constexpr int tile_items() const { return threads * items; }
};
constexpr spmv_split_shape spmv_nonzero_split_shape_for(int value_bytes) {
  return value_bytes <= 4 ? spmv_split_shape{512, 4, 4} : spmv_split_shape{256, 9, 4};
}

// A tile of the split writes at most this many times its non-zero count of
// rows (only runs of empty rows make more); it lists the rest for the fix-up
// kernel, whose whole grid writes them. Each further tile's worth costs the
// tile a pass of its row loops; each listed range costs every fix-up thread
// a load.
constexpr int spmv_split_own_rows = 8;

// How the kernels load (kernels/spmv_kernels.cuh): flags.
constexpr int spmv_stream_matrix = 1;  // columns and values evict-first (ld.global.cs)
constexpr int spmv_plain_x = 2;        // x's gathers by plain loads, not the read-only path
// The non-zero split's: the matrix passes through L2 without pushing x out.
constexpr int spmv_nonzero_split_loads = spmv_stream_matrix | spmv_plain_x;

// Row groups: `lanes` lanes of a warp a row, one pass over offsets, indices
// and values with no search, staging or fix-up. A row longer than
// spill_steps x lanes non-zeros would hold its warp back; it is cut into
// chunks of `chunk` non-zeros instead, one block a chunk.
struct spmv_row_groups {
  int threads;
  int spill_steps;
  int chunk;
};

constexpr spmv_row_groups spmv_row_groups_shape() { return {256, 64, 4096}; }

// The default takes row groups below this mean row length (nnz / rows):
// rows short enough for two lanes, where a tile's staging and block scan
// cost more than any imbalance they prevent. From it on, the non-zero split:
// at the same mean, wider groups win on rows of even length but lose more
// where lengths are skewed (a power-law graph), and the mean cannot tell the
// two apart; the split is even on both (docs/performance.md, SpMV).
constexpr double spmv_row_groups_below = 8;

// Lanes a row for a mean row length: few for short rows (more rows in
// flight a warp), more as rows grow. Below a mean of 4 two lanes a row (the
// gathers of 1-3 non-zero rows need the threads in flight); from 4 to 8 one
// lane walks its row alone, which the stencils of that length run fastest.
constexpr int spmv_group_lanes(double mean_row_length) {
  return mean_row_length < 4    ? 2
         : mean_row_length < 8  ? 1
         : mean_row_length < 16 ? 8
         : mean_row_length < 32 ? 16
                                : 32;
}

}  // namespace streamscan::tuning
