// The sorts' oracle: std::stable_sort on the host over the test's own
// order-preserving map of the keys (not the library's radix_key_traits); no
// test framework, so that `streamscan verify` uses it as well.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <streamscan/sort.hpp>

namespace streamscan_test {

// The test's own order-preserving map to unsigned bits (low 8*sizeof(K) bits
// used): integers offset by their minimum; floating point by the signed-int
// trick (negative values have their magnitude bits flipped), giving
// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
template <class K>
std::uint64_t key_order_bits(K k) {
  if constexpr (std::is_floating_point_v<K>) {
    using S = std::conditional_t<sizeof(K) == 4, std::int32_t, std::int64_t>;
    S s;
    std::memcpy(&s, &k, sizeof s);
    if (s < 0) s ^= std::numeric_limits<S>::max();
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(s)) -
           static_cast<std::uint64_t>(static_cast<std::int64_t>(std::numeric_limits<S>::min()));
  } else if constexpr (std::is_signed_v<K>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(k)) -
           static_cast<std::uint64_t>(static_cast<std::int64_t>(std::numeric_limits<K>::min()));
  } else {
    return static_cast<std::uint64_t>(k);
  }
}

template <class K>
constexpr int key_bits = 8 * static_cast<int>(sizeof(K));

// Bits [begin, end) of the mapped key.
template <class K>
std::uint64_t key_field(K k, int begin, int end) {
  const int width = end - begin;
  const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return (key_order_bits(k) >> begin) & mask;
}

// The stable sorting permutation: element i of the result is keys[perm[i]].
template <class K>
std::vector<std::int64_t> oracle_permutation(const std::vector<K>& keys, const streamscan::sort_options& opt) {
  const int begin = opt.begin_bit, end = opt.end_bit < 0 ? key_bits<K> : opt.end_bit;
  const bool descending = opt.order == streamscan::sort_order::descending;
  std::vector<std::pair<std::uint64_t, std::int64_t>> v(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) v[i] = {key_field(keys[i], begin, end), static_cast<std::int64_t>(i)};
  std::stable_sort(v.begin(), v.end(), [descending](const auto& a, const auto& b) {
    return descending ? b.first < a.first : a.first < b.first;
  });
  std::vector<std::int64_t> perm(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) perm[i] = v[i].second;
  return perm;
}

template <class T>
std::vector<T> permuted(const std::vector<T>& v, const std::vector<std::int64_t>& perm) {
  std::vector<T> out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = v[static_cast<std::size_t>(perm[i])];
  return out;
}

template <class T>
std::string hex_bits(const T& x) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &x, sizeof(T));
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (std::size_t i = sizeof(T); i-- > 0;) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  return s;
}

}  // namespace streamscan_test
