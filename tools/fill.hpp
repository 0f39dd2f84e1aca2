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
  else if constexpr (std::is_same_v<T, float>) return v / 128.0f;
  else return static_cast<T>(v & 0x7f);
}

inline constexpr std::uint64_t bench_seed = 12345;

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}, name, op) for a value type named on the command line
// (int32, float, uint64: sums; vec4i: 4 x int32 with a user-written sum).
template <class F>
void visit_bench_type(const std::string& name, F&& f) {
  if (name == "int32") f(type_tag<std::int32_t>{}, "int32", streamscan::plus{});
  else if (name == "float") f(type_tag<float>{}, "float", streamscan::plus{});
  else if (name == "uint64") f(type_tag<std::uint64_t>{}, "uint64", streamscan::plus{});
  else if (name == "vec4i") f(type_tag<streamscan_test::vec4i>{}, "vec4i", streamscan_test::vec4i_plus{});
  else throw std::invalid_argument("unknown value type '" + name + "'");
}

}  // namespace streamscan_tool
