// streamscan/detail/select_sources.hpp - what the select kernels read and
// write for one element. Every compaction, partition and split is "classify
// each element, then move it somewhere"; a source says how, so that one tile
// agent (and each of [Compaction]'s kernels) serves them all. Host and device
// callable; no CUDA.
//
// A source has
//   vector_width          elements per vector load (1, or 16 bytes' worth for raw pointers)
//   load_vector(i, v)     elements [i, i + vector_width) (i a multiple of the width)
//   item load(i)          what the kernel reads of element i and keeps in registers
//   bool keep(item)       whether element i is selected
//   item load_kept(i)     re-reads a selected element (multi_level's scatter)
//   bool load_keep(i)     only the classification (counting passes)
//   void move(item, i, d) writes element i, read as `item`, to output slot d
//   moves_index           whether move uses i (else kernels need not keep it)
// and optionally
//   bool test(item)       keep() before `invert` (keep_bits then applies
//                         `invert` once per vector)
// and, where an item holds more than move writes:
//   staged, stage(item)   what a kernel keeps of an item between deciding its
//   move_staged(s, i, d)  slot and moving it (move_staged(stage(x), i, d)
//                         does what move(x, i, d) does)
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>

#include "../config.hpp"

namespace streamscan::detail {

template <class It>
using value_of = typename std::iterator_traits<It>::value_type;

// Raw pointers to values of 1, 2, 4 or 8 bytes are read 16 bytes at a time.
template <class It>
constexpr int vector_width_of() {
  if constexpr (std::is_pointer_v<It>) {
    constexpr std::size_t b = sizeof(value_of<It>);
    if constexpr (b == 1 || b == 2 || b == 4 || b == 8) return static_cast<int>(16 / b);
  }
  return 1;
}

// Reads p[i, i + W): one load of W values where p is aligned to their size
// (i is a multiple of W, so then p + i is too; at most 16 bytes), else W loads.
template <int W, class It, class T>
STREAMSCAN_HOST_DEVICE void load_values(It p, std::int64_t i, T (&v)[W]) {
  constexpr std::size_t bytes = W * sizeof(T);
  if constexpr (W > 1 && std::is_pointer_v<It> && (bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16)) {
    struct alignas(bytes) pack {
      T x[W];
    };
    if (reinterpret_cast<std::uintptr_t>(p) % bytes == 0) {
      const pack raw = *reinterpret_cast<const pack*>(p + i);
      for (int c = 0; c < W; ++c) v[c] = raw.x[c];
      return;
    }
  }
  for (int c = 0; c < W; ++c) v[c] = p[i + c];
}

// Elements whose pred(in[i]) differs from `invert`; moves the value.
template <class InIt, class OutIt, class Pred>
struct predicate_source {
  using item = value_of<InIt>;
  static constexpr int vector_width = vector_width_of<InIt>();
  static constexpr bool moves_index = false;
  InIt in;
  OutIt out;
  Pred pred;
  bool invert;
  STREAMSCAN_HOST_DEVICE void load_vector(std::int64_t i, item (&v)[vector_width]) const { load_values(in, i, v); }
  STREAMSCAN_HOST_DEVICE item load(std::int64_t i) const { return in[i]; }
  STREAMSCAN_HOST_DEVICE bool test(const item& v) const { return static_cast<bool>(pred(v)); }
  STREAMSCAN_HOST_DEVICE bool keep(const item& v) const { return test(v) != invert; }
  STREAMSCAN_HOST_DEVICE item load_kept(std::int64_t i) const { return in[i]; }
  STREAMSCAN_HOST_DEVICE bool load_keep(std::int64_t i) const { return keep(in[i]); }
  STREAMSCAN_HOST_DEVICE void move(const item& v, std::int64_t, std::int64_t d) const { out[d] = v; }
};

// Elements whose flags[i] differs from `invert`; moves in[i]. With
// `LoadRejected` false (compaction) a rejected element's value is never read:
// at low selection rates whole 32-byte sectors of the input are skipped.
template <class InIt, class FlagIt, class OutIt, bool LoadRejected>
struct flagged_source {
  struct item {
    bool flag;
    value_of<InIt> value;
  };
  static constexpr int vector_width = vector_width_of<InIt>();
  static constexpr bool moves_index = false;
  InIt in;
  FlagIt flags;
  OutIt out;
  bool invert;
  // W flags (one word for aligned byte flags), then the W values if any is needed.
  STREAMSCAN_HOST_DEVICE void load_vector(std::int64_t i, item (&v)[vector_width]) const {
    constexpr int W = vector_width;
    value_of<FlagIt> f[W];
    load_values(flags, i, f);
    bool any = LoadRejected;
    for (int c = 0; c < W; ++c) {
      v[c].flag = static_cast<bool>(f[c]) != invert;
      any = any || v[c].flag;
    }
    if (any) {
      value_of<InIt> x[W];
      load_values(in, i, x);
      for (int c = 0; c < W; ++c) v[c].value = x[c];
    }
  }
  STREAMSCAN_HOST_DEVICE item load(std::int64_t i) const {
    item it{static_cast<bool>(flags[i]) != invert, {}};
    if (LoadRejected || it.flag) it.value = in[i];
    return it;
  }
  STREAMSCAN_HOST_DEVICE bool keep(const item& it) const { return it.flag; }
  STREAMSCAN_HOST_DEVICE item load_kept(std::int64_t i) const { return {true, in[i]}; }
  STREAMSCAN_HOST_DEVICE bool load_keep(std::int64_t i) const { return static_cast<bool>(flags[i]) != invert; }
  STREAMSCAN_HOST_DEVICE void move(const item& it, std::int64_t, std::int64_t d) const { out[d] = it.value; }
  // Once its slot is known, only the value matters.
  using staged = value_of<InIt>;
  STREAMSCAN_HOST_DEVICE static staged stage(const item& it) { return it.value; }
  STREAMSCAN_HOST_DEVICE void move_staged(const staged& v, std::int64_t, std::int64_t d) const { out[d] = v; }
};

// Elements classified by a stencil alone: only the flags are read (16 at a
// time for byte flags); `invert` selects the false ones. Moves nothing (the
// counting passes of split).
template <class FlagIt>
struct flag_source {
  using item = value_of<FlagIt>;
  static constexpr int vector_width = vector_width_of<FlagIt>();
  static constexpr bool moves_index = false;
  FlagIt flags;
  bool invert;
  STREAMSCAN_HOST_DEVICE void load_vector(std::int64_t i, item (&v)[vector_width]) const { load_values(flags, i, v); }
  STREAMSCAN_HOST_DEVICE item load(std::int64_t i) const { return flags[i]; }
  STREAMSCAN_HOST_DEVICE bool test(const item& f) const { return static_cast<bool>(f); }
  STREAMSCAN_HOST_DEVICE bool keep(const item& f) const { return test(f) != invert; }
  STREAMSCAN_HOST_DEVICE item load_kept(std::int64_t i) const { return flags[i]; }
  STREAMSCAN_HOST_DEVICE bool load_keep(std::int64_t i) const { return keep(flags[i]); }
  STREAMSCAN_HOST_DEVICE void move(const item&, std::int64_t, std::int64_t) const {}
};

// The indices i whose flags[i] is true ([Compaction]'s output): a flag source
// whose move writes the index.
template <class FlagIt, class OutIt>
struct index_source : flag_source<FlagIt> {
  using item = typename flag_source<FlagIt>::item;
  static constexpr bool moves_index = true;
  OutIt out;
  STREAMSCAN_HOST_DEVICE item load_kept(std::int64_t) const { return item{}; }  // the index is all it moves
  STREAMSCAN_HOST_DEVICE void move(const item&, std::int64_t i, std::int64_t d) const {
    out[d] = static_cast<value_of<OutIt>>(i);
  }
};

// Key-value pairs: pred on the key decides, both move.
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
struct pair_source {
  struct item {
    value_of<KeyIt> key;
    value_of<ValueIt> value;
  };
  static constexpr int vector_width = 1;
  static constexpr bool moves_index = false;
  KeyIt keys;
  ValueIt values;
  KeyOut keys_out;
  ValueOut values_out;
  Pred pred;
  STREAMSCAN_HOST_DEVICE void load_vector(std::int64_t i, item (&v)[1]) const { v[0] = load(i); }
  STREAMSCAN_HOST_DEVICE item load(std::int64_t i) const { return {keys[i], values[i]}; }
  STREAMSCAN_HOST_DEVICE bool keep(const item& it) const { return static_cast<bool>(pred(it.key)); }
  STREAMSCAN_HOST_DEVICE item load_kept(std::int64_t i) const { return load(i); }
  STREAMSCAN_HOST_DEVICE bool load_keep(std::int64_t i) const { return static_cast<bool>(pred(keys[i])); }
  STREAMSCAN_HOST_DEVICE void move(const item& it, std::int64_t, std::int64_t d) const {
    keys_out[d] = it.key;
    values_out[d] = it.value;
  }
};


template <class Source, class = void>
struct has_test : std::false_type {};
template <class Source>
struct has_test<Source, std::void_t<decltype(std::declval<const Source&>().test(
                            std::declval<const typename Source::item&>()))>> : std::true_type {};

// keep(x) == (tested(src, x) != inverts(src)). Kernels that decide a vector
// at once test each element and apply `invert` to the bits together: a
// compare per element doubled the classification's instructions.
template <class Source>
STREAMSCAN_HOST_DEVICE bool tested(const Source& src, const typename Source::item& x) {
  if constexpr (has_test<Source>::value) return src.test(x);
  else return src.keep(x);
}
template <class Source>
STREAMSCAN_HOST_DEVICE bool inverts(const Source& src) {
  if constexpr (has_test<Source>::value) return src.invert;
  else return false;
}

// Bit c: whether v[c] is selected.
template <class Source, int W>
STREAMSCAN_HOST_DEVICE unsigned keep_bits(const Source& src, const typename Source::item (&v)[W]) {
  static_assert(W <= 16, "a vector of at most 16 elements");
  unsigned bits = 0;
  for (int c = 0; c < W; ++c) bits |= static_cast<unsigned>(tested(src, v[c])) << c;
  return inverts(src) ? bits ^ ((1u << W) - 1u) : bits;
}

// split_and_segment: (trues, falses) counted together by one segmented scan.
template <class C>
struct true_false_counts {
  C trues, falses;
};
struct add_counts {
  template <class C>
  STREAMSCAN_HOST_DEVICE true_false_counts<C> operator()(const true_false_counts<C>& a,
                                                         const true_false_counts<C>& b) const {
    return {a.trues + b.trues, a.falses + b.falses};
  }
};
// Flag i -> (1, 0) if true, (0, 1) if false.
template <class FlagIt, class C>
class true_false_input {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = true_false_counts<C>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;
  STREAMSCAN_HOST_DEVICE explicit true_false_input(FlagIt f) : f_(f) {}
  STREAMSCAN_HOST_DEVICE value_type operator[](difference_type i) const {
    const bool t = static_cast<bool>(f_[i]);
    return {C(t ? 1 : 0), C(t ? 0 : 1)};
  }
  STREAMSCAN_HOST_DEVICE value_type operator*() const { return (*this)[0]; }
  STREAMSCAN_HOST_DEVICE true_false_input operator+(difference_type i) const { return true_false_input(f_ + i); }

 private:
  FlagIt f_;
};

// Where a kernel puts what it classified.
enum class placement {
  compact,           // selected to [0, capacity); rejected nowhere
  reversed_rejects,  // selected from 0 in order, rejected from n-1 down in input order (CUB's partition)
  rejects_after,     // selected from 0, rejected from the selected total (read from the device), both in order
};

}  // namespace streamscan::detail
