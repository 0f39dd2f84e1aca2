// streamscan/detail/sort_validate.hpp - the argument checks of radix_sort_keys
// and radix_sort_pairs, shared by every back end (no CUDA), so that both
// refuse the same calls with the same messages.
#pragma once

#include <cstdint>
#include <string>

#include "../sort.hpp"
#include "../status.hpp"
#include "validate.hpp"

namespace streamscan::detail {

// n >= 0; the key bits 0 <= begin_bit < end_bit <= the key's bits (end_bit < 0
// means all of them); a known strategy and order; and, when there is work (n >
// 0, not a size query: `query`), no null keys_in / keys_out, nor values_in /
// values_out when `pairs`. On success begin_bit and end_bit receive the
// resolved bit range; on failure they are left alone.
template <class K>
status validate_sort_args(const char* fn, const void* keys_in, const void* keys_out, const void* values_in,
                          const void* values_out, bool pairs, std::int64_t n, bool query, const sort_options& opt,
                          int& begin_bit, int& end_bit) {
  static_assert(has_radix_order<K>::value,
                "streamscan radix sort: this key type has no radix order (radix_key_traits covers the integers, "
                "float and double); sort it with streamscan quicksort and a comparator instead");
  constexpr int bits = radix_key_traits<K>::bits;
  if (n < 0) return invalid_argument(fn, "argument 'n' is negative (" + std::to_string(n) + ")");
  if (opt.strategy != sort_strategy::automatic && opt.strategy != sort_strategy::onesweep &&
      opt.strategy != sort_strategy::split)
    return invalid_argument(fn, "argument 'options.strategy' is not a sort strategy (" +
                                    std::to_string(static_cast<int>(opt.strategy)) + ")");
  if (opt.order != sort_order::ascending && opt.order != sort_order::descending)
    return invalid_argument(fn, "argument 'options.order' is neither ascending nor descending (" +
                                    std::to_string(static_cast<int>(opt.order)) + ")");
  const int begin = opt.begin_bit, end = opt.end_bit < 0 ? bits : opt.end_bit;
  if (begin < 0) return invalid_argument(fn, "argument 'options.begin_bit' is negative (" + std::to_string(begin) + ")");
  if (end > bits)
    return invalid_argument(fn, "argument 'options.end_bit' is " + std::to_string(end) + ", past the " +
                                    std::to_string(bits) + " bits of the key");
  if (begin >= end)
    return invalid_argument(fn, "argument 'options.begin_bit' (" + std::to_string(begin) +
                                    ") is not below 'options.end_bit' (" + std::to_string(end) +
                                    "): no key bits to sort by");
  if (!query && n > 0) {
    const auto null = [&](const char* name) {
      return invalid_argument(fn, std::string("argument '") + name + "' is a null pointer while n = " + std::to_string(n));
    };
    if (keys_in == nullptr) return null("keys_in");
    if (keys_out == nullptr) return null("keys_out");
    if (pairs && values_in == nullptr) return null("values_in");
    if (pairs && values_out == nullptr) return null("values_out");
  }
  begin_bit = begin;
  end_bit = end;
  return status::ok();
}

// The buffers of one radix sort (when there is work): keys_out may be
// keys_in itself in the pointer forms (in place) but not overlap it in part;
// a double_buffer's two halves (keys_in / keys_out here) share no byte; keys
// and values share no byte. The same for values.
template <class K, class V>
status validate_sort_buffers(const char* fn, const K* keys_in, const K* keys_out, const V* values_in,
                             const V* values_out, bool pairs, std::int64_t n, bool double_buffered) {
  if (n <= 0) return status::ok();
  const auto overlap = [n](const void* a, std::size_t a_size, const void* b, std::size_t b_size) {
    const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    return x < y + static_cast<std::uintptr_t>(n) * b_size && y < x + static_cast<std::uintptr_t>(n) * a_size;
  };
  const auto halves = [&](const void* in, const void* out, std::size_t size, const char* name, const char* in_name,
                          const char* out_name) {
    if (!overlap(in, size, out, size) || (!double_buffered && in == out)) return status::ok();
    return invalid_argument(fn, double_buffered ? std::string("argument '") + name + "' (double_buffer): its two buffers overlap"
                                               : std::string("arguments '") + in_name + "' and '" + out_name +
                                                     "' overlap in part (in place needs the same pointer)");
  };
  if (status s = halves(keys_in, keys_out, sizeof(K), "keys", "keys_in", "keys_out"); !s) return s;
  if (!pairs) return status::ok();
  if (status s = halves(values_in, values_out, sizeof(V), "values", "values_in", "values_out"); !s) return s;
  for (const void* k : {static_cast<const void*>(keys_in), static_cast<const void*>(keys_out)})
    for (const void* v : {static_cast<const void*>(values_in), static_cast<const void*>(values_out)})
      if (overlap(k, sizeof(K), v, sizeof(V))) return invalid_argument(fn, "the keys and the values overlap");
  return status::ok();
}

}  // namespace streamscan::detail
