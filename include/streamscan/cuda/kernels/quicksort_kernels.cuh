// streamscan/cuda/kernels/quicksort_kernels.cuh - the two steps of
// [ScanPrimitives] 4.1's quicksort that are no scan: comparing each key with
// its segment's pivot, and the global "is everything sorted?" reduction.
// Grid-stride loops; any grid size.
#pragma once

#include <cstdint>

namespace streamscan::cuda::detail {

// pivot_rule::first: the pivot of element i was distributed to pivots[i].
template <class K>
struct distributed_pivot {
  const K* pivots;
  __device__ K operator()(const K*, std::int64_t i) const { return pivots[i]; }
};

// pivot_rule::middle: the key in the middle of i's segment [first[i], last[i]]
// (its bounds distributed forward and backward).
template <class K, class C>
struct middle_pivot {
  const C* first;
  const C* last;
  __device__ K operator()(const K* keys, std::int64_t i) const {
    const C s = first[i], e = last[i];
    return keys[s + (e - s) / 2];
  }
};

// flags[i] = whether keys[i] goes to the upper half: pivot < key, or with
// `or_equal`, !(key < pivot) -- the paper's alternating `>` and `>=`.
template <class K, class Pivot, class Less>
__global__ void quicksort_compare_kernel(const K* keys, Pivot pivot, unsigned char* flags, std::int64_t n,
                                         bool or_equal, Less less) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const K key = keys[i];
    const K p = pivot(keys, i);
    flags[i] = static_cast<unsigned char>(or_equal ? !less(key, p) : less(p, key));
  }
}

// *unsorted = 1 when some keys[i + 1] < keys[i] (the caller zeroes it first).
template <class K, class Less>
__global__ void quicksort_unsorted_kernel(const K* keys, std::int64_t n, Less less, unsigned* unsorted) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  bool found = false;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i + 1 < n; i += stride)
    found = found || static_cast<bool>(less(keys[i + 1], keys[i]));
  if (__syncthreads_or(found) && threadIdx.x == 0) *unsorted = 1u;
}

}  // namespace streamscan::cuda::detail
