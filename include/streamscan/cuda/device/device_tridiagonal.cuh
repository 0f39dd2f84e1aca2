// streamscan/cuda/device/device_tridiagonal.cuh - public API of the batched
// tridiagonal solver on the GPU (semantics, layouts and strategies:
// streamscan/tridiagonal.hpp). Two forms, as for the scans: two-phase
// (temp == nullptr -> temp_bytes; returns a status) and convenience
// (stream-ordered scratch, throws). Both are asynchronous, except that
// checked mode waits for the pivot check.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "../../status.hpp"
#include "../../tridiagonal.hpp"
#include "../dispatch/dispatch_tridiagonal.cuh"
#include "device_scan.cuh"

namespace streamscan::cuda {

template <class T>
[[nodiscard]] status tridiagonal_solve(void* temp, std::size_t& temp_bytes, const tridiagonal_view<T>& a, const T* b,
                                       T* x, cudaStream_t stream = nullptr, tridiagonal_options opt = {}) {
  return detail::dispatch_tridiagonal("streamscan::cuda::tridiagonal_solve", temp, temp_bytes, a, b, x, stream, opt);
}

template <class T>
void tridiagonal_solve(const tridiagonal_view<T>& a, const T* b, T* x, cudaStream_t stream = nullptr,
                       tridiagonal_options opt = {}) {
  detail::with_scratch("streamscan::cuda::tridiagonal_solve", stream, [&](void* t, std::size_t& bytes) {
    return tridiagonal_solve(t, bytes, a, b, x, stream, opt);
  });
}

}  // namespace streamscan::cuda
