// streamscan/cuda/device/device_select.cuh - public API of stream compaction
// (select), partition and split on the GPU. Semantics as in
// streamscan/select.hpp; the same names as the CPU back end, plus a stream.
//
// Two-phase forms only (temp == nullptr -> temp_bytes). num_selected points to
// device memory (one int64): the selected count (for split: the false count),
// which may exceed `capacity` -- then only `capacity` elements were written.
//
//   compaction (select_if, select_flagged, select_indices): options.strategy
//     automatic/stable: one pass, decoupled look-back, in input order; may run
//       in place (out == in).
//     multi_level: [Compaction] sec. 3.1, three kernels, in input order.
//     hybrid, warp_atomic: one kernel, one atomicAdd per 1024-element group /
//       per warp; the selected elements in NO particular order (which ones
//       are written when capacity is short is unspecified too).
//   partition, partition_pairs: one pass; selected first in order, rejected
//     after them in REVERSE input order (CUB's convention).
//   stable_partition, stable_partition_pairs, split: two passes (count, then
//     place); both halves in input order.
// On sm_90+ with 16-byte aligned raw pointers to 4-byte values (and flags),
// from 2^24 of them, partition, stable_partition, split and select_flagged
// run the pipelined kernel by default (tuning/select.hpp, tuning/choose.hpp: default_for).
//   split_and_segment: two segmented scans of (true, false) counts, forward
//     and backward, then one scatter; temp holds 16n bytes (32n past 2^32).
// Partition and split never run in place (a named invalid_argument).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../../detail/select_sources.hpp"
#include "../../segmented.hpp"
#include "../../select.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_select.cuh"
#include "device_scan.cuh"
#include "device_segmented_scan.cuh"

