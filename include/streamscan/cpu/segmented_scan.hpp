// streamscan/cpu/segmented_scan.hpp - segmented and backward scans,
// enumerate and distribute on the CPU: the same (value, head) pair scan as the
// CUDA back end (detail/segmented_scan.hpp) over this back end's scan.
// Segment descriptions and directions: streamscan/segmented.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include "../accumulator.hpp"
#include "../detail/segmented_scan.hpp"
#include "../detail/validate.hpp"
#include "../operators.hpp"
#include "../segmented.hpp"
#include "scratch.hpp"
#include "../status.hpp"
#include "scan.hpp"

namespace streamscan::cpu {
namespace detail {

using streamscan::detail::seg_pair;

template <class A, class InIt, class OutIt, class Segments, class Op>
status segmented_scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                      const Segments& segments, Op op, std::optional<A> init, scan_mode mode,
                      segmented_options opt) {
  namespace sd = streamscan::detail;
  static_assert(std::is_trivially_copyable_v<A>, "streamscan: the accumulator type must be trivially copyable");
  if (status s = sd::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (status s = sd::validate_segments(fn, segments, n, temp == nullptr); !s) return s;
  if (temp != nullptr)
    if (status s = sd::check_segment_offsets(fn, segments, n); !s) return s;
  if (status s = sd::validate_segmented_options(fn, opt); !s) return s;
  // Temp: the head bits the description is read through (64-byte aligned size), then the scan's.
  const std::size_t words = sd::head_bit_words(segments, n);
  const std::size_t bits_bytes = (words * 4 + 63) / 64 * 64;
  const bool backward = opt.direction == scan_direction::backward;
  auto* bits = temp == nullptr ? nullptr : static_cast<std::uint32_t*>(temp);
  const sd::segment_heads heads = sd::heads_of(segments, n, backward, bits);
  const A init_value = init ? *init : A{};
  const sd::segmented_input<InIt, A, Op> pin(in, heads, init_value, init.has_value(), op);
  const sd::segmented_output<OutIt, A> pout(out, heads, init_value, mode == scan_mode::exclusive);
  const sd::segmented_op<Op> pop{op};
  using P = seg_pair<A>;
  const scan_args<P> args{mode, mode == scan_mode::exclusive ? std::optional<P>(P{init_value, false}) : std::nullopt};
  std::size_t inner = 0;
  if (status s = scan<P>(fn, nullptr, inner, pin, pout, n, pop, args, opt.scan); !s) return s;
  if (auto t = sd::size_query_or_check(fn, temp, temp_bytes, bits_bytes + inner); t.done) return t.result;
  if (n == 0) return status::ok();
  if (words > 0) std::memset(bits, 0, words * 4);
  if constexpr (sd::is_segment_offsets<Segments>::value) {
    for (std::int64_t k = 0; k < segments.num_segments; ++k) {
      std::int64_t start = 0;
      if (sd::segment_start(segments.offsets, k, n, start)) bits[start >> 5] |= 1u << (start & 31);
    }
  } else if constexpr (std::is_same_v<Segments, head_flags>) {
    for (std::int64_t i = 0; i < n; ++i)
      if (segments.flags[i]) bits[i >> 5] |= 1u << (i & 31);
  }
  return scan<P>(fn, static_cast<unsigned char*>(temp) + bits_bytes, inner, pin, pout, n, pop, args, opt.scan);
}

}  // namespace detail

// ---- two-phase forms (temp == nullptr: temp_bytes receives the size) ----

// out[i] = in[s] (+) ... (+) in[i], s = the start of i's segment (backward: see segmented.hpp)
template <class InIt, class OutIt, class Segments, class Op = streamscan::plus>
[[nodiscard]] status segmented_inclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                              std::int64_t n, Segments segments, Op op = {},
                                              segmented_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt>;
  return detail::segmented_scan<A>("streamscan::cpu::segmented_inclusive_scan", temp, temp_bytes, in, out, n,
                                   segments, op, std::nullopt, detail::scan_mode::inclusive, opt);
}

