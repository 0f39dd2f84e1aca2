// streamscan/detail/segmented_scan.hpp - a segmented scan is a plain scan of
// (value, head) pairs with an operator that restarts at heads (Schwartz's
// transform, [ScanPrimitives] section 2.2): (a, b) -> b.head ? b : (a (+) b, a.head).
// It is associative whenever (+) is, and never commutative, so every scan
// strategy runs it unchanged, the look-back carrying pairs: a tile's prefix
// stops at the first head before it. Shared by every back end; host and
// device callable; no CUDA.
//
// One input and one output iterator type serve every segment description and
// both directions (the choice is a run-time field), so a segmented call
// compiles one set of kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

#include "../config.hpp"
#include "../operators.hpp"
#include "../segmented.hpp"
#include "../status.hpp"
#include "segmented_pair.hpp"

namespace streamscan::detail {

// Where segments start, always as head bits (head_flags and segment_offsets
// are converted into bits in temp storage first; no_segments reads one zero
// word). `operator()(k)` answers for the k-th element in scan order. No
// branches around the loads: a thread's loads stay independent, so they are
// all in flight at once (branchy reads of mixed forms ran 5x slower).
struct segment_heads {
  const std::uint32_t* bits = nullptr;
  std::int64_t word_index_mask = -1;  // 0 with no segments: always word 0
  std::int64_t n = 0;
  bool backward = false;

  // Element index of scan position k.
  STREAMSCAN_HOST_DEVICE std::int64_t element(std::int64_t k) const { return backward ? n - 1 - k : k; }
  STREAMSCAN_HOST_DEVICE bool operator()(std::int64_t k) const {
    // Forward: element k's own flag. Backward: element n-1-k ends a segment
    // when element n-k starts one (k == 0 reads a clamped, ignored index).
    std::int64_t j = backward ? n - k : k;
    j = j < n ? j : n - 1;
    const std::uint32_t word = bits[(j >> 5) & word_index_mask];
    return k == 0 || ((word >> (j & 31)) & 1u) != 0;
  }
};

// Scan position k -> (in[element(k)], head), with the init folded into every
// segment's first value when the call has one (inclusive_init, exclusive).
template <class InIt, class A, class Op>
class segmented_input {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = seg_pair<A>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;

  STREAMSCAN_HOST_DEVICE segmented_input(InIt in, segment_heads heads, A init, bool fold_init, Op op,
                                         std::int64_t base = 0)
      : in_(in), heads_(heads), init_(init), fold_init_(fold_init), op_(op), base_(base) {}

  STREAMSCAN_HOST_DEVICE value_type operator[](difference_type k) const {
    const std::int64_t pos = base_ + k;
    A x = static_cast<A>(in_[heads_.element(pos)]);
    const bool head = heads_(pos);
    if (fold_init_) {  // the same for every element of a call: no divergence; then a select, not a branch
      const A folded = static_cast<A>(op_(init_, x));
      x = head ? folded : x;
    }
    return value_type{x, head};
  }
  STREAMSCAN_HOST_DEVICE value_type operator*() const { return (*this)[0]; }
  STREAMSCAN_HOST_DEVICE segmented_input operator+(difference_type k) const {
    return segmented_input(in_, heads_, init_, fold_init_, op_, base_ + k);
  }

 private:
  InIt in_;
  segment_heads heads_;
  A init_;
  bool fold_init_;
  mutable Op op_;
  std::int64_t base_;
};

// Scan position k <- pair: writes out[element(k)] = pair.value, or the init
// where an exclusive scan starts a segment. Write-only.
template <class OutIt, class A>
class segmented_output {
 public:
  struct proxy {
    OutIt out;
    std::int64_t i;
    bool use_init;
    A init;
    STREAMSCAN_HOST_DEVICE const proxy& operator=(const seg_pair<A>& p) const {
      out[i] = use_init ? init : p.value;
      return *this;
    }
  };
  using iterator_category = std::random_access_iterator_tag;
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = proxy;