namespace streamscan::cuda {

namespace detail {
template <class FlagIt>
status check_flags(const char* fn, const void* temp, const FlagIt& flags, std::int64_t n) {
  return streamscan::detail::validate_array_arg(fn, flags, "flags", n, temp == nullptr);
}

// select_if and select_flagged below, with a gate in device memory: where it
// is shut (0) when the kernels run, they write nothing (util/gate.cuh). The
// compaction across ranks (dispatch_ranked.cuh) opens it on the device once
// every rank's checks have arrived.
template <class InIt, class OutIt, class Pred>
status gated_select_if(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, std::int64_t capacity,
                       std::int64_t* num_selected, Pred pred, cudaStream_t stream, select_options opt,
                       const std::uint32_t* gate) {
  const streamscan::detail::predicate_source<InIt, OutIt, Pred> src{in, out, pred, false};
  return dispatch_select<select_call::compaction>("streamscan::cuda::select_if", temp, temp_bytes, src, src, in, out, n,
                                                  capacity, num_selected, stream, opt, gate);
}
template <class InIt, class FlagIt, class OutIt>
status gated_select_flagged(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out, std::int64_t n,
                            std::int64_t capacity, std::int64_t* num_selected, cudaStream_t stream,
                            select_options opt, const std::uint32_t* gate) {
  const char* fn = "streamscan::cuda::select_flagged";
  if (status s = check_flags(fn, temp, flags, n); !s) return s;
  const streamscan::detail::flagged_source<InIt, FlagIt, OutIt, false> src{in, flags, out, false};
  return dispatch_select<select_call::compaction>(fn, temp, temp_bytes, src, src, in, out, n, capacity, num_selected,
                                                  stream, opt, gate);
}
}  // namespace detail

// Keeps in[i] where pred(in[i]).
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status select_if(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t capacity, std::int64_t* num_selected, Pred pred,
                               cudaStream_t stream = nullptr, select_options opt = {}) {
  return detail::gated_select_if(temp, temp_bytes, in, out, n, capacity, num_selected, pred, stream, opt, nullptr);
}

// Keeps in[i] where flags[i] is true. The one-tile shapes do not read a
// 16-byte vector of values whose flags are all false (at low selection rates
// whole sectors of the input are skipped); pipelined shapes stage every value.
template <class InIt, class FlagIt, class OutIt>
[[nodiscard]] status select_flagged(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out,
                                    std::int64_t n, std::int64_t capacity, std::int64_t* num_selected,
                                    cudaStream_t stream = nullptr, select_options opt = {}) {
  return detail::gated_select_flagged(temp, temp_bytes, in, flags, out, n, capacity, num_selected, stream, opt,
                                      nullptr);
}

// Writes the indices i where flags[i] is true ([Compaction]'s output).
template <class FlagIt, class OutIt>
[[nodiscard]] status select_indices(void* temp, std::size_t& temp_bytes, FlagIt flags, OutIt out, std::int64_t n,
                                    std::int64_t capacity, std::int64_t* num_selected, cudaStream_t stream = nullptr,
                                    select_options opt = {}) {
  static_assert(std::is_integral_v<typename std::iterator_traits<OutIt>::value_type>,
                "streamscan::cuda::select_indices: the output holds integer indices");
  const char* fn = "streamscan::cuda::select_indices";
  if (status s = streamscan::detail::validate_array_arg(fn, flags, "flags", n, temp == nullptr); !s) return s;
  using Index = typename std::iterator_traits<OutIt>::value_type;
  if (status s = streamscan::detail::validate_index_type<Index>(fn, n); !s) return s;
  const streamscan::detail::index_source<FlagIt, OutIt> src{{flags, false}, out};
  return detail::dispatch_select<detail::select_call::compaction>(fn, temp, temp_bytes, src, src, flags, out, n,
                                                                  capacity, num_selected, stream, opt);
}

// Selected first (input order), then rejected (reverse input order). One pass.
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status partition(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t* num_selected, Pred pred, cudaStream_t stream = nullptr,
                               select_options opt = {}) {
  const streamscan::detail::predicate_source<InIt, OutIt, Pred> src{in, out, pred, false};
  return detail::dispatch_select<detail::select_call::partition>("streamscan::cuda::partition", temp, temp_bytes, src,
                                                                 src, in, out, n, n, num_selected, stream, opt);
}

// Selected first, then rejected, both in input order. Two passes.
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status stable_partition(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                                      std::int64_t* num_selected, Pred pred, cudaStream_t stream = nullptr,
                                      select_options opt = {}) {
  const streamscan::detail::predicate_source<InIt, OutIt, Pred> src{in, out, pred, false};
  return detail::dispatch_select<detail::select_call::stable>("streamscan::cuda::stable_partition", temp, temp_bytes,
                                                              src, src, in, out, n, n, num_selected, stream, opt);
}

namespace detail {
template <select_call Call, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
status partition_pairs(const char* fn, void* temp, std::size_t& temp_bytes, KeyIt keys, ValueIt values, KeyOut keys_out,
                       ValueOut values_out, std::int64_t n, std::int64_t* num_selected, Pred pred, cudaStream_t stream,
                       select_options opt) {
  if (status s = streamscan::detail::validate_range_args(fn, values, values_out, n, temp == nullptr); !s) return s;
  if (n > 0 && same_range(values, values_out))
    return streamscan::detail::invalid_argument(
        fn, "arguments 'values' and 'values_out' are the same: this call cannot run in place");
  const streamscan::detail::pair_source<KeyIt, ValueIt, KeyOut, ValueOut, Pred> src{keys, values, keys_out, values_out,
                                                                                    pred};
  return dispatch_select<Call>(fn, temp, temp_bytes, src, src, keys, keys_out, n, n, num_selected, stream, opt);
}
}  // namespace detail

// Key-value partition (CUB's order, as partition): the keys decide, the values follow.
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
[[nodiscard]] status partition_pairs(void* temp, std::size_t& temp_bytes, KeyIt keys, ValueIt values, KeyOut keys_out,
                                     ValueOut values_out, std::int64_t n, std::int64_t* num_selected, Pred pred,
                                     cudaStream_t stream = nullptr, select_options opt = {}) {
  return detail::partition_pairs<detail::select_call::partition>("streamscan::cuda::partition_pairs", temp, temp_bytes,
                                                                 keys, values, keys_out, values_out, n, num_selected,
                                                                 pred, stream, opt);
}

// Key-value stable partition (as stable_partition).
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
[[nodiscard]] status stable_partition_pairs(void* temp, std::size_t& temp_bytes, KeyIt keys, ValueIt values,
                                            KeyOut keys_out, ValueOut values_out, std::int64_t n,
                                            std::int64_t* num_selected, Pred pred, cudaStream_t stream = nullptr,
                                            select_options opt = {}) {
  return detail::partition_pairs<detail::select_call::stable>("streamscan::cuda::stable_partition_pairs", temp,
                                                              temp_bytes, keys, values, keys_out, values_out, n,
                                                              num_selected, pred, stream, opt);
}

// split ([ScanPrimitives] 2.3.3): flags[i] false first, then true, both in input
// order; *num_false (device) receives where the trues begin. The counting
// pass reads only the flags.
template <class InIt, class FlagIt, class OutIt>
[[nodiscard]] status split(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out, std::int64_t n,
                           std::int64_t* num_false, cudaStream_t stream = nullptr, select_options opt = {}) {
  const char* fn = "streamscan::cuda::split";
  if (status s = detail::check_flags(fn, temp, flags, n); !s) return s;
  const streamscan::detail::flagged_source<InIt, FlagIt, OutIt, true> src{in, flags, out,
                                                                          true};  // "selected" = false flags
  const streamscan::detail::flag_source<FlagIt> count_src{flags, true};  // the counting pass reads only the flags
  return detail::dispatch_select<detail::select_call::stable>(fn, temp, temp_bytes, src, count_src, in, out, n, n,
                                                              num_false, stream, opt);
}

namespace detail {
template <class C, class InIt, class FlagIt, class OutIt, class HeadOut>
status split_and_segment(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, head_flags heads,
                         OutIt out, HeadOut heads_out, std::int64_t n, cudaStream_t stream) {
  using counts = streamscan::detail::true_false_counts<C>;
  const streamscan::detail::true_false_input<FlagIt, C> tf(flags);
  const counts zero{C(0), C(0)};
  const std::size_t array_bytes = streamscan::detail::temp_bytes_for<counts>(n);
  counts* before = nullptr;
  counts* after = nullptr;
  // Both scans take their temp after the two count arrays; one size fits both.
  auto scans = [&](void* t, std::size_t& b) {
    const segmented_options fwd{scan_direction::forward, {}}, bwd{scan_direction::backward, {}};
    status s =
        segmented_exclusive_scan(t, b, tf, before, n, heads, zero, streamscan::detail::add_counts{}, stream, fwd);
    std::size_t b2 = b;
    if (s)
      s = segmented_exclusive_scan(t, b2, tf, after, n, heads, zero, streamscan::detail::add_counts{}, stream, bwd);
    if (s && t == nullptr) b = b > b2 ? b : b2;
    return s;
  };
  std::size_t scan_bytes = 0;
  if (status s = scans(nullptr, scan_bytes); !s) return s;
  const std::size_t required = 2 * array_bytes + scan_bytes + 255;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (status s = check_accessible_args(fn, facts, "in", in, "flags", flags, "heads", heads.flags, "out", out,
                                       "heads_out", heads_out, "temp", temp);
      !s)
    return s;
  unsigned char* p = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256);
  before = reinterpret_cast<counts*>(p);
  after = reinterpret_cast<counts*>(p + array_bytes);
  if (status s = scans(p + 2 * array_bytes, scan_bytes); !s) return s;
  const std::int64_t blocks = (n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536;
  return launch(fn, "split_and_segment_kernel", split_and_segment_kernel<InIt, FlagIt, OutIt, HeadOut, C>, blocks, 256,
                stream, in, flags, out, heads_out, n, static_cast<const counts*>(before),
                static_cast<const counts*>(after));
}
}  // namespace detail

// split-and-segment ([ScanPrimitives] 2.3.3): splits every segment (heads[i] nonzero
// starts one; element 0 always does) on its own, falses first, both in input
// order, and writes the heads of the resulting non-empty halves to heads_out
// (1 or 0 at every position).
template <class InIt, class FlagIt, class OutIt, class HeadOut>
[[nodiscard]] status split_and_segment(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, head_flags heads,
                                       OutIt out, HeadOut heads_out, std::int64_t n, cudaStream_t stream = nullptr,
                                       select_options opt = {}) {
  const char* fn = "streamscan::cuda::split_and_segment";
  using streamscan::detail::invalid_argument;
  select_strategy runs = select_strategy::stable;
  if (status s = streamscan::detail::resolve_select_strategy(fn, opt.strategy, false, runs); !s) return s;
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (temp != nullptr && n > 0) {
    if (status s = detail::check_flags(fn, temp, flags, n); !s) return s;
    if (heads.flags == nullptr) return invalid_argument(fn, "argument 'heads' (head_flags) is a null pointer");
    if (status s = streamscan::detail::validate_array_arg(fn, heads_out, "heads_out", n, false); !s) return s;
    if (detail::same_range(in, out))
      return invalid_argument(fn, "arguments 'in' and 'out' are the same: this call cannot run in place");
  }
  if (n < (std::int64_t{1} << 32) - 1)
    return detail::split_and_segment<std::uint32_t>(fn, temp, temp_bytes, in, flags, heads, out, heads_out, n, stream);
  return detail::split_and_segment<std::uint64_t>(fn, temp, temp_bytes, in, flags, heads, out, heads_out, n, stream);
}

// ---- convenience forms ----
// Stream-ordered scratch (cudaMallocAsync), and the count comes back to the
// host: these wait for the stream. Errors are thrown (streamscan::error).

namespace detail {
// Runs `two_phase(temp, bytes, d_count)` with scratch holding a device count
// after the temp storage; returns the count.
template <class TwoPhase>
std::int64_t with_count(const char* fn, cudaStream_t stream, TwoPhase two_phase) {
  std::int64_t count = 0;
  with_scratch(fn, stream, [&](void* temp, std::size_t& bytes) {
    if (temp == nullptr) {
      status s = two_phase(nullptr, bytes, nullptr);
      bytes += 2 * sizeof(std::int64_t);  // room for an aligned count
      return s;
    }
    const auto at = (reinterpret_cast<std::uintptr_t>(temp) + bytes - 2 * sizeof(std::int64_t) + 7) / 8 * 8;
    auto* d_count = reinterpret_cast<std::int64_t*>(at);
    std::size_t inner = bytes - 2 * sizeof(std::int64_t);
    status s = two_phase(temp, inner, d_count);
    if (!s) return s;
    if (const cudaError_t e = cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, stream);
        e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "copying the count to the host (cudaMemcpyAsync)", e);
    }
    if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "waiting for the stream (cudaStreamSynchronize)", e);
    }
    return status::ok();
  });
  return count;
}
}  // namespace detail

