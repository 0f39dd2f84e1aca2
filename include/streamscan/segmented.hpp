// streamscan/segmented.hpp - how a segmented scan's segments are described,
// and its options; shared by every back end. No CUDA.
//
// Segments are runs of consecutive elements; a scan restarts at each one.
// Three descriptions ([ScanPrimitives] section 2.2.2 and CSR row pointers):
//   head_flags{flags}      one byte per element, nonzero where a segment starts;
//   head_bits{words}       the same flags packed 32 per 32-bit word, element i
//                          is bit (i % 32) of word i / 32 (least significant first);
//   segment_offsets{o, m}  m segments, segment k = [o[k], o[k+1]): o[0] = 0,
//                          non-decreasing, o[m] = n (empty segments allowed;
//                          they have no elements, so no outputs).
//   no_segments{}          the whole input is one segment (backward plain scans).
// Element 0 always starts a segment, flagged or not.
//
// Direction ([ScanPrimitives]' backward scans): forward scans go left to right. A
// backward scan goes right to left over the same segments: out[i] combines
// in[e] (+) in[e-1] (+) ... (+) in[i], where e is the last element of i's
// segment (the forward scan of the reversed segment, written back reversed).
// The flags mean the same in both directions — a flag sits between the last
// element of one segment and the first of the next — so element i is where a
// backward scan restarts when i == n-1 or element i+1 is flagged (the "shift by
// one" of [ScanPrimitives]). No reversed copy is made.
#pragma once

#include <cstdint>

#include "scan_options.hpp"

namespace streamscan {

enum class scan_direction { forward, backward };

inline const char* to_string(scan_direction d) noexcept { return d == scan_direction::forward ? "forward" : "backward"; }

struct segmented_options {
  scan_direction direction = scan_direction::forward;
  scan_options scan = {};  // strategy and policy of the scan underneath (not scan_then_add)
  // Checked mode for segment_offsets: the GPU back end first checks the
  // offsets' shape (o[0] = 0, never decreasing, o[m] = n) on the device and
  // waits for the verdict, so a broken entry is named and nothing is written.
  // Unchecked, the GPU trusts them (a broken shape gives unspecified output).
  // The CPU back end always checks.
  bool checked = false;
};

// Options of segmented_reduce. Checked mode for segment_offsets: the GPU back
// end first checks on the device that the offsets never decrease (a
// reduction clamps them to [0, n], so that is its whole shape) and waits for
// the verdict, so a broken entry is named and nothing is written. Unchecked,
// the GPU trusts them. The CPU back end always checks.
struct segmented_reduce_options {
  bool checked = false;
};

struct head_flags {
  const unsigned char* flags = nullptr;
  head_flags() = default;
  explicit head_flags(const unsigned char* f) : flags(f) {}
  explicit head_flags(const bool* f) : flags(reinterpret_cast<const unsigned char*>(f)) {}
  explicit head_flags(const signed char* f) : flags(reinterpret_cast<const unsigned char*>(f)) {}
  explicit head_flags(const char* f) : flags(reinterpret_cast<const unsigned char*>(f)) {}
};

struct head_bits {
  const std::uint32_t* words = nullptr;
  head_bits() = default;
  explicit head_bits(const std::uint32_t* w) : words(w) {}
};

template <class OffsetIt>
struct segment_offsets {
  OffsetIt offsets;
  std::int64_t num_segments = 0;
};
template <class OffsetIt>
segment_offsets(OffsetIt, std::int64_t) -> segment_offsets<OffsetIt>;

struct no_segments {};

}  // namespace streamscan