  STREAMSCAN_HOST_DEVICE segmented_output(OutIt out, segment_heads heads, A init, bool exclusive,
                                          std::int64_t base = 0)
      : out_(out), heads_(heads), init_(init), exclusive_(exclusive), base_(base) {}

  STREAMSCAN_HOST_DEVICE proxy operator[](difference_type k) const {
    const std::int64_t pos = base_ + k;
    return proxy{out_, heads_.element(pos), exclusive_ && heads_(pos), init_};
  }
  STREAMSCAN_HOST_DEVICE proxy operator*() const { return (*this)[0]; }
  STREAMSCAN_HOST_DEVICE segmented_output operator+(difference_type k) const {
    return segmented_output(out_, heads_, init_, exclusive_, base_ + k);
  }

 private:
  OutIt out_;
  segment_heads heads_;
  A init_;
  bool exclusive_;
  std::int64_t base_;
};

// enumerate: flag i -> 1 or 0 in the count type.
template <class FlagIt, class C>
class flag_count_input {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = C;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = C;
  STREAMSCAN_HOST_DEVICE explicit flag_count_input(FlagIt f) : f_(f) {}
  STREAMSCAN_HOST_DEVICE C operator[](difference_type i) const { return f_[i] ? C(1) : C(0); }
  STREAMSCAN_HOST_DEVICE C operator*() const { return (*this)[0]; }
  STREAMSCAN_HOST_DEVICE flag_count_input operator+(difference_type i) const { return flag_count_input(f_ + i); }