// Returns how many were selected (may exceed capacity; at most capacity are written).
template <class InIt, class OutIt, class Pred, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t select_if(InIt in, OutIt out, std::int64_t n, std::int64_t capacity, Pred pred,
                       cudaStream_t stream = nullptr, select_options opt = {}) {
  return detail::with_count("streamscan::cuda::select_if", stream, [&](void* t, std::size_t& b, std::int64_t* c) {
    return select_if(t, b, in, out, n, capacity, c, pred, stream, opt);
  });
}

template <class InIt, class FlagIt, class OutIt, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t select_flagged(InIt in, FlagIt flags, OutIt out, std::int64_t n, std::int64_t capacity,
                            cudaStream_t stream = nullptr, select_options opt = {}) {
  return detail::with_count("streamscan::cuda::select_flagged", stream, [&](void* t, std::size_t& b, std::int64_t* c) {
    return select_flagged(t, b, in, flags, out, n, capacity, c, stream, opt);
  });
}

// Returns the selected count (where the rejected begin).
template <class InIt, class OutIt, class Pred, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t partition(InIt in, OutIt out, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                       select_options opt = {}) {
  return detail::with_count("streamscan::cuda::partition", stream, [&](void* t, std::size_t& b, std::int64_t* c) {
    return partition(t, b, in, out, n, c, pred, stream, opt);
  });
}

