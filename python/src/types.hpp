// python/src/types.hpp - dtype codes to C++ types, the operators by code, and
// which combinations are compiled in (one rule each, read by the dispatch and
// by the implementations).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <streamscan/config.hpp>
#include <streamscan/operators.hpp>

#include "calls.hpp"


namespace streamscan::python {

// IEEE binary16 and bfloat16 as stored; read as float (inputs only: their
// scans accumulate in float32 or wider).
STREAMSCAN_HOST_DEVICE inline float float_from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

struct float16 {
  std::uint16_t bits;
  STREAMSCAN_HOST_DEVICE operator float() const {
    const std::uint32_t sign = (bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    const std::uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0x1f) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
    if (exponent == 0) {  // zero and subnormals: mantissa * 2^-24
      const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
      return sign ? -magnitude : magnitude;
    }
    return float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
};

struct bfloat16 {
  std::uint16_t bits;
  STREAMSCAN_HOST_DEVICE operator float() const { return float_from_bits(static_cast<std::uint32_t>(bits) << 16); }
};

template <class T>
struct tag {
  using type = T;
};

// Calls f(tag<T>{}) with the C++ type of a dtype code.
template <class F>
decltype(auto) visit_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::bool_: return f(tag<bool>{});
    case dtype::int8: return f(tag<std::int8_t>{});
    case dtype::int16: return f(tag<std::int16_t>{});
    case dtype::int32: return f(tag<std::int32_t>{});
    case dtype::int64: return f(tag<std::int64_t>{});
    case dtype::uint8: return f(tag<std::uint8_t>{});
    case dtype::uint16: return f(tag<std::uint16_t>{});
    case dtype::uint32: return f(tag<std::uint32_t>{});
    case dtype::uint64: return f(tag<std::uint64_t>{});
    case dtype::float16: return f(tag<float16>{});
    case dtype::bfloat16: return f(tag<bfloat16>{});
    case dtype::float32: return f(tag<float>{});
    case dtype::float64: break;
  }
  return f(tag<double>{});
}

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// Integers other than bool.
template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The arithmetic types that scans accumulate in and sorts order.
template <class T>
inline constexpr bool is_number_v = is_integer_v<T> || std::is_floating_point_v<T>;

template <class F>
decltype(auto) visit_op(op_code op, F&& f) {
  switch (op) {
    case op_code::add: return f(streamscan::plus{});
    case op_code::mul: return f(streamscan::multiplies{});
    case op_code::max: return f(streamscan::maximum{});
    case op_code::min: return f(streamscan::minimum{});
    case op_code::bit_and: return f(streamscan::bit_and{});
    case op_code::bit_or: return f(streamscan::bit_or{});
    case op_code::bit_xor: break;
  }
  return f(streamscan::bit_xor{});
}

template <class Op>
inline constexpr bool is_bitwise_v = std::is_same_v<Op, streamscan::bit_and> || std::is_same_v<Op, streamscan::bit_or> ||
                                     std::is_same_v<Op, streamscan::bit_xor>;

// ---- what is compiled in ------------------------------------------------------
// Plain scans: every number type into itself with every operator that fits it
// (bitwise ones for integers only); float16 and bfloat16 into float32 (not
// bitwise); and the usual widening sums (counts of bools and small integers
// into 32 or 64 bits, float32 into float64). Segmented scans: numbers into
// themselves with add, mul, max and min. Any other pair is run by the Python
// side on a cast copy of the input.
template <class A, class Op>
inline constexpr bool op_fits_v = is_bitwise_v<Op> ? is_integer_v<A> : is_number_v<A>;

template <class In, class A>
inline constexpr bool widening_sum_v =
    (std::is_same_v<A, std::int64_t> && (std::is_same_v<In, bool> || std::is_same_v<In, std::int8_t> ||
                                         std::is_same_v<In, std::int16_t> || std::is_same_v<In, std::int32_t> ||
                                         std::is_same_v<In, std::uint8_t>)) ||
    (std::is_same_v<A, std::int32_t> && (std::is_same_v<In, bool> || std::is_same_v<In, std::int8_t> ||
                                         std::is_same_v<In, std::int16_t> || std::is_same_v<In, std::uint8_t>)) ||
    (std::is_same_v<A, std::uint64_t> && (std::is_same_v<In, std::uint8_t> || std::is_same_v<In, std::uint16_t> ||
                                          std::is_same_v<In, std::uint32_t>)) ||
    (std::is_same_v<A, double> && std::is_same_v<In, float>);

template <class In, class A, class Op>
inline constexpr bool plain_scan_v =
    op_fits_v<A, Op> && ((std::is_same_v<In, A> && is_number_v<In>) ||
                         (is_half_v<In> && std::is_same_v<A, float> && !is_bitwise_v<Op>) ||
                         (std::is_same_v<Op, streamscan::plus> && widening_sum_v<In, A>));

template <class In, class A, class Op>
inline constexpr bool segmented_scan_v = std::is_same_v<In, A> && is_number_v<In> && !is_bitwise_v<Op>;

// Compaction moves elements as unsigned words of their size; compare needs
// the type itself.
template <class T>
inline constexpr bool select_word_v = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
                                      std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

template <std::size_t Size>
using word_t = std::conditional_t<
    Size == 1, std::uint8_t,
    std::conditional_t<Size == 2, std::uint16_t, std::conditional_t<Size == 4, std::uint32_t, std::uint64_t>>>;

// Radix sorts: integer and float32/64 keys, keys only or with 4- or 8-byte values.
template <class K>
inline constexpr bool sort_key_v = is_number_v<K>;

inline constexpr bool sort_value_size_ok(int size) { return size == 0 || size == 4 || size == 8; }

// SpMV and tridiagonal solves: float32 and float64 values, int32 or int64 indices.
template <class V>
inline constexpr bool real_v = std::is_floating_point_v<V>;

template <class I>
inline constexpr bool index_v = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

template <class T>
T scalar_as(const scalar& s) {
  T v;
  std::memcpy(&v, s.bytes, sizeof(T));
  return v;
}

template <class T>
T* as_ptr(std::uintptr_t p) {
  return reinterpret_cast<T*>(p);
}

}  // namespace streamscan::python
