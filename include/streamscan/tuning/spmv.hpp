// streamscan/tuning/spmv.hpp - the merge-path SpMV's tile shape. No CUDA.
//
// A tile is threads x items "merge items", each either one non-zero or one
// row end; a thread walks its items sequentially. The tile's slice of row
// ends and its products are staged in shared memory first.
#pragma once

namespace streamscan::tuning {

struct spmv_shape {
  int threads;
  int items;  // merge items per thread
  constexpr int tile_items() const { return threads * items; }
};

constexpr spmv_shape spmv_shape_for(int /*value_bytes*/) { return {128, 8}; }

}  // namespace streamscan::tuning
