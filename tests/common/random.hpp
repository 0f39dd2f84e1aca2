// Fresh random inputs every run, from one logged seed.
//
// The seed comes from STREAMSCAN_TEST_SEED when set (to replay a failure),
// otherwise from std::random_device; it is printed once at start and in every
// failure message.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "types.hpp"

namespace streamscan_test {

inline std::uint64_t global_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const char* s = std::getenv("STREAMSCAN_TEST_SEED")) return std::strtoull(s, nullptr, 0);
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}

// STREAMSCAN_TEST_MAX_N caps the test bodies' sizes (set when they run under
// compute-sanitizer); without it there is no cap.
inline std::int64_t test_size_cap() {
  const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N");
  return cap ? std::strtoll(cap, nullptr, 10) : INT64_MAX;
}
inline std::vector<std::int64_t> capped(std::vector<std::int64_t> sizes) {
  for (auto& n : sizes) n = std::min(n, test_size_cap());
  return sizes;
}

// A generator per test, so that tests stay independent of each other's order.
inline std::mt19937_64 make_rng(const std::string& test_name) {
  return std::mt19937_64(global_seed() ^ std::hash<std::string>{}(test_name));
}

// Value ranges keep integer sums of millions of elements away from signed
// overflow (undefined behaviour in the oracle as well as in the kernel).
template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return std::uniform_real_distribution<T>(T(-1), T(1))(rng);
  } else if constexpr (std::is_same_v<T, vec4i>) {
    std::uniform_int_distribution<std::int32_t> d(-100, 100);
    return vec4i{d(rng), d(rng), d(rng), d(rng)};
  } else if constexpr (std::is_same_v<T, mat2u>) {
    return mat2u{static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()),
                 static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
  } else if constexpr (std::is_same_v<T, affine3u>) {  // odd slopes, as for affine
    return affine3u{static_cast<std::uint32_t>(rng() | 1), static_cast<std::uint32_t>(rng()), 1u};
  } else if constexpr (std::is_same_v<T, affine<std::uint16_t>> || std::is_same_v<T, affine<std::uint32_t>>) {
    using W = decltype(T::a);  // odd slopes: a product of many never collapses to 0
    return T{static_cast<W>(rng() | 1), static_cast<W>(rng())};
  } else if constexpr (sizeof(T) == 1) {
    return static_cast<T>(rng());  // full range: the accumulator must be wider
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(rng());  // wraps, which is well defined
  } else if constexpr (sizeof(T) == 4) {
    return std::uniform_int_distribution<T>(-100, 100)(rng);
  } else {
    return std::uniform_int_distribution<T>(-1000000000000LL, 1000000000000LL)(rng);
  }
}

template <class T>
std::vector<T> random_vector(std::mt19937_64& rng, std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = random_value<T>(rng);
  return v;
}

template <class T>
T random_init(std::mt19937_64& rng) {
  return random_value<T>(rng);
}

// Every output byte is set to this before a run; unwritten outputs then
// differ from the oracle (the comparison treats the poison as an ordinary value).
inline constexpr unsigned char poison_byte = 0xA7;

template <class T>
void poison(std::vector<T>& v) {
  std::memset(static_cast<void*>(v.data()), poison_byte, v.size() * sizeof(T));
}

}  // namespace streamscan_test
