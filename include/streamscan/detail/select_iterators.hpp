// streamscan/detail/select_iterators.hpp - compaction, partition and split as
// an exclusive count scan whose output iterator scatters: position i receives
// c = how many kept elements precede it and, if i is kept, moves in[i] to
// out[c] (rejected ones to out[kept_total + i - c] when the call places
// them). The scan's single pass (look-back) is the compaction's. Host and
// device callable; no CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "../config.hpp"

namespace streamscan::detail {

// Whether element i is kept: a predicate on the input or a stencil flag; `invert` for split (falses first).
template <class InIt, class Pred>
struct keep_by_predicate {
  InIt in;
  mutable Pred pred;
  bool invert;
  STREAMSCAN_HOST_DEVICE bool operator()(std::int64_t i) const { return static_cast<bool>(pred(in[i])) != invert; }
};
template <class FlagIt>
struct keep_by_flag {
  FlagIt flags;
  bool invert;
  STREAMSCAN_HOST_DEVICE bool operator()(std::int64_t i) const { return static_cast<bool>(flags[i]) != invert; }
};

// Position i -> 1 if kept, else 0, in the count type C.
template <class Keep, class C>
class keep_count_input {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = C;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = C;
  STREAMSCAN_HOST_DEVICE keep_count_input(Keep keep, std::int64_t base = 0) : keep_(keep), base_(base) {}
  STREAMSCAN_HOST_DEVICE C operator[](difference_type k) const { return keep_(base_ + k) ? C(1) : C(0); }
  STREAMSCAN_HOST_DEVICE C operator*() const { return (*this)[0]; }
  STREAMSCAN_HOST_DEVICE keep_count_input operator+(difference_type k) const { return {keep_, base_ + k}; }

 private:
  Keep keep_;
  std::int64_t base_;
};

// What the scattering output does with element i and its count c.
//   Move(i, dest) moves element i (its value, its index, a key and a value);
//   kept elements go to c while c < capacity; with `rejected_from` (device or
//   host pointer to the kept total), rejected ones go to *rejected_from + i - c;
//   with `total_out`, position n-1 stores the kept total there.
template <class Keep, class Move, class C>
class scatter_output {
 public:
  struct proxy {
    const scatter_output* self;
    std::int64_t i;
    STREAMSCAN_HOST_DEVICE const proxy& operator=(const C& c) const {
      const auto& s = *self;
      const bool kept = s.keep_(i);
      const std::int64_t before = static_cast<std::int64_t>(c);
      if (kept && before < s.capacity_) s.move_(i, before);
      if (!kept && s.rejected_from_ != nullptr) s.move_(i, *s.rejected_from_ + (i - before));
      if (i == s.n_ - 1 && s.total_out_ != nullptr) *s.total_out_ = before + (kept ? 1 : 0);
      return *this;
    }
  };
  using iterator_category = std::random_access_iterator_tag;
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = proxy;

  STREAMSCAN_HOST_DEVICE scatter_output(Keep keep, Move move, std::int64_t n, std::int64_t capacity,
                                        const std::int64_t* rejected_from, std::int64_t* total_out,
                                        std::int64_t base = 0)
      : keep_(keep), move_(move), n_(n), capacity_(capacity), rejected_from_(rejected_from), total_out_(total_out),
        base_(base) {}

  STREAMSCAN_HOST_DEVICE proxy operator[](difference_type k) const { return proxy{this, base_ + k}; }
  STREAMSCAN_HOST_DEVICE proxy operator*() const { return (*this)[0]; }
  STREAMSCAN_HOST_DEVICE scatter_output operator+(difference_type k) const {
    return scatter_output(keep_, move_, n_, capacity_, rejected_from_, total_out_, base_ + k);
  }

 private:
  Keep keep_;
  Move move_;
  std::int64_t n_, capacity_;
  const std::int64_t* rejected_from_;
  std::int64_t* total_out_;
  std::int64_t base_;
};

// Moves: element i's value, its index, or a key and a value together.
template <class InIt, class OutIt>
struct move_value {
  InIt in;
  OutIt out;
  STREAMSCAN_HOST_DEVICE void operator()(std::int64_t i, std::int64_t dest) const { out[dest] = in[i]; }
};
template <class OutIt>
struct move_index {
  OutIt out;
  STREAMSCAN_HOST_DEVICE void operator()(std::int64_t i, std::int64_t dest) const {
    using Index = typename std::iterator_traits<OutIt>::value_type;
    out[dest] = static_cast<Index>(i);
  }
};
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut>
struct move_pair {
  KeyIt keys;
  ValueIt values;
  KeyOut keys_out;
  ValueOut values_out;
  STREAMSCAN_HOST_DEVICE void operator()(std::int64_t i, std::int64_t dest) const {
    keys_out[dest] = keys[i];
    values_out[dest] = values[i];
  }
};

}  // namespace streamscan::detail
