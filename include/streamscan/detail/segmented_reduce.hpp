// streamscan/detail/segmented_reduce.hpp - what both back ends' segmented
// reductions share: the segment descriptions they take, their argument
// checks and where a segment's range is. No CUDA.
//
// A segmented reduction writes one value per segment:
//   out[k] = init (+) in[s_k] (+) ... (+) in[e_k - 1],
// left to right (op need not commute), init alone for an empty segment.
//   segment_offsets{o, m}: m outputs, segment k = [o[k], o[k+1]) clamped to
//     [0, n]; offsets must not decrease (the CPU back end names one that
//     does, the GPU too in checked mode: segmented_reduce_options). Empty
//     segments get init.
//   head_flags / head_bits: one output per segment, in order; element 0
//     always starts one; a segment ends before the next head or at n. The
//     number of segments is what the caller may not know: the calls write it
//     to an optional `num_segments` (m for offsets, too).
// no_segments is not a segmentation here (a plain reduction is not offered).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "../config.hpp"
#include "../segmented.hpp"
#include "../status.hpp"
#include "segmented_scan.hpp"
#include "validate.hpp"

namespace streamscan::detail {

template <class S>
inline constexpr bool is_reduce_segments_v =
    std::is_same_v<S, head_flags> || std::is_same_v<S, head_bits> || is_segment_offsets<S>::value;

// Checks n, the description and the pointers (not on a size query: data
// pointers may be null then). With offsets, out must be there whenever there
// are segments, even empty ones (they receive init).
template <class InIt, class OutIt, class S>
status validate_segmented_reduce(const char* fn, const InIt& in, const OutIt& out, std::int64_t n, const S& segments,
                                 bool query) {
  static_assert(is_reduce_segments_v<S>,
                "streamscan: segmented_reduce takes head_flags, head_bits or segment_offsets");
  if (status s = validate_range_args(fn, in, out, n, query); !s) return s;
  if (status s = validate_segments(fn, segments, n, query); !s) return s;
  if constexpr (is_segment_offsets<S>::value) {
    if (!query && n == 0 && segments.num_segments > 0 && is_null_pointer(out))
      return invalid_argument(fn, "argument 'out' is a null pointer while segments.num_segments = " +
                                      std::to_string(segments.num_segments));
  }
  return status::ok();
}

// Segment k of an offsets description, clamped to [0, n]: [begin, end),
// empty when end <= begin.
template <class OffsetIt>
STREAMSCAN_HOST_DEVICE inline void segment_range(const OffsetIt& offsets, std::int64_t k, std::int64_t n,
                                                 std::int64_t& begin, std::int64_t& end) {
  begin = static_cast<std::int64_t>(offsets[k]);
  end = static_cast<std::int64_t>(offsets[k + 1]);
  begin = begin < 0 ? 0 : begin > n ? n : begin;
  end = end < begin ? begin : end > n ? n : end;
}

// Heads of a 32-element word of head bits as the reduction counts them:
// element 0 always a head, bits at or past n ignored.
STREAMSCAN_HOST_DEVICE inline std::uint32_t word_heads(const std::uint32_t* bits, std::int64_t w, std::int64_t n) {
  const std::int64_t valid = n - 32 * w;  // >= 1
  const std::uint32_t mask = valid >= 32 ? ~0u : (1u << valid) - 1u;
  return (bits[w] & mask) | (w == 0 ? 1u : 0u);
}

}  // namespace streamscan::detail
