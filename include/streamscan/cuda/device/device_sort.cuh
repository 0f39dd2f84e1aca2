// streamscan/cuda/device/device_sort.cuh - public API of the sorts on the GPU.
// Semantics and key order as in streamscan/sort.hpp; the same names as the
// CPU back end, plus a stream.
//
// Radix sort (raw pointers; keys of radix_key_traits, values of any
// trivially-copyable type):
//   two-phase forms (temp == nullptr -> temp_bytes), asynchronous, errors as a
//     status; keys_out == keys_in (and values_out == values_in) is allowed.
//   double-buffer forms: the sorted data ends in keys.current() (and
//     values.current()); temp then holds no copy of the keys or values.
//   convenience forms: stream-ordered scratch, errors thrown.
//   options.strategy: automatic/onesweep ([Onesweep]: 8-bit digits, a pass per
//     digit), split ([ScanPrimitives]: one split per bit).
// quicksort ([ScanPrimitives] 4.1): segmented-scan quicksort; any trivially-copyable key with
//   a strict weak order `less`. It reads a flag back after every round ("is
//   every segment sorted?"), so it waits for the stream while it runs. A
//   `less` that is not a strict weak order shows only by running: after 2n
//   rounds the call stops with an invalid_argument naming 'less', and out
//   then holds a permutation of the keys (none lost, their order unspecified).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../../operators.hpp"
#include "../../sort.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_quicksort.cuh"
#include "device_scan.cuh"
#include "../dispatch/dispatch_sort.cuh"

namespace streamscan::cuda {

template <class K>
[[nodiscard]] status radix_sort_keys(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                                     std::int64_t n, cudaStream_t stream = nullptr, sort_options opt = {}) {
  detail::sort_io<K, detail::no_values> io{keys_in, keys_out};
  return detail::dispatch_radix_sort("streamscan::cuda::radix_sort_keys", temp, temp_bytes, io, n, stream, opt);
}

template <class K>
[[nodiscard]] status radix_sort_keys(void* temp, std::size_t& temp_bytes, double_buffer<K>& keys, std::int64_t n,
                                     cudaStream_t stream = nullptr, sort_options opt = {}) {
  detail::sort_io<K, detail::no_values> io{keys.current(), keys.alternate()};
  io.keys_double_buffer = &keys;
  return detail::dispatch_radix_sort("streamscan::cuda::radix_sort_keys", temp, temp_bytes, io, n, stream, opt);
}

template <class K, class V>
[[nodiscard]] status radix_sort_pairs(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                                      const V* values_in, V* values_out, std::int64_t n,
                                      cudaStream_t stream = nullptr, sort_options opt = {}) {
  detail::sort_io<K, V> io{keys_in, keys_out, values_in, values_out};
  return detail::dispatch_radix_sort("streamscan::cuda::radix_sort_pairs", temp, temp_bytes, io, n, stream, opt);
}

template <class K, class V>
[[nodiscard]] status radix_sort_pairs(void* temp, std::size_t& temp_bytes, double_buffer<K>& keys,
                                      double_buffer<V>& values, std::int64_t n, cudaStream_t stream = nullptr,
                                      sort_options opt = {}) {
  detail::sort_io<K, V> io{keys.current(), keys.alternate(), values.current(), values.alternate()};
  io.keys_double_buffer = &keys;
  io.values_double_buffer = &values;
  return detail::dispatch_radix_sort("streamscan::cuda::radix_sort_pairs", temp, temp_bytes, io, n, stream, opt);
}

// out = in sorted by `less`, stably. out == in is allowed.
template <class K, class Less = streamscan::less>
[[nodiscard]] status quicksort(void* temp, std::size_t& temp_bytes, const K* in, K* out, std::int64_t n,
                               cudaStream_t stream = nullptr, quicksort_options opt = {}, Less less = {}) {
  return detail::dispatch_quicksort("streamscan::cuda::quicksort", temp, temp_bytes, in, out, n, stream, opt, less);
}

// ---- convenience forms (with_scratch: device_scan.cuh) ----

template <class K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, cudaStream_t stream = nullptr,
                     sort_options opt = {}) {
  detail::with_scratch("streamscan::cuda::radix_sort_keys", stream, [&](void* t, std::size_t& b) {
    return radix_sort_keys(t, b, keys_in, keys_out, n, stream, opt);
  });
}

template <class K, class V>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                      cudaStream_t stream = nullptr, sort_options opt = {}) {
  detail::with_scratch("streamscan::cuda::radix_sort_pairs", stream, [&](void* t, std::size_t& b) {
    return radix_sort_pairs(t, b, keys_in, keys_out, values_in, values_out, n, stream, opt);
  });
}

template <class K, class Less = streamscan::less>
void quicksort(const K* in, K* out, std::int64_t n, cudaStream_t stream = nullptr, quicksort_options opt = {},
               Less less = {}) {
  detail::with_scratch("streamscan::cuda::quicksort", stream,
                           [&](void* t, std::size_t& b) { return quicksort(t, b, in, out, n, stream, opt, less); });
}

}  // namespace streamscan::cuda
