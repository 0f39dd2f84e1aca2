// streamscan/cuda/block/block_scan_kogge_stone.cuh - block scan as a two-level
// Kogge-Stone network ([LookbackReport] sec. 2.1).
//
// Level 1: every warp scans its lanes by shuffles (log2 32 steps, no barrier).
// Level 2: warp 0 scans the warp totals the same way. One barrier pair in all.
// Minimum depth, n log n work: the right trade inside a SIMT warp.
#pragma once

#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"

namespace streamscan::cuda {

template <class T, int BLOCK_THREADS>
class block_scan_kogge_stone {
  static_assert(BLOCK_THREADS >= 1 && BLOCK_THREADS <= 1024, "block size out of range");
  static constexpr int warps = (BLOCK_THREADS + 31) / 32;

 public:
  struct temp_storage {
    detail::uninitialized<T> warp_inclusive[warps];
  };

  __device__ explicit block_scan_kogge_stone(temp_storage& storage) : s_(storage) {}

  // inclusive/exclusive of thread t: x_0 (+) ... (+) x_t / x_{t-1}; thread 0's
  // exclusive is unspecified. aggregate: all BLOCK_THREADS values, in every thread.
  // The caller must barrier before reusing temp_storage.
  template <class Op>
  __device__ void scan(const T& x, Op& op, T& inclusive, T& exclusive, T& aggregate) {
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid % 32, warp = tid / 32;
    const int lanes = (warp == warps - 1) ? BLOCK_THREADS - 32 * warp : 32;
    T incl, excl;
    warp_scan::scan(x, op, lane, lanes, incl, excl);
    if (warps == 1) {
      inclusive = incl;
      exclusive = excl;
      aggregate = detail::shfl_idx(detail::lane_mask(lanes), incl, lanes - 1);
      return;
    }
    if (lane == lanes - 1) s_.warp_inclusive[warp].get() = incl;
    __syncthreads();
    if (warp == 0 && lane < warps) {
      s_.warp_inclusive[lane].get() = warp_scan::inclusive(s_.warp_inclusive[lane].get(), op, lane, warps);
    }
    __syncthreads();
    aggregate = s_.warp_inclusive[warps - 1].get();
    if (warp == 0) {
      inclusive = incl;
      exclusive = excl;
    } else {
      const T warp_prefix = s_.warp_inclusive[warp - 1].get();
      inclusive = op(warp_prefix, incl);
      exclusive = lane == 0 ? warp_prefix : op(warp_prefix, excl);
    }
  }

 private:
  temp_storage& s_;
};

}  // namespace streamscan::cuda
