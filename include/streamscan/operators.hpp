// streamscan/operators.hpp - the common scan operators.
//
// Any associative binary functor works with every algorithm; commutativity is
// never assumed (op(a, b) always has a to the left of b in sequence order).
// These are provided so that host and device code share one definition.
#pragma once

#include <type_traits>

#include "config.hpp"

namespace streamscan {

struct plus {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

struct multiplies {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a * b);
  }
};

// Bitwise operators, for integer types.
struct bit_and {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a & b);
  }
};

struct bit_or {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a | b);
  }
};

struct bit_xor {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a ^ b);
  }
};

struct maximum {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

struct minimum {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

// Whether op(op(a, b), c) and op(a, op(b, c)) are the same bits for every
// a, b, c of T. Then a segmented scan's look-back may fold a tile's
// predecessors in any grouping (trees, on its way back) and results stay
// bit-for-bit deterministic; plain scans group them the same fixed way for
// every operator and do not need it. True for integer sums and products
// (wrapping), bitwise operators, minima and maxima; false by default
// (floating-point sums round differently when grouped differently).
// Specialise it for your own operators where it holds.
template <class Op, class T>
struct is_exactly_associative : std::false_type {};
template <class T>
struct is_exactly_associative<plus, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_exactly_associative<multiplies, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_exactly_associative<bit_and, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_exactly_associative<bit_or, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_exactly_associative<bit_xor, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_exactly_associative<maximum, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_exactly_associative<minimum, T> : std::bool_constant<std::is_integral_v<T>> {};

}  // namespace streamscan