template <class InIt, class OutIt, class Pred, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t stable_partition(InIt in, OutIt out, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                              select_options opt = {}) {
  return detail::with_count("streamscan::cuda::stable_partition", stream,
                            [&](void* t, std::size_t& b, std::int64_t* c) {
                              return stable_partition(t, b, in, out, n, c, pred, stream, opt);
                            });
}

// Returns the false count (where the trues begin).
template <class InIt, class FlagIt, class OutIt, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t split(InIt in, FlagIt flags, OutIt out, std::int64_t n, cudaStream_t stream = nullptr,
                   select_options opt = {}) {
  return detail::with_count("streamscan::cuda::split", stream, [&](void* t, std::size_t& b, std::int64_t* c) {
    return split(t, b, in, flags, out, n, c, stream, opt);
  });
}

// Stream-ordered like the scans' convenience forms: nothing comes back to the host.
template <class InIt, class FlagIt, class OutIt, class HeadOut,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void split_and_segment(InIt in, FlagIt flags, head_flags heads, OutIt out, HeadOut heads_out, std::int64_t n,
                       cudaStream_t stream = nullptr, select_options opt = {}) {
  detail::with_scratch("streamscan::cuda::split_and_segment", stream, [&](void* t, std::size_t& b) {
    return split_and_segment(t, b, in, flags, heads, out, heads_out, n, stream, opt);
  });
}

}  // namespace streamscan::cuda
