// streamscan/sort.hpp - options and key order of the sorts, shared by every
// back end. No CUDA.
//
// Radix sort (radix_sort_keys, radix_sort_pairs) is stable and orders keys
// by their bits in [begin_bit, end_bit) after the order-preserving mapping of
// radix_key_traits: unsigned integers as they are, signed integers with the
// sign bit flipped, floating point by IEEE-754 total order:
//   -NaN (sign bit set) < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN,
// so -0.0 sorts before +0.0 and NaNs sit at the ends (by their payload bits).
// Descending order reverses the key order and keeps equal keys in input order.
//
// quicksort ([ScanPrimitives] 4.1) compares with a strict weak order (`<` by
// default) and is stable too: every split it makes is.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "config.hpp"

namespace streamscan {

enum class sort_strategy {
  automatic,  // the back end picks (the GPU: onesweep; the CPU: its LSD radix sort)
  onesweep,   // [Onesweep]: 8-bit digits, one pass over the keys per digit; the digit
              // histograms of every pass come from one pass up front, and each tile's
              // digit offsets from a decoupled look-back over the tiles before it
  split,      // [ScanPrimitives] 4 (global radix): one `split` per key bit
};

inline const char* to_string(sort_strategy s) noexcept {
  switch (s) {
    case sort_strategy::automatic: return "automatic";
    case sort_strategy::onesweep: return "onesweep";
    case sort_strategy::split: return "split";
  }
  return "unknown";
}

// The strategy of that name; false when there is none.
inline bool sort_strategy_from_string(const char* name, sort_strategy& out) noexcept {
  for (const sort_strategy s : {sort_strategy::automatic, sort_strategy::onesweep, sort_strategy::split}) {
    if (name != nullptr && std::strcmp(name, to_string(s)) == 0) {
      out = s;
      return true;
    }
  }
  return false;
}

enum class sort_order { ascending, descending };

struct sort_options {
  sort_strategy strategy = sort_strategy::automatic;
  sort_order order = sort_order::ascending;
  // The key bits that decide the order, [begin_bit, end_bit) of the mapped
  // key (radix_key_traits); end_bit < 0 means all of them. 0 <= begin_bit <
  // end_bit <= the key's bits, else the call is an invalid_argument.
  int begin_bit = 0;
  int end_bit = -1;
};

// A pair of buffers of n elements each; `selector` names the one holding the
// data. The double-buffer sorts leave the sorted data in current() (either
// buffer) and overwrite both: no temp copy of the keys or values is needed.
template <class T>
struct double_buffer {
  T* buffers[2] = {nullptr, nullptr};
  int selector = 0;

  double_buffer() = default;
  double_buffer(T* current, T* alternate) : buffers{current, alternate} {}
  T* current() const { return buffers[selector & 1]; }
  T* alternate() const { return buffers[(selector & 1) ^ 1]; }
};

// The order-preserving map of a key to unsigned bits: a < b (in the order
// above) exactly when to_bits(a) < to_bits(b) as unsigned integers.
template <class K, class Enable = void>
struct radix_key_traits;  // no radix order for this type: use quicksort

template <class K>
struct radix_key_traits<K, std::enable_if_t<std::is_integral_v<K> && !std::is_same_v<K, bool>>> {
  using bits_type = std::make_unsigned_t<K>;
  static constexpr int bits = 8 * sizeof(K);
  static constexpr bits_type flip = std::is_signed_v<K> ? bits_type(bits_type(1) << (bits - 1)) : bits_type(0);
  STREAMSCAN_HOST_DEVICE static bits_type to_bits(K k) { return static_cast<bits_type>(static_cast<bits_type>(k) ^ flip); }
  STREAMSCAN_HOST_DEVICE static K from_bits(bits_type b) { return static_cast<K>(static_cast<bits_type>(b ^ flip)); }
};

namespace detail {
template <class F, class U>
struct float_radix_traits {
  using bits_type = U;
  static constexpr int bits = 8 * sizeof(F);
  static constexpr U sign = U(1) << (bits - 1);
  STREAMSCAN_HOST_DEVICE static U to_bits(F f) {
    U u;
    std::memcpy(&u, &f, sizeof(U));
    return (u & sign) ? U(~u) : U(u | sign);
  }
  STREAMSCAN_HOST_DEVICE static F from_bits(U u) {
    u = (u & sign) ? U(u & ~sign) : U(~u);
    F f;
    std::memcpy(&f, &u, sizeof(U));
    return f;
  }
};
}  // namespace detail

template <>
struct radix_key_traits<float> : detail::float_radix_traits<float, std::uint32_t> {};
template <>
struct radix_key_traits<double> : detail::float_radix_traits<double, std::uint64_t> {};

template <class K, class = void>
struct has_radix_order : std::false_type {};
template <class K>
struct has_radix_order<K, std::void_t<typename radix_key_traits<K>::bits_type>> : std::true_type {};

// What a sort with these options orders by: the mapped key, inverted for
// descending order, shifted right by begin_bit and cut to end_bit - begin_bit
// bits. Equal sort_bits -> equal rank; the sorts are stable.
template <class K>
STREAMSCAN_HOST_DEVICE typename radix_key_traits<K>::bits_type sort_bits(K key, int begin_bit, int end_bit,
                                                                          bool descending) {
  using U = typename radix_key_traits<K>::bits_type;
  U u = radix_key_traits<K>::to_bits(key);
  if (descending) u = static_cast<U>(~u);
  u = static_cast<U>(u >> begin_bit);
  const int width = end_bit - begin_bit;
  if (width < radix_key_traits<K>::bits) u = static_cast<U>(u & ((U(1) << width) - 1));
  return u;
}

// The default order of the comparison sort (quicksort).
struct less {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr bool operator()(const T& a, const T& b) const {
    return a < b;
  }
};

// quicksort's options.
enum class pivot_rule {
  first,   // [ScanPrimitives] 4.1: the first element of each segment (a sorted or
           // reversed segment then splits off one element per two passes)
  middle,  // the element in the middle of each segment, found by distributing the
           // segment bounds (4 segmented scans a round instead of 3); splits
           // sorted and reversed runs in half
};

struct quicksort_options {
  pivot_rule pivot = pivot_rule::middle;
};

}  // namespace streamscan
