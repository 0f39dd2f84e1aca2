// The benchmark value types and inputs, identical on the host and the device: small
// pseudo-random values from a hash of the index, so that sums of 2^30 of them
// compare exactly (float: multiples of 1/128 whose running sums stay far
// below 2^24 / 128; integer sums may wrap, identically everywhere).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <streamscan/config.hpp>
#include <streamscan/operators.hpp>

#include "../tests/common/types.hpp"

namespace streamscan_tool {

template <class T>
STREAMSCAN_HOST_DEVICE T bench_value(std::int64_t i, std::uint64_t seed) {
  std::uint64_t h = static_cast<std::uint64_t>(i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  const int v = static_cast<int>(h >> 56) - 128;
  if constexpr (std::is_same_v<T, streamscan_test::vec4i>) return streamscan_test::vec4i{v, v / 2, -v, 1};
  else if constexpr (std::is_same_v<T, streamscan_test::mat2u>)
    return streamscan_test::mat2u{static_cast<std::uint32_t>(v & 3), 1u, 1u, static_cast<std::uint32_t>(v & 1)};
  else if constexpr (std::is_same_v<T, float>) return v / 128.0f;
  else return static_cast<T>(v & 0x7f);
}

inline constexpr std::uint64_t bench_seed = 12345;

template <class T>
struct type_tag {
  using type = T;
};

// a + b written by a user, as a functor the library knows nothing about: its
// look-back folds strictly left to right, as for any operator not declared
// exactly associative.
struct user_plus {
  template <class T>
  STREAMSCAN_HOST_DEVICE T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

// The same sum, declared exactly associative for integers (the trait below,
// as the README shows a user doing it): its look-back folds as trees.
struct user_plus_exact : user_plus {};

// Calls f(type_tag<T>{}, name, op) for a value type of the tuner: one per value
// size and operator class (int32, uint64: sums; vec4i: 4 x int32 with a
// user-written sum). False for other names.
template <class F>
bool visit_tune_type(const std::string& name, F&& f) {
  if (name == "int32") f(type_tag<std::int32_t>{}, "int32", streamscan::plus{});
  else if (name == "uint64") f(type_tag<std::uint64_t>{}, "uint64", streamscan::plus{});
  else if (name == "vec4i") f(type_tag<streamscan_test::vec4i>{}, "vec4i", streamscan_test::vec4i_plus{});
  else return false;
  return true;
}

// The bench's value types that are not the tuner's: float, double, int64 sums;
// int32 summed by user_plus and user_plus_exact; mat2u, 2x2 uint32 matrices
// multiplied (16 bytes, non-commutative). False for other names.
template <class F>
bool visit_more_bench_type(const std::string& name, F&& f) {
  if (name == "float") f(type_tag<float>{}, "float", streamscan::plus{});
  else if (name == "double") f(type_tag<double>{}, "double", streamscan::plus{});
  else if (name == "int64") f(type_tag<std::int64_t>{}, "int64", streamscan::plus{});
  else if (name == "int32_user") f(type_tag<std::int32_t>{}, "int32_user", user_plus{});
  else if (name == "int32_user_exact") f(type_tag<std::int32_t>{}, "int32_user_exact", user_plus_exact{});
  else if (name == "mat2u") f(type_tag<streamscan_test::mat2u>{}, "mat2u", streamscan_test::mat2u_product{});
  else return false;
  return true;
}

// Any value type named on the bench's command line (cli.cpp's bench_types()).
template <class F>
void visit_bench_type(const std::string& name, F&& f) {
  if (!visit_tune_type(name, f) && !visit_more_bench_type(name, f))
    throw std::invalid_argument("unknown value type '" + name + "'");
}

}  // namespace streamscan_tool

template <class T>
struct streamscan::is_exactly_associative<streamscan_tool::user_plus_exact, T>
    : std::bool_constant<std::is_integral_v<T>> {};
