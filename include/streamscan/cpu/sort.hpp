// streamscan/cpu/sort.hpp - radix sort and quicksort on the CPU. Semantics and
// key order: streamscan/sort.hpp; names and forms as streamscan::cuda, less
// the stream.
//
// radix_sort_keys / radix_sort_pairs run a least-significant-digit radix sort
// over sort_bits(key): one pass over the keys counts every digit's histogram
// up front, then one stable scatter pass per digit ping-pongs the data
// between the output and a temp copy (or the two halves of a double_buffer).
// Digits whose keys all fall into one bucket are skipped. Strategies
// automatic and onesweep use 8-bit digits; split ([ScanPrimitives] 4, the
// global radix sort) uses 1-bit digits: one stable split per key bit. The
// passes run serially.
//
// quicksort is the reference behaviour, not [ScanPrimitives] 4.1's algorithm:
// a stable bottom-up merge sort with `less` (the result the GPU's segmented
// quicksort must match); options.pivot does not change the result here and is
// ignored.
//
// Two-phase forms (temp == nullptr -> temp_bytes) make no allocation and
// return a status; temp needs no alignment. Convenience forms allocate and
// throw streamscan::error. Arguments are checked before anything is written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "../detail/sort_validate.hpp"
#include "../detail/validate.hpp"
#include "../operators.hpp"
#include "../sort.hpp"
#include "../status.hpp"
#include "scratch.hpp"

namespace streamscan::cpu {
namespace detail {

struct sort_no_values {};  // the value type of a keys-only sort

constexpr std::size_t sort_temp_align = 256;

inline unsigned char* sort_align(void* temp) {
  const auto a = reinterpret_cast<std::uintptr_t>(temp);
  return reinterpret_cast<unsigned char*>((a + sort_temp_align - 1) / sort_temp_align * sort_temp_align);
}

// Histogram slots: 256 buckets for each 8-bit digit of the key, which also
// covers the 2 buckets of each bit of the split strategy.
template <class K>
constexpr std::int64_t sort_count_slots() {
  return std::int64_t{256} * ((radix_key_traits<K>::bits + 7) / 8);
}

// Temp layout, from temp rounded up to sort_temp_align: the digit counts, then
// (not for double-buffer forms) a copy of the keys and one of the values.
template <class K, class V>
std::size_t radix_temp_bytes(std::int64_t n, bool double_buffered) {
  std::size_t bytes = sort_temp_align - 1 + streamscan::detail::temp_bytes_for<std::int64_t>(sort_count_slots<K>());
  if (!double_buffered) {
    bytes += streamscan::detail::temp_bytes_for<K>(n);
    if constexpr (!std::is_same_v<V, sort_no_values>) bytes += streamscan::detail::temp_bytes_for<V>(n);
  }
  return bytes;
}

// The buffers of one radix sort call. Pointer forms: keys_in -> keys_out,
// with key_buf / value_buf in temp. Double-buffer forms: kdb / vdb.
template <class K, class V>
struct radix_io {
  const K* keys_in = nullptr;
  K* keys_out = nullptr;
  const V* values_in = nullptr;
  V* values_out = nullptr;
  double_buffer<K>* kdb = nullptr;
  double_buffer<V>* vdb = nullptr;
};

// One array's way through p passes: pass i reads src(i) and writes dst(i).
// Pointer forms end in `out`: even passes write `even`, odd ones `odd`, picked
// so that pass p-1 writes out. When pass 0 would write over its own input
// (in place, p odd), the input is first copied to the temp buffer.
template <class T>
struct sort_route {
  const T* first = nullptr;
  T* even = nullptr;
  T* odd = nullptr;

