// streamscan/cuda/device/device_select.cuh - public API of stream compaction
// (select), partition and split on the GPU. Semantics as in
// streamscan/select.hpp; the same names as the CPU back end, plus a stream.
//
// Two-phase forms only (temp == nullptr -> temp_bytes). num_selected points to
// device memory (one int64): the kept count (for split: the false count),
// which may exceed `capacity` — then only `capacity` elements were written.
// Single pass for compaction (an exclusive count scan with the decoupled
// look-back whose output scatters); partition and split count first, then
// scatter. None runs in place (out == in is refused with a named error; the
// CPU back end compacts in place). Seed 002's multi_level, hybrid and warp_atomic strategies are not in
// this build yet (invalid_argument), nor is split_and_segment (CPU only).
//
// Status (2026-11-21): this first version compiles and shares its test bodies
// with the CPU back end (tests/test_select_cuda.cu), but those tests have not
// yet run on a GPU; issue 6 tracks it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../../detail/select_iterators.hpp"
#include "../../select.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_select.cuh"

namespace streamscan::cuda {

// Keeps in[i] where pred(in[i]).
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status select_if(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t capacity, std::int64_t* num_selected, Pred pred,
                               cudaStream_t stream = nullptr, select_options opt = {}) {
  const streamscan::detail::keep_by_predicate<InIt, Pred> keep{in, pred, false};
  return detail::dispatch_select("streamscan::cuda::select_if", temp, temp_bytes, in, out, n, capacity,
                                 num_selected, keep, streamscan::detail::move_value<InIt, OutIt>{in, out}, false,
                                 stream, opt);
}

// Keeps in[i] where flags[i] is true.
template <class InIt, class FlagIt, class OutIt>
[[nodiscard]] status select_flagged(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out,
                                    std::int64_t n, std::int64_t capacity, std::int64_t* num_selected,
                                    cudaStream_t stream = nullptr, select_options opt = {}) {
  const char* fn = "streamscan::cuda::select_flagged";
  if constexpr (std::is_pointer_v<FlagIt>)
    if (n > 0 && temp != nullptr && flags == nullptr)
      return streamscan::detail::invalid_argument(fn, "argument 'flags' is a null pointer");
  const streamscan::detail::keep_by_flag<FlagIt> keep{flags, false};
  return detail::dispatch_select(fn, temp, temp_bytes, in, out, n, capacity, num_selected, keep,
                                 streamscan::detail::move_value<InIt, OutIt>{in, out}, false, stream, opt);
}

// Writes the indices i where flags[i] is true (seed 002's output).
template <class FlagIt, class OutIt>
[[nodiscard]] status select_indices(void* temp, std::size_t& temp_bytes, FlagIt flags, OutIt out, std::int64_t n,
                                    std::int64_t capacity, std::int64_t* num_selected,
                                    cudaStream_t stream = nullptr, select_options opt = {}) {
  static_assert(std::is_integral_v<typename std::iterator_traits<OutIt>::value_type>,
                "streamscan::cuda::select_indices: the output holds integer indices");
  const streamscan::detail::keep_by_flag<FlagIt> keep{flags, false};
  return detail::dispatch_select("streamscan::cuda::select_indices", temp, temp_bytes, flags, out, n, capacity,
                                 num_selected, keep, streamscan::detail::move_index<OutIt>{out}, false, stream, opt);
}

// Selected first, then rejected, both in input order.
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status partition(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t* num_selected, Pred pred, cudaStream_t stream = nullptr,
                               select_options opt = {}) {
  const streamscan::detail::keep_by_predicate<InIt, Pred> keep{in, pred, false};
  return detail::dispatch_select("streamscan::cuda::partition", temp, temp_bytes, in, out, n, n, num_selected, keep,
                                 streamscan::detail::move_value<InIt, OutIt>{in, out}, true, stream, opt);
}

// Key-value partition: the keys decide, the values follow.
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
[[nodiscard]] status partition_pairs(void* temp, std::size_t& temp_bytes, KeyIt keys, ValueIt values,
                                     KeyOut keys_out, ValueOut values_out, std::int64_t n,
                                     std::int64_t* num_selected, Pred pred, cudaStream_t stream = nullptr,
                                     select_options opt = {}) {
  const char* fn = "streamscan::cuda::partition_pairs";
  if (status s = streamscan::detail::validate_range_args(fn, values, values_out, n, temp == nullptr); !s) return s;
  const streamscan::detail::keep_by_predicate<KeyIt, Pred> keep{keys, pred, false};
  const streamscan::detail::move_pair<KeyIt, ValueIt, KeyOut, ValueOut> move{keys, values, keys_out, values_out};
  return detail::dispatch_select(fn, temp, temp_bytes, keys, keys_out, n, n, num_selected, keep, move, true, stream,
                                 opt);
}

// split (seed 003 2.3.3): flags[i] false first, then true, both in input
// order; *num_false (device) receives where the trues begin.
template <class InIt, class FlagIt, class OutIt>
[[nodiscard]] status split(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out, std::int64_t n,
                           std::int64_t* num_false, cudaStream_t stream = nullptr, select_options opt = {}) {
  const streamscan::detail::keep_by_flag<FlagIt> keep{flags, true};  // "kept" = false flags, placed first
  return detail::dispatch_select("streamscan::cuda::split", temp, temp_bytes, in, out, n, n, num_false, keep,
                                 streamscan::detail::move_value<InIt, OutIt>{in, out}, true, stream, opt);
}

}  // namespace streamscan::cuda