// out[i] = init (+) in[s] (+) ... (+) in[i]
template <class InIt, class OutIt, class Segments, class Op, class Init>
[[nodiscard]] status segmented_inclusive_scan_init(void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                                   std::int64_t n, Segments segments, Op op, Init init,
                                                   segmented_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::segmented_scan<A>("streamscan::cpu::segmented_inclusive_scan_init", temp, temp_bytes, in, out, n,
                                   segments, op, std::optional<A>(static_cast<A>(init)),
                                   detail::scan_mode::inclusive, opt);
}

// out[s] = init, out[i] = init (+) in[s] (+) ... (+) in[i-1]
template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus>
[[nodiscard]] status segmented_exclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                              std::int64_t n, Segments segments, Init init, Op op = {},
                                              segmented_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::segmented_scan<A>("streamscan::cpu::segmented_exclusive_scan", temp, temp_bytes, in, out, n,
                                   segments, op, std::optional<A>(static_cast<A>(init)),
                                   detail::scan_mode::exclusive, opt);
}

// enumerate ([ScanPrimitives] 2.3.1): out[i] = how many flags before i (in i's
// segment; backward: after i) are true. Counts in out's value type.
template <class FlagIt, class OutIt, class Segments = no_segments>
[[nodiscard]] status enumerate(void* temp, std::size_t& temp_bytes, FlagIt flags, OutIt out, std::int64_t n,
                               Segments segments = {}, segmented_options opt = {}) {
  using C = typename std::iterator_traits<OutIt>::value_type;
  static_assert(!std::is_void_v<C>, "streamscan::cpu::enumerate: the output needs a value type (the count type)");
  return detail::segmented_scan<C>("streamscan::cpu::enumerate", temp, temp_bytes,
                                   streamscan::detail::flag_count_input<FlagIt, C>(flags), out, n, segments,
                                   streamscan::plus{}, std::optional<C>(C(0)), detail::scan_mode::exclusive, opt);
}

// distribute ([ScanPrimitives] 2.3.2): out[i] = the first value of i's segment
// (backward: the last).
template <class InIt, class OutIt, class Segments = no_segments>
[[nodiscard]] status distribute(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                                Segments segments = {}, segmented_options opt = {}) {
  using A = accumulator_t<streamscan::detail::take_first, InIt, OutIt>;
  return detail::segmented_scan<A>("streamscan::cpu::distribute", temp, temp_bytes, in, out, n, segments,
                                   streamscan::detail::take_first{}, std::nullopt, detail::scan_mode::inclusive,
                                   opt);
}

// ---- convenience forms: heap scratch, throw streamscan::error ----

template <class InIt, class OutIt, class Segments, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_inclusive_scan(InIt in, OutIt out, std::int64_t n, Segments segments, Op op = {},
                              segmented_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) {
    return segmented_inclusive_scan(t, b, in, out, n, segments, op, opt);
  });
}
template <class InIt, class OutIt, class Segments, class Op, class Init,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_inclusive_scan_init(InIt in, OutIt out, std::int64_t n, Segments segments, Op op, Init init,
                                   segmented_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) {
    return segmented_inclusive_scan_init(t, b, in, out, n, segments, op, init, opt);
  });
}
template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_exclusive_scan(InIt in, OutIt out, std::int64_t n, Segments segments, Init init, Op op = {},
                              segmented_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) {
    return segmented_exclusive_scan(t, b, in, out, n, segments, init, op, opt);
  });
}
template <class FlagIt, class OutIt, class Segments = no_segments,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<FlagIt>>>
void enumerate(FlagIt flags, OutIt out, std::int64_t n, Segments segments = {}, segmented_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) { return enumerate(t, b, flags, out, n, segments, opt); });
}
template <class InIt, class OutIt, class Segments = no_segments,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void distribute(InIt in, OutIt out, std::int64_t n, Segments segments = {}, segmented_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) { return distribute(t, b, in, out, n, segments, opt); });
}

}  // namespace streamscan::cpu
