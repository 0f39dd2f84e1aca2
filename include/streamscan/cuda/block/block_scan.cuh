// streamscan/cuda/block/block_scan.cuh - one interface over the block scans.
//
//   block_scan<T, THREADS, block_scan_algorithm::raking> scan(storage);
//   T incl = scan.inclusive_scan(x, op);          // x_0 (+) ... (+) x_t
//   T excl = scan.exclusive_scan(x, op, &total);  // x_0 (+) ... (+) x_{t-1}; thread 0: unspecified
//
// Every algorithm handles any block size from 1 to 1024 and non-commutative op.
#pragma once

#include <type_traits>

#include "../../block_scan_algorithm.hpp"
#include "block_scan_brent_kung.cuh"
#include "block_scan_kogge_stone.cuh"
#include "block_scan_raking.cuh"

namespace streamscan::cuda {

using streamscan::block_scan_algorithm;

template <class T, int BLOCK_THREADS, block_scan_algorithm Algorithm>
class block_scan {
  using impl = std::conditional_t<
      Algorithm == block_scan_algorithm::kogge_stone, block_scan_kogge_stone<T, BLOCK_THREADS>,
      std::conditional_t<Algorithm == block_scan_algorithm::brent_kung,
                         block_scan_brent_kung<T, BLOCK_THREADS>, block_scan_raking<T, BLOCK_THREADS>>>;

 public:
  using temp_storage = typename impl::temp_storage;

  __device__ explicit block_scan(temp_storage& storage) : impl_(storage) {}

  template <class Op>
  __device__ void scan(const T& x, Op& op, T& inclusive, T& exclusive, T& aggregate) {
    impl_.scan(x, op, inclusive, exclusive, aggregate);
  }

  template <class Op>
  __device__ T inclusive_scan(const T& x, Op& op, T* aggregate = nullptr) {
    T incl, excl, agg;
    impl_.scan(x, op, incl, excl, agg);
    if (aggregate) *aggregate = agg;
    return incl;
  }

  template <class Op>
  __device__ T exclusive_scan(const T& x, Op& op, T* aggregate = nullptr) {
    T incl, excl, agg;
    impl_.scan(x, op, incl, excl, agg);
    if (aggregate) *aggregate = agg;
    return excl;
  }

 private:
  impl impl_;
};

}  // namespace streamscan::cuda
