// streamscan/cuda/device/device_segmented_scan.cuh - public API of the
// segmented and backward scans, enumerate and distribute ([ScanPrimitives]).
//
// Segments: head_flags, head_bits, segment_offsets or no_segments; direction
// forward or backward (segmented_options): streamscan/segmented.hpp says
// exactly what each means. Two forms, as for the plain scans: two-phase
// (temp == nullptr -> temp_bytes; returns a status) and convenience
// (stream-ordered scratch, throws streamscan::error). In place (out == in) is
// allowed. op must be associative, need not commute. The scan underneath
// carries (value, head) pairs: with decoupled_lookback or chained a tile's
// prefix stops at a segment head in one pass over the data; `automatic` is
// reduce_then_scan for now, measured faster (dispatch_segmented_scan.cuh).
// Every strategy but scan_then_add (it re-reads the output) is available
// through options.scan.strategy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../../accumulator.hpp"
#include "../../detail/segmented_scan.hpp"
#include "../../operators.hpp"
#include "../../segmented.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_segmented_scan.cuh"
#include "device_scan.cuh"

namespace streamscan::cuda {

// out[i] = in[s] (+) ... (+) in[i], s = the first element of i's segment
// (backward: out[i] = in[e] (+) ... (+) in[i], e = its last).
template <class InIt, class OutIt, class Segments, class Op = streamscan::plus>
[[nodiscard]] status segmented_inclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                              std::int64_t n, Segments segments, Op op = {},
                                              cudaStream_t stream = nullptr, segmented_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt>;
  return detail::dispatch_segmented_scan<A>("streamscan::cuda::segmented_inclusive_scan", temp, temp_bytes, in, out,
                                            n, segments, op, detail::maybe<A>{A{}, false},
                                            detail::scan_mode::inclusive, stream, opt);
}

// out[i] = init (+) in[s] (+) ... (+) in[i]: every segment starts from init.
template <class InIt, class OutIt, class Segments, class Op, class Init>
[[nodiscard]] status segmented_inclusive_scan_init(void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                                   std::int64_t n, Segments segments, Op op, Init init,
                                                   cudaStream_t stream = nullptr, segmented_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::dispatch_segmented_scan<A>("streamscan::cuda::segmented_inclusive_scan_init", temp, temp_bytes, in,
                                            out, n, segments, op, detail::maybe<A>{static_cast<A>(init), true},
                                            detail::scan_mode::inclusive, stream, opt);
}

// out[s] = init, out[i] = init (+) in[s] (+) ... (+) in[i-1]
template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus>
[[nodiscard]] status segmented_exclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                              std::int64_t n, Segments segments, Init init, Op op = {},
                                              cudaStream_t stream = nullptr, segmented_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::dispatch_segmented_scan<A>("streamscan::cuda::segmented_exclusive_scan", temp, temp_bytes, in, out,
                                            n, segments, op, detail::maybe<A>{static_cast<A>(init), true},
                                            detail::scan_mode::exclusive, stream, opt);
}

// enumerate ([ScanPrimitives] 2.3.1): out[i] = how many of the flags before i in its
// segment are true (backward: after i). Counted in out's value type.
template <class FlagIt, class OutIt, class Segments = no_segments>
[[nodiscard]] status enumerate(void* temp, std::size_t& temp_bytes, FlagIt flags, OutIt out, std::int64_t n,
                               Segments segments = {}, cudaStream_t stream = nullptr, segmented_options opt = {}) {
  using C = typename std::iterator_traits<OutIt>::value_type;
  static_assert(!std::is_void_v<C>, "streamscan::cuda::enumerate: the output needs a value type (the count type)");
  return detail::dispatch_segmented_scan<C>("streamscan::cuda::enumerate", temp, temp_bytes,
                                            streamscan::detail::flag_count_input<FlagIt, C>(flags), out, n, segments,
                                            streamscan::plus{}, detail::maybe<C>{C(0), true},
                                            detail::scan_mode::exclusive, stream, opt);
}

// distribute ([ScanPrimitives] 2.3.2): out[i] = the first value of i's segment
// (backward: the last).
template <class InIt, class OutIt, class Segments = no_segments>
[[nodiscard]] status distribute(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                                Segments segments = {}, cudaStream_t stream = nullptr, segmented_options opt = {}) {
  using A = accumulator_t<streamscan::detail::take_first, InIt, OutIt>;
  return detail::dispatch_segmented_scan<A>("streamscan::cuda::distribute", temp, temp_bytes, in, out, n, segments,
                                            streamscan::detail::take_first{}, detail::maybe<A>{A{}, false},
                                            detail::scan_mode::inclusive, stream, opt);
}

// ---- convenience forms ----

template <class InIt, class OutIt, class Segments, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_inclusive_scan(InIt in, OutIt out, std::int64_t n, Segments segments, Op op = {},
                              cudaStream_t stream = nullptr, segmented_options opt = {}) {
  detail::with_scratch("streamscan::cuda::segmented_inclusive_scan", stream, [&](void* t, std::size_t& b) {
    return segmented_inclusive_scan(t, b, in, out, n, segments, op, stream, opt);
  });
}
template <class InIt, class OutIt, class Segments, class Op, class Init,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_inclusive_scan_init(InIt in, OutIt out, std::int64_t n, Segments segments, Op op, Init init,
                                   cudaStream_t stream = nullptr, segmented_options opt = {}) {
  detail::with_scratch("streamscan::cuda::segmented_inclusive_scan_init", stream, [&](void* t, std::size_t& b) {
    return segmented_inclusive_scan_init(t, b, in, out, n, segments, op, init, stream, opt);
  });
}
template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_exclusive_scan(InIt in, OutIt out, std::int64_t n, Segments segments, Init init, Op op = {},
                              cudaStream_t stream = nullptr, segmented_options opt = {}) {
  detail::with_scratch("streamscan::cuda::segmented_exclusive_scan", stream, [&](void* t, std::size_t& b) {
    return segmented_exclusive_scan(t, b, in, out, n, segments, init, op, stream, opt);
  });
}
template <class FlagIt, class OutIt, class Segments = no_segments,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<FlagIt>>>
void enumerate(FlagIt flags, OutIt out, std::int64_t n, Segments segments = {}, cudaStream_t stream = nullptr,
               segmented_options opt = {}) {
  detail::with_scratch("streamscan::cuda::enumerate", stream, [&](void* t, std::size_t& b) {
    return enumerate(t, b, flags, out, n, segments, stream, opt);
  });
}
template <class InIt, class OutIt, class Segments = no_segments,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void distribute(InIt in, OutIt out, std::int64_t n, Segments segments = {}, cudaStream_t stream = nullptr,
                segmented_options opt = {}) {
  detail::with_scratch("streamscan::cuda::distribute", stream, [&](void* t, std::size_t& b) {
    return distribute(t, b, in, out, n, segments, stream, opt);
  });
}

}  // namespace streamscan::cuda