 private:
  FlagIt f_;
};

// distribute: keeps the first value in scan order (associative, not commutative).
struct take_first {
  template <class T>
  STREAMSCAN_HOST_DEVICE T operator()(const T& a, const T&) const {
    return a;
  }
};

// ---- segment descriptions: validation and what temp storage they need ----

template <class S>
struct is_segment_offsets : std::false_type {};
template <class It>
struct is_segment_offsets<segment_offsets<It>> : std::true_type {};

// The options every segmented scan takes: a known direction, and a scan
// strategy other than scan_then_add (it cannot carry segment heads).
inline status validate_segmented_options(const char* fn, const segmented_options& opt) {
  if (opt.direction != scan_direction::forward && opt.direction != scan_direction::backward)
    return invalid_argument(fn, "argument 'options.direction' is neither forward nor backward (" +
                                    std::to_string(static_cast<int>(opt.direction)) + ")");
  if (opt.scan.strategy == scan_strategy::scan_then_add)
    return invalid_argument(fn, "argument 'options.scan.strategy': segmented scans do not offer scan_then_add");
  return status::ok();
}

// Checks the description; a null pointer is fine only when n == 0 or on a
// size query (`query`), which may come before the data is allocated (as for
// in and out: validate_range_args).
template <class S>
status validate_segments(const char* fn, const S& s, std::int64_t n, bool query) {
  if constexpr (std::is_same_v<S, head_flags>) {
    if (!query && n > 0 && s.flags == nullptr)
      return invalid_argument(fn, "argument 'segments' (head_flags) is a null pointer");
  } else if constexpr (std::is_same_v<S, head_bits>) {
    if (!query && n > 0 && s.words == nullptr)
      return invalid_argument(fn, "argument 'segments' (head_bits) is a null pointer");
  } else if constexpr (is_segment_offsets<S>::value) {
    if (s.num_segments < 0)
      return invalid_argument(fn, "argument 'segments.num_segments' is negative (" + std::to_string(s.num_segments) + ")");
    if constexpr (std::is_pointer_v<decltype(s.offsets)>) {
      if (!query && s.offsets == nullptr)
        return invalid_argument(fn, "argument 'segments' (segment_offsets) has a null offsets pointer");
    }
  } else {
    static_assert(std::is_same_v<S, no_segments>,
                  "streamscan: segments must be head_flags, head_bits, segment_offsets or no_segments");
  }
  return status::ok();
}

// The error for segment_offsets whose first entry breaking the documented
// shape (o[0] = 0, never decreasing, o[m] = n) is entry k, which holds `here`
// after `before` (before: o[k-1], unused for k == 0). Both back ends word it
// alike.
inline status segment_offsets_error(const char* fn, std::int64_t k, std::int64_t before, std::int64_t here,
                                    std::int64_t m, std::int64_t n) {
  if (k == 0 && here != 0)
    return invalid_argument(fn, "segments.offsets[0] is " + std::to_string(here) + ", not 0");
  if (k > 0 && here < before)
    return invalid_argument(fn, "segments.offsets decreases at " + std::to_string(k) + " (" + std::to_string(before) +
                                    " then " + std::to_string(here) + ")");
  return invalid_argument(fn, "segments.offsets[" + std::to_string(m) + "] is " + std::to_string(here) +
                                  ", not n = " + std::to_string(n));
}

// The shape segment_offsets must have: a segmented scan's (o[0] = 0, never
// decreasing, o[m] = n), or a segmented reduction's (never decreasing; its
// entries are clamped to [0, n]).
enum class offsets_rule { scan, reduce };

// Whether entry k of m + 1 offsets breaks the rule's shape.
template <class OffsetIt>
STREAMSCAN_HOST_DEVICE bool segment_offset_breaks(OffsetIt offsets, std::int64_t k, std::int64_t m, std::int64_t n,
                                                  offsets_rule rule = offsets_rule::scan) {
  const auto here = static_cast<std::int64_t>(offsets[k]);
  if (k > 0 && here < static_cast<std::int64_t>(offsets[k - 1])) return true;
  if (rule == offsets_rule::reduce) return false;
  if (k == 0 && here != 0) return true;
  return k == m && here != n;
}

// The documented shape of a segmented scan's segment_offsets, for back ends
// whose offsets the host can read (the CPU's): the first entry that breaks it
// is named. Other descriptions pass. (The GPU back end checks on the device,
// in checked mode: segmented_options::checked.)
template <class S>
status check_segment_offsets(const char* fn, const S& s, std::int64_t n) {
  if constexpr (is_segment_offsets<S>::value) {
    const std::int64_t m = s.num_segments;
    for (std::int64_t k = 0; k <= m; ++k)
      if (segment_offset_breaks(s.offsets, k, m, n))
        return segment_offsets_error(fn, k, k > 0 ? static_cast<std::int64_t>(s.offsets[k - 1]) : 0,
                                     static_cast<std::int64_t>(s.offsets[k]), m, n);
  } else {
    (void)fn, (void)s, (void)n;
  }
  return status::ok();
}

// Head bits every description is read through (in temp storage, except
// head_bits itself): words for n bits, or one zero word for no_segments.
template <class S>
std::size_t head_bit_words(const S&, std::int64_t n) {
  if constexpr (std::is_same_v<S, head_bits>) return 0;
  else if constexpr (std::is_same_v<S, no_segments>) return 1;
  else return static_cast<std::size_t>((n + 31) / 32);
}

template <class S>
segment_heads heads_of(const S& s, std::int64_t n, bool backward, const std::uint32_t* converted_bits) {
  segment_heads h;
  h.n = n;
  h.backward = backward;
  if constexpr (std::is_same_v<S, head_bits>) h.bits = s.words;
  else h.bits = converted_bits;
  if constexpr (std::is_same_v<S, no_segments>) h.word_index_mask = 0;
  return h;
}

// Whether segment k is non-empty and starts inside [0, n) (at `start`): the
// CPU back end marks those starts in head bits. The CUDA back end marks the
// same bits for offsets of the documented shape by searching them a tile of
// words at a time (mark_segment_heads_kernel).
template <class OffsetIt>
STREAMSCAN_HOST_DEVICE inline bool segment_start(const OffsetIt& offsets, std::int64_t k, std::int64_t n,
                                                 std::int64_t& start) {
  start = static_cast<std::int64_t>(offsets[k]);
  const std::int64_t end = static_cast<std::int64_t>(offsets[k + 1]);
  return start < end && start >= 0 && start < n;
}

}  // namespace streamscan::detail
