// streamscan/cuda/warp/warp_segmented_slice_scan.cuh - the segmented form of
// warp_slice_scan.cuh: a warp scans its slice of a tile, held in registers
// as v[k][c] = slice element (32k + lane) * Width + c, restarting at heads.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../detail/segmented_pair.hpp"
#include "../util/shuffle.cuh"
#include "warp_scan.cuh"

namespace streamscan::cuda::detail {

// Segmented slices. Registers hold plain values, not (value, head) pairs:
// heads[k] bit c says slot c of row k starts a segment, and the scan returns
// one bit per slot, `closed`, saying whether a head lies between the start
// of the slice and the slot (a prefix from before the slice does not reach
// it). Only the carries between rows travel as pairs, so a thread needs about
// half the registers of a pair scan. Shared by the dedicated segmented agent
// and the pipelined segmented program.
template <int Rows, int Width>
using slice_slot_mask = std::conditional_t<Rows * Width <= 32, std::uint32_t, std::uint64_t>;

// Bit c: a head in slots 0..c of a Width-slot run.
template <int Width>
__device__ __forceinline__ std::uint32_t heads_so_far(std::uint32_t h) {
  constexpr std::uint32_t all = Width == 32 ? ~0u : (1u << Width) - 1u;
#pragma unroll
  for (int s = 1; s < Width; s *= 2) h |= h << s;
  return h & all;
}

// In place, inclusive within the slice and its segments; returns the slice's
// (total, any head) pair (every lane) and sets `closed`.
template <int Rows, int Width, class A, class Heads, class Op>
__device__ __forceinline__ streamscan::detail::seg_pair<A> warp_segmented_scan_slice(
    A (&v)[Rows][Width], const Heads& heads, slice_slot_mask<Rows, Width>& closed, Op& op, int lane) {
  static_assert(Rows * Width <= 64, "one 'closed' bit per slot of a thread");
  using P = streamscan::detail::seg_pair<A>;
  using mask_t = slice_slot_mask<Rows, Width>;
  constexpr std::uint32_t all = Width == 32 ? ~0u : (1u << Width) - 1u;
  const streamscan::detail::segmented_op<Op> pop{op};
  P carry{};
  closed = 0;
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
    const std::uint32_t h = heads(k);
#pragma unroll
    for (int c = 1; c < Width; ++c) {
      const A joined = op(v[k][c - 1], v[k][c]);
      v[k][c] = (h >> c) & 1u ? v[k][c] : joined;
    }
    // The warp's totals of this row: a segmented scan of values, the heads'
    // ballot standing in for the pairs' flags.
    unsigned lane_heads;
    const A incl = warp_scan::inclusive_segmented(v[k][Width - 1], h != 0, op, lane, lane_heads);
    const P excl{shfl_up(0xffffffffu, incl, 1), (lane_heads & ((1u << lane) - 1u)) != 0};  // lanes below
    // What comes before this thread's values in the slice: carry (+) the lanes below.
    const bool has_p = k > 0 || lane > 0;
    const P p = k == 0 ? excl : (lane > 0 ? pop(carry, excl) : carry);
    const std::uint32_t seen = heads_so_far<Width>(h);
    if (has_p) {
#pragma unroll
      for (int c = 0; c < Width; ++c) {
        const A joined = op(p.value, v[k][c]);
        v[k][c] = (seen >> c) & 1u ? v[k][c] : joined;
      }
    }
    closed |= static_cast<mask_t>(has_p && p.head ? all : seen) << (k * Width);
    const P row_total{shfl_idx(0xffffffffu, incl, 31), lane_heads != 0};
    carry = k == 0 ? row_total : pop(carry, row_total);
  }
  return carry;
}

// p (+) every slot of the slice that no head closes.
template <int Rows, int Width, class A, class Op>
__device__ __forceinline__ void warp_segmented_prefix_slice(A (&v)[Rows][Width], slice_slot_mask<Rows, Width> closed,
                                                            const A& p, Op& op) {
#pragma unroll
  for (int k = 0; k < Rows; ++k)
#pragma unroll
    for (int c = 0; c < Width; ++c) {
      const A joined = op(p, v[k][c]);
      v[k][c] = (closed >> (k * Width + c)) & 1u ? v[k][c] : joined;
    }
}

}  // namespace streamscan::cuda::detail