  static sort_route pointers(const T* in, T* out, T* buf, std::int64_t n, int passes) {
    sort_route r;
    r.even = passes % 2 == 1 ? out : buf;
    r.odd = passes % 2 == 1 ? buf : out;
    r.first = in;
    if (passes > 0 && static_cast<const T*>(r.even) == in) {
      std::copy(in, in + n, buf);
      r.first = buf;
    }
    return r;
  }
  static sort_route buffers(double_buffer<T>& db) {
    sort_route r;
    r.first = db.current();
    r.even = db.alternate();
    r.odd = db.current();
    return r;
  }
  const T* src(int pass) const { return pass == 0 ? first : pass % 2 == 1 ? even : odd; }
  T* dst(int pass) const { return pass % 2 == 0 ? even : odd; }
};

// LSD radix sort with DigitBits-bit digits of sort_bits(key) (see the top of the file).
template <int DigitBits, class K, class V>
void lsd_radix_sort(const radix_io<K, V>& io, std::int64_t n, int begin_bit, int end_bit, bool descending,
                    unsigned char* temp) {
  constexpr bool pairs = !std::is_same_v<V, sort_no_values>;
  constexpr int radix = 1 << DigitBits;
  using U = typename radix_key_traits<K>::bits_type;
  const int digits = (end_bit - begin_bit + DigitBits - 1) / DigitBits;
  auto* counts = reinterpret_cast<std::int64_t*>(temp);
  const K* keys = io.kdb ? io.kdb->current() : io.keys_in;
  auto digit = [&](const K& key, int d) {
    const U u = sort_bits(key, begin_bit, end_bit, descending);
    return static_cast<int>(static_cast<U>(u >> (d * DigitBits)) & static_cast<U>(radix - 1));
  };

  // Every digit's histogram in one pass, then each turned into bucket offsets.
  std::fill(counts, counts + std::int64_t{digits} * radix, std::int64_t{0});
  for (std::int64_t i = 0; i < n; ++i) {
    const U u = sort_bits(keys[i], begin_bit, end_bit, descending);
    for (int d = 0; d < digits; ++d)
      ++counts[d * radix + static_cast<int>(static_cast<U>(u >> (d * DigitBits)) & static_cast<U>(radix - 1))];
  }
  int active[8 * sizeof(K)];  // the digits that move anything
  int passes = 0;
  for (int d = 0; d < digits; ++d) {
    std::int64_t* c = counts + d * radix;
    if (std::any_of(c, c + radix, [&](std::int64_t k) { return k == n; })) continue;  // one bucket: the identity
    std::int64_t sum = 0;
    for (int b = 0; b < radix; ++b) {
      const std::int64_t k = c[b];
      c[b] = sum;
      sum += k;
    }
    active[passes++] = d;
  }

  // Routes of the keys and values through the passes.
  const std::size_t counts_bytes = streamscan::detail::temp_bytes_for<std::int64_t>(sort_count_slots<K>());
  sort_route<K> kr;
  sort_route<V> vr;
  if (io.kdb) {
    kr = sort_route<K>::buffers(*io.kdb);
    if constexpr (pairs) vr = sort_route<V>::buffers(*io.vdb);
  } else {
    K* key_buf = reinterpret_cast<K*>(temp + counts_bytes);
    kr = sort_route<K>::pointers(io.keys_in, io.keys_out, key_buf, n, passes);
    if constexpr (pairs) {
      V* value_buf = reinterpret_cast<V*>(temp + counts_bytes + streamscan::detail::temp_bytes_for<K>(n));
      vr = sort_route<V>::pointers(io.values_in, io.values_out, value_buf, n, passes);
    }
    if (passes == 0) {  // already in order: a copy, unless in place
      if (io.keys_out != io.keys_in) std::copy(io.keys_in, io.keys_in + n, io.keys_out);
      if constexpr (pairs)
        if (io.values_out != io.values_in) std::copy(io.values_in, io.values_in + n, io.values_out);
    }
  }

  // One stable scatter per active digit.
  for (int p = 0; p < passes; ++p) {
    const int d = active[p];
    std::int64_t* offset = counts + d * radix;
    const K* ks = kr.src(p);
    K* kd = kr.dst(p);
    if constexpr (pairs) {
      const V* vs = vr.src(p);
      V* vd = vr.dst(p);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t to = offset[digit(ks[i], d)]++;
        kd[to] = ks[i];
        vd[to] = vs[i];
      }
    } else {
      for (std::int64_t i = 0; i < n; ++i) kd[offset[digit(ks[i], d)]++] = ks[i];
    }
  }
  if (io.kdb) {
    io.kdb->selector ^= passes & 1;
    if constexpr (pairs) io.vdb->selector ^= passes & 1;
  }
}

template <class K, class V>
status radix_sort(const char* fn, void* temp, std::size_t& temp_bytes, const radix_io<K, V>& io, std::int64_t n,
                  const sort_options& opt) {
  constexpr bool pairs = !std::is_same_v<V, sort_no_values>;
  static_assert(!pairs || std::is_trivially_copyable_v<V>, "streamscan radix sort: values must be trivially copyable");
  int begin_bit = 0, end_bit = 0;
  if (status s = streamscan::detail::validate_sort_args<K>(fn, io.keys_in, io.keys_out, io.values_in, io.values_out,
                                                           pairs, n, temp == nullptr, opt, begin_bit, end_bit);
      !s)
    return s;
  if (temp != nullptr)
    if (status s = streamscan::detail::validate_sort_buffers(fn, io.keys_in, io.keys_out, io.values_in, io.values_out,
                                                             pairs, n, io.kdb != nullptr);
        !s)
      return s;
  const std::size_t required = radix_temp_bytes<K, V>(n, io.kdb != nullptr);
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();
  const bool descending = opt.order == sort_order::descending;
  if (opt.strategy == sort_strategy::split)
    lsd_radix_sort<1>(io, n, begin_bit, end_bit, descending, sort_align(temp));
  else
    lsd_radix_sort<8>(io, n, begin_bit, end_bit, descending, sort_align(temp));
  return status::ok();
}

// Stable bottom-up merge sort of out[0, n) with `less`, buf (n elements) as
// the other half of each merge.
template <class K, class Less>
void merge_sort(K* out, K* buf, std::int64_t n, Less& less) {
  constexpr std::int64_t run = 32;
  for (std::int64_t s = 0; s < n; s += run) {  // insertion sort of each run
    const std::int64_t e = std::min(n, s + run);
    for (std::int64_t i = s + 1; i < e; ++i) {
      const K x = out[i];
      std::int64_t j = i;
      for (; j > s && less(x, out[j - 1]); --j) out[j] = out[j - 1];
      out[j] = x;
    }
  }
  K* from = out;
  K* to = buf;
  for (std::int64_t width = run; width < n; width *= 2) {
    for (std::int64_t s = 0; s < n; s += 2 * width) {
      const std::int64_t m = std::min(n, s + width), e = std::min(n, s + 2 * width);
      std::int64_t a = s, b = m, k = s;
      while (a < m && b < e) to[k++] = less(from[b], from[a]) ? from[b++] : from[a++];  // ties: the left run first
      while (a < m) to[k++] = from[a++];
      while (b < e) to[k++] = from[b++];
    }
    std::swap(from, to);
  }
  if (from != out) std::copy(from, from + n, out);
}

template <class K, class Less>
status quicksort(const char* fn, void* temp, std::size_t& temp_bytes, const K* in, K* out, std::int64_t n,
                 const quicksort_options& opt, Less& less) {
  static_assert(std::is_trivially_copyable_v<K>, "streamscan::cpu::quicksort: keys must be trivially copyable");
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (opt.pivot != pivot_rule::first && opt.pivot != pivot_rule::middle)
    return streamscan::detail::invalid_argument(fn, "argument 'options.pivot' is not a pivot rule (" +
                                                        std::to_string(static_cast<int>(opt.pivot)) + ")");
  const std::size_t required = sort_temp_align - 1 + streamscan::detail::temp_bytes_for<K>(n);
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();
  if (out != in) std::copy(in, in + n, out);
  merge_sort(out, reinterpret_cast<K*>(sort_align(temp)), n, less);
  return status::ok();
}

}  // namespace detail

