// streamscan/cuda/block/block_scan_brent_kung.cuh - work-efficient block scan
// (Brent-Kung: up-sweep reduction tree, then down-sweep distribution tree).
//
// 2n operations in 2 log n barrier-separated steps over shared memory. Works
// for any block size: tree nodes past the end are simply skipped, no padding
// to a power of two (the objection of [LookbackReport] sec. 4.1 does not apply).
#pragma once

#include "../util/uninitialized.cuh"

namespace streamscan::cuda {

template <class T, int BLOCK_THREADS>
class block_scan_brent_kung {
  static_assert(BLOCK_THREADS >= 1 && BLOCK_THREADS <= 1024, "block size out of range");

  // Largest power of two below BLOCK_THREADS: the widest stride of the trees.
  static constexpr int compute_top_stride() {
    int d = 1;
    while (2 * d < BLOCK_THREADS) d *= 2;
    return d;
  }
  static constexpr int top_stride = compute_top_stride();

 public:
  struct temp_storage {
    detail::uninitialized<T> values[BLOCK_THREADS];
  };

  __device__ explicit block_scan_brent_kung(temp_storage& storage) : s_(storage) {}

  template <class Op>
  __device__ void scan(const T& x, Op& op, T& inclusive, T& exclusive, T& aggregate) {
    const int tid = static_cast<int>(threadIdx.x);
    s_.values[tid].get() = x;
    __syncthreads();
    if (BLOCK_THREADS > 1) {
      // Up-sweep: node i accumulates the 2d values ending at i.
      for (int d = 1; d < BLOCK_THREADS; d *= 2) {
        const int i = (tid + 1) * 2 * d - 1;
        if (i < BLOCK_THREADS) s_.values[i].get() = op(s_.values[i - d].get(), s_.values[i].get());
        __syncthreads();
      }
      // Down-sweep: hand each completed prefix to the node d to its right.
      for (int d = top_stride; d >= 1; d /= 2) {
        const int i = (tid + 1) * 2 * d - 1;
        if (i + d < BLOCK_THREADS) s_.values[i + d].get() = op(s_.values[i].get(), s_.values[i + d].get());
        __syncthreads();
      }
    }
    inclusive = s_.values[tid].get();
    if (tid > 0) exclusive = s_.values[tid - 1].get();
    aggregate = s_.values[BLOCK_THREADS - 1].get();
  }

 private:
  temp_storage& s_;
};

}  // namespace streamscan::cuda
