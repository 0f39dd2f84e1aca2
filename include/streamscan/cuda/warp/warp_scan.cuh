// streamscan/cuda/warp/warp_scan.cuh - warp-wide scan and reduce by shuffles.
//
// Kogge-Stone over the lanes of one warp: log2(32) shuffle steps, no shared
// memory, no barriers. `lanes` (1..32) is how many lanes, from lane 0, take
// part: the last warp of a block whose size is not a multiple of 32 is partial.
// op is applied as op(lower lane, higher lane), so it need not commute.
#pragma once

#include "../util/shuffle.cuh"

namespace streamscan::cuda {

struct warp_scan {
  // Inclusive scan across lanes [0, lanes).
  template <class T, class Op>
  __device__ __forceinline__ static T inclusive(T x, Op& op, int lane, int lanes = 32) {
    const unsigned mask = detail::lane_mask(lanes);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      if (d >= lanes) break;
      const T y = detail::shfl_up(mask, x, d);
      if (lane >= d) x = op(y, x);
    }
    return x;
  }

  // Inclusive and exclusive results at once; lane 0's exclusive is unspecified.
  template <class T, class Op>
  __device__ __forceinline__ static void scan(T x, Op& op, int lane, int lanes, T& inclusive_out,
                                              T& exclusive_out) {
    inclusive_out = inclusive(x, op, lane, lanes);
    exclusive_out = detail::shfl_up(detail::lane_mask(lanes), inclusive_out, 1);
  }

  // Segmented inclusive scan across all 32 lanes: lane l combines lanes
  // [s, l], s the nearest lane at or below l whose `head` is set (lane 0 if
  // none). One shuffle per step; the segment start comes from one ballot,
  // returned in `heads` (bit l: lane l's head) for the caller's bookkeeping.
  template <class T, class Op>
  __device__ __forceinline__ static T inclusive_segmented(T x, bool head, Op& op, int lane, unsigned& heads) {
    heads = __ballot_sync(0xffffffffu, head);
    const unsigned upto = heads & (lane == 31 ? 0xffffffffu : (2u << lane) - 1u);
    const int start = upto != 0 ? 31 - __clz(upto) : 0;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const T y = detail::shfl_up(0xffffffffu, x, d);
      if (lane - d >= start) x = op(y, x);
    }
    return x;
  }

  // Reduction of lanes [0, lanes); the result is valid in lane 0 only.
  template <class T, class Op>
  __device__ __forceinline__ static T reduce(T x, Op& op, int lane, int lanes = 32) {
    const unsigned mask = detail::lane_mask(lanes);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      if (d >= lanes) break;
      const T y = detail::shfl_down(mask, x, d);
      // lane takes its right neighbour's partial only while that lane exists;
      // lanes are combined in order, so op need not commute.
      if ((lane & (2 * d - 1)) == 0 && lane + d < lanes) x = op(x, y);
    }
    return x;
  }
};

}  // namespace streamscan::cuda
