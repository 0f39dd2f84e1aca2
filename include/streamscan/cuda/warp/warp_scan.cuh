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
