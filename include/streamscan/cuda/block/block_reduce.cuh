// streamscan/cuda/block/block_reduce.cuh - order-preserving block reduction.
//
// Warps reduce by shuffles, then warp 0 reduces the warp totals. The result is
// valid in thread 0 only.
#pragma once

#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"

namespace streamscan::cuda {

template <class T, int BLOCK_THREADS>
class block_reduce {
  static constexpr int warps = (BLOCK_THREADS + 31) / 32;

 public:
  struct temp_storage {
    detail::uninitialized<T> warp_total[warps];
  };

  __device__ explicit block_reduce(temp_storage& storage) : s_(storage) {}

  template <class Op>
  __device__ T reduce(const T& x, Op& op) {
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid % 32, warp = tid / 32;
    const int lanes = (warp == warps - 1) ? BLOCK_THREADS - 32 * warp : 32;
    T total = warp_scan::reduce(x, op, lane, lanes);
    if (warps == 1) return total;
    if (lane == 0) s_.warp_total[warp].get() = total;
    __syncthreads();
    if (warp == 0 && lane < warps) total = warp_scan::reduce(s_.warp_total[lane].get(), op, lane, warps);
    return total;
  }

 private:
  temp_storage& s_;
};

}  // namespace streamscan::cuda
