// streamscan/cuda/warp/warp_slice_scan.cuh - a warp scans its slice of a tile
// held in registers: v[k][c] is slice element (32k + lane) * Width + c, i.e.
// row k of the slice is one 16-byte load per lane, 512 contiguous bytes.
// Shared by the vectorised look-back agent and the pipelined scan;
// warp_segmented_slice_scan.cuh is the segmented form.
#pragma once

#include <cstdint>

#include "../util/shuffle.cuh"
#include "warp_scan.cuh"

namespace streamscan::cuda::detail {

// In place, inclusive within the slice; returns the slice total (every lane).
// Each row: the thread's Width values sequentially, the 32 thread totals by
// shuffles, then the rows' running carry.
template <int Rows, int Width, class A, class Op>
__device__ __forceinline__ A warp_scan_slice(A (&v)[Rows][Width], Op& op, int lane) {
  A carry{};
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
#pragma unroll
    for (int c = 1; c < Width; ++c) v[k][c] = op(v[k][c - 1], v[k][c]);
    A incl, excl;
    warp_scan::scan(v[k][Width - 1], op, lane, 32, incl, excl);
    // Prefix of this thread's values: carry (+) the lanes before it.
    const bool has_prefix = k > 0 || lane > 0;
    const A p = k == 0 ? excl : (lane > 0 ? op(carry, excl) : carry);
    if (has_prefix) {
#pragma unroll
      for (int c = 0; c < Width; ++c) v[k][c] = op(p, v[k][c]);
    }
    const A row_total = shfl_idx(0xffffffffu, incl, 31);
    carry = k == 0 ? row_total : op(carry, row_total);
  }
  return carry;
}

// p (+) every value of the slice.
template <int Rows, int Width, class A, class Op>
__device__ __forceinline__ void warp_prefix_slice(A (&v)[Rows][Width], const A& p, Op& op) {
#pragma unroll
  for (int k = 0; k < Rows; ++k)
#pragma unroll
    for (int c = 0; c < Width; ++c) v[k][c] = op(p, v[k][c]);
}

// Exclusive form of an inclusive slice: every value moves one place right;
// the slice's first becomes `first`.
template <int Rows, int Width, class A>
__device__ __forceinline__ void warp_shift_slice_right(A (&v)[Rows][Width], const A& first, int lane) {
  A previous_last = first;
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
    const A last = v[k][Width - 1];
    const A from_left = shfl_up(0xffffffffu, last, 1);
    const A row_last = shfl_idx(0xffffffffu, last, 31);
#pragma unroll
    for (int c = Width - 1; c > 0; --c) v[k][c] = v[k][c - 1];
    v[k][0] = lane > 0 ? from_left : previous_last;
    previous_last = row_last;
  }
}

}  // namespace streamscan::cuda::detail
