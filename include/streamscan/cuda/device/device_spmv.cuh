// streamscan/cuda/device/device_spmv.cuh - public API of y = alpha A x + beta y
// for a CSR matrix on the GPU (semantics and strategies: streamscan/spmv.hpp).
// Two forms, as for the scans: two-phase (temp == nullptr -> temp_bytes;
// returns a status) and convenience (stream-ordered scratch, throws). Both
// are asynchronous, except that checked mode waits for its verdict.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "../../spmv.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_spmv.cuh"
#include "device_scan.cuh"

namespace streamscan::cuda {

template <class V, class O, class I>
[[nodiscard]] status spmv(void* temp, std::size_t& temp_bytes, const csr_view<V, O, I>& a, const V* x, V* y,
                          typename csr_view<V, O, I>::value_type alpha, typename csr_view<V, O, I>::value_type beta,
                          cudaStream_t stream = nullptr, spmv_options opt = {}) {
  return detail::dispatch_spmv("streamscan::cuda::spmv", temp, temp_bytes, a, x, y, alpha, beta, stream, opt);
}

// Prepares temp storage (sized by a query of either function: they agree)
// for prepared products with A's sparsity pattern: options.prepared
// (streamscan/spmv.hpp). Asynchronous, except that checked mode waits.
template <class V, class O, class I>
[[nodiscard]] status spmv_prepare(void* temp, std::size_t& temp_bytes, const csr_view<V, O, I>& a,
                                  cudaStream_t stream = nullptr, spmv_options opt = {}) {
  return detail::dispatch_spmv_prepare("streamscan::cuda::spmv_prepare", temp, temp_bytes, a, stream, opt);
}

template <class V, class O, class I>
void spmv(const csr_view<V, O, I>& a, const V* x, V* y, typename csr_view<V, O, I>::value_type alpha,
          typename csr_view<V, O, I>::value_type beta, cudaStream_t stream = nullptr, spmv_options opt = {}) {
  throw_if_error(streamscan::detail::validate_spmv_convenience("streamscan::cuda::spmv", opt));
  detail::with_scratch("streamscan::cuda::spmv", stream, [&](void* t, std::size_t& b) {
    return spmv(t, b, a, x, y, alpha, beta, stream, opt);
  });
}

}  // namespace streamscan::cuda
