// streamscan/cuda/thread/thread_linear_recurrence.cuh - a value of a linear
// recurrence on the device: how each storage type is read into its state type
// and written back, and the (a, b) pair operator as a functor for the warp
// and look-back code (streamscan/linear_recurrence.hpp has the semantics).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "../../linear_recurrence.hpp"

namespace streamscan::cuda::detail {

using streamscan::detail::recurrence_pair;

// The storage type a kernel is compiled for: CUDA's 16-bit types run as
// streamscan's (the same bits).
template <class T>
struct recurrence_storage {
  using type = T;
};
template <>
struct recurrence_storage<__half> {
  using type = streamscan::float16;
};
template <>
struct recurrence_storage<__nv_bfloat16> {
  using type = streamscan::bfloat16;
};
template <class T>
using recurrence_storage_t = typename recurrence_storage<std::remove_cv_t<T>>::type;

template <class T>
struct recurrence_value {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "streamscan::linear_recurrence: values are float, double, float16 or bfloat16");
  using state = T;
  __device__ __forceinline__ static state load(T v) { return v; }
  __device__ __forceinline__ static T store(state v) { return v; }
};
template <>
struct recurrence_value<streamscan::float16> {
  using state = float;
  __device__ __forceinline__ static state load(streamscan::float16 v) { return __half2float(__ushort_as_half(v.bits)); }
  __device__ __forceinline__ static streamscan::float16 store(state v) {
    return {__half_as_ushort(__float2half_rn(v))};
  }
};
template <>
struct recurrence_value<streamscan::bfloat16> {
  using state = float;
  __device__ __forceinline__ static state load(streamscan::bfloat16 v) {
    return __uint_as_float(static_cast<unsigned>(v.bits) << 16);
  }
  __device__ __forceinline__ static streamscan::bfloat16 store(state v) {
    return {__bfloat16_as_ushort(__float2bfloat16_rn(v))};
  }
};

// The pair operator (first x, then y) for warp_scan and the look-back.
struct recurrence_compose {
  template <class S>
  __device__ __forceinline__ recurrence_pair<S> operator()(const recurrence_pair<S>& x,
                                                           const recurrence_pair<S>& y) const {
    return streamscan::detail::compose(x, y);
  }
};

// A pair that may be absent ("nothing before it"): no identity is assumed.
template <class S>
__device__ __forceinline__ void compose_into(recurrence_pair<S>& acc, bool& present, const recurrence_pair<S>& y) {
  acc = present ? streamscan::detail::compose(acc, y) : y;
  present = true;
}

}  // namespace streamscan::cuda::detail