// ---- radix sort, two-phase forms ----

// keys_out = keys_in sorted by sort_bits (stable); keys_out == keys_in is allowed.
template <class K>
[[nodiscard]] status radix_sort_keys(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                                     std::int64_t n, sort_options opt = {}) {
  detail::radix_io<K, detail::sort_no_values> io;
  io.keys_in = keys_in;
  io.keys_out = keys_out;
  return detail::radix_sort("streamscan::cpu::radix_sort_keys", temp, temp_bytes, io, n, opt);
}

// The sorted keys end in keys.current() (selector updated); both buffers are overwritten.
template <class K>
[[nodiscard]] status radix_sort_keys(void* temp, std::size_t& temp_bytes, double_buffer<K>& keys, std::int64_t n,
                                     sort_options opt = {}) {
  detail::radix_io<K, detail::sort_no_values> io;
  io.keys_in = keys.current();
  io.keys_out = keys.alternate();
  io.kdb = &keys;
  return detail::radix_sort("streamscan::cpu::radix_sort_keys", temp, temp_bytes, io, n, opt);
}

// The values follow their keys; values_out == values_in is allowed.
template <class K, class V>
[[nodiscard]] status radix_sort_pairs(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                                      const V* values_in, V* values_out, std::int64_t n, sort_options opt = {}) {
  detail::radix_io<K, V> io;
  io.keys_in = keys_in;
  io.keys_out = keys_out;
  io.values_in = values_in;
  io.values_out = values_out;
  return detail::radix_sort("streamscan::cpu::radix_sort_pairs", temp, temp_bytes, io, n, opt);
}

template <class K, class V>
[[nodiscard]] status radix_sort_pairs(void* temp, std::size_t& temp_bytes, double_buffer<K>& keys,
                                      double_buffer<V>& values, std::int64_t n, sort_options opt = {}) {
  detail::radix_io<K, V> io;
  io.keys_in = keys.current();
  io.keys_out = keys.alternate();
  io.values_in = values.current();
  io.values_out = values.alternate();
  io.kdb = &keys;
  io.vdb = &values;
  return detail::radix_sort("streamscan::cpu::radix_sort_pairs", temp, temp_bytes, io, n, opt);
}

// out = in sorted by `less`, stably; out == in is allowed. See the top of the file.
template <class K, class Less = streamscan::less>
[[nodiscard]] status quicksort(void* temp, std::size_t& temp_bytes, const K* in, K* out, std::int64_t n,
                               quicksort_options opt = {}, Less less = {}) {
  return detail::quicksort("streamscan::cpu::quicksort", temp, temp_bytes, in, out, n, opt, less);
}

// ---- convenience forms: heap scratch, streamscan::error on failure ----

template <class K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, sort_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) { return radix_sort_keys(t, b, keys_in, keys_out, n, opt); });
}

template <class K, class V>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                      sort_options opt = {}) {
  detail::with_heap_scratch(
      [&](void* t, std::size_t& b) { return radix_sort_pairs(t, b, keys_in, keys_out, values_in, values_out, n, opt); });
}

template <class K, class Less = streamscan::less>
void quicksort(const K* in, K* out, std::int64_t n, quicksort_options opt = {}, Less less = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) { return quicksort(t, b, in, out, n, opt, less); });
}

}  // namespace streamscan::cpu
