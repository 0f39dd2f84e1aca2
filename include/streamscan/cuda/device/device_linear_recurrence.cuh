// streamscan/cuda/device/device_linear_recurrence.cuh - public API of the
// linear recurrence h[t] = a[t] h[t-1] + b[t] and its gradient on the GPU
// (semantics, layouts, types: streamscan/linear_recurrence.hpp). Two forms,
// as for the scans: two-phase (temp == nullptr -> temp_bytes; returns a
// status) and convenience (stream-ordered scratch, throws). Both are
// asynchronous. T: float, double, __half, __nv_bfloat16, streamscan::float16
// or streamscan::bfloat16.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "../../linear_recurrence.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_linear_recurrence.cuh"
#include "device_scan.cuh"

namespace streamscan::cuda {

namespace detail {
template <class T>
const recurrence_storage_t<T>* as_storage(const T* p) {
  static_assert(sizeof(recurrence_storage_t<T>) == sizeof(T), "same bits");
  return reinterpret_cast<const recurrence_storage_t<T>*>(p);
}
template <class T>
recurrence_storage_t<T>* as_storage(T* p) {
  return reinterpret_cast<recurrence_storage_t<T>*>(p);
}
}  // namespace detail

// h[t] = a[t] h[t-1] + b[t] (reverse: h[t+1]) for every sequence of the
// layout; initial: one h[-1] a sequence, or null for 0.
template <class T>
[[nodiscard]] status linear_recurrence(void* temp, std::size_t& temp_bytes, const recurrence_layout& layout,
                                       const T* a, const T* b, T* h, const T* initial = nullptr,
                                       cudaStream_t stream = nullptr, recurrence_options opt = {}) {
  using detail::as_storage;
  return detail::dispatch_linear_recurrence("streamscan::cuda::linear_recurrence", temp, temp_bytes, layout,
                                            as_storage(a), as_storage(b), as_storage(h), as_storage(initial), stream,
                                            opt);
}

template <class T>
void linear_recurrence(const recurrence_layout& layout, const T* a, const T* b, T* h, const T* initial = nullptr,
                       cudaStream_t stream = nullptr, recurrence_options opt = {}) {
  detail::with_scratch("streamscan::cuda::linear_recurrence", stream, [&](void* t, std::size_t& bytes) {
    return linear_recurrence(t, bytes, layout, a, b, h, initial, stream, opt);
  });
}

// The gradient: dh = dL/dh and the forward's a, h and initial in; dL/da,
// dL/db and (where grad_initial is not null) dL/dinitial out. One kernel.
template <class T>
[[nodiscard]] status linear_recurrence_backward(void* temp, std::size_t& temp_bytes, const recurrence_layout& layout,
                                                const T* a, const T* h, const T* dh, const T* initial, T* grad_a,
                                                T* grad_b, T* grad_initial = nullptr, cudaStream_t stream = nullptr,
                                                recurrence_options opt = {}) {
  using detail::as_storage;
  return detail::dispatch_linear_recurrence_backward(
      "streamscan::cuda::linear_recurrence_backward", temp, temp_bytes, layout, as_storage(a), as_storage(h),
      as_storage(dh), as_storage(initial), as_storage(grad_a), as_storage(grad_b), as_storage(grad_initial), stream,
      opt);
}

template <class T>
void linear_recurrence_backward(const recurrence_layout& layout, const T* a, const T* h, const T* dh,
                                const T* initial, T* grad_a, T* grad_b, T* grad_initial = nullptr,
                                cudaStream_t stream = nullptr, recurrence_options opt = {}) {
  detail::with_scratch("streamscan::cuda::linear_recurrence_backward", stream, [&](void* t, std::size_t& bytes) {
    return linear_recurrence_backward(t, bytes, layout, a, h, dh, initial, grad_a, grad_b, grad_initial, stream, opt);
  });
}

}  // namespace streamscan::cuda
