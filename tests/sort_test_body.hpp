// Test bodies of the sorts (radix_sort_keys, radix_sort_pairs, quicksort),
// shared by every back end. The oracle is std::stable_sort on the host over
// the test's own order-preserving map of the keys (key_order_bits below), not
// the library's radix_key_traits.
//
// A back end adapter provides, besides name/available()/many_tiles/large_size:
//   sort_tile_items<K, value_bytes>()   the radix sort's tile for those keys and
//                                       values (value_bytes 0: keys only), to hit its edges
//   run_sort<K, V>(sort_request, keys, values, keys_out, values_out) -> status
//                                       (V = no_sort_values: keys only, values empty)
//   run_quicksort<K>(quicksort_request, keys, out, less) -> status
// Outputs arrive poisoned and sized n; the input has n elements. The adapter
// copies the input to the device (if any), runs the form the request names
// (two-phase with temp == nullptr first, then temp at an odd address; the
// double-buffer form with a poisoned alternate, returning current()'s data;
// the convenience form, returning the status of a thrown streamscan::error),
// applies the request's fault to the call (not to the size query) and copies
// the output back whether the call failed or not.
// Each test TU stamps the tests out with STREAMSCAN_SORT_TESTS(suite, backend).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <streamscan/config.hpp>
#include <streamscan/operators.hpp>
#include <streamscan/sort.hpp>
#include <streamscan/status.hpp>

#include "common/backend_fixture.hpp"
#include "common/random.hpp"
#include "common/sort_oracle.hpp"
#include "common/tu_backend.hpp"

namespace streamscan_test {

// ---- requests ----

enum class sort_form { two_phase, double_buffer, convenience };

inline const char* to_string(sort_form f) {
  switch (f) {
    case sort_form::two_phase: return "two-phase";
    case sort_form::double_buffer: return "double-buffer";
    default: return "convenience";
  }
}

// What the adapter breaks in the call (the size query stays valid).
enum class sort_fault {
  none,
  negative_n,       // n = -1
  null_keys_in,     // keys_in (quicksort: in) is a null pointer
  null_keys_out,    // keys_out (quicksort: out)
  null_values_in,
  null_values_out,
  temp_too_small,   // temp_bytes one less than the query said
};

struct sort_request {
  sort_form form = sort_form::two_phase;
  streamscan::sort_options options{};
  bool in_place = false;  // pointer forms: keys_out == keys_in (and values_out == values_in)
  // Pointer forms out of place (GPU): the inputs start one element past an
  // allocation, so not on a 16-byte boundary.
  bool misaligned = false;
  sort_fault fault = sort_fault::none;
  // Size the temp with the default bit range (same strategy and order), so
  // that bad options.begin_bit / end_bit reach the call's own check.
  bool query_full_bits = false;
};

struct quicksort_request {
  sort_form form = sort_form::two_phase;  // two_phase or convenience
  streamscan::quicksort_options options{};
  bool in_place = false;
  sort_fault fault = sort_fault::none;
};

// The value type of the adapters' keys-only path.
struct no_sort_values {};

template <class Backend, class K>
streamscan::status run_sort_keys(const sort_request& req, const std::vector<K>& keys, std::vector<K>& out) {
  std::vector<no_sort_values> none;
  return Backend::run_sort(req, keys, none, out, none);
}

// A 12-byte value for pairs.
struct value12 {
  std::uint32_t a, b, c;
  friend bool operator==(const value12& p, const value12& q) { return p.a == q.a && p.b == q.b && p.c == q.c; }
};

// quicksort with a comparator that sees half the key: stability is visible.
struct tagged {
  std::uint32_t key, tag;
};
struct tagged_key_less {
  STREAMSCAN_HOST_DEVICE bool operator()(const tagged& a, const tagged& b) const { return a.key < b.key; }
};

// Bit-for-bit equality (NaN payloads, -0.0 and +0.0 included).
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0 && mismatches++ == 0) first = i;
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << got.size() << " elements differ; first at " << first
                                       << ": got " << hex_bits(got[first]) << ", expected " << hex_bits(want[first]);
}

template <class T>
bool still_poisoned(const std::vector<T>& v) {
  std::vector<T> p(v.size());
  poison(p);
  return v.empty() || std::memcmp(v.data(), p.data(), v.size() * sizeof(T)) == 0;
}

// ---- inputs ----

enum class key_dist { uniform, few_distinct, sorted, reversed };

inline const char* to_string(key_dist d) {
  switch (d) {
    case key_dist::uniform: return "uniform";
    case key_dist::few_distinct: return "few-distinct";
    case key_dist::sorted: return "sorted";
    default: return "reversed";
  }
}

// Integers: every bit pattern. Floating point: mostly values in [-1000, 1000],
// some random bit patterns (NaNs and infinities among them) and the special
// values -0.0, +0.0, +-inf, NaNs of either sign and two payloads, denormals, extremes.
template <class K>
K random_key(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<K>) {
    using L = std::numeric_limits<K>;
    using U = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;
    const std::uint64_t r = rng();
    if (r % 8 == 0) {
      const U u = static_cast<U>(rng());
      K k;
      std::memcpy(&k, &u, sizeof k);
      return k;
    }
    if (r % 8 == 1) {
      const U payload_nan = static_cast<U>((~U(0) >> 1) - 5);  // positive NaN, another payload
      K pn;
      std::memcpy(&pn, &payload_nan, sizeof pn);
      const K specials[] = {K(-0.0), K(0.0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(),
                            pn, -pn, L::denorm_min(), -L::denorm_min(), L::max(), L::lowest(), L::min()};
      return specials[(r >> 8) % (sizeof(specials) / sizeof(specials[0]))];
    }
    return std::uniform_real_distribution<K>(K(-1000), K(1000))(rng);
  } else {
    return static_cast<K>(rng());
  }
}

template <class K>
std::vector<K> make_keys(std::mt19937_64& rng, std::int64_t n, key_dist dist) {
  std::vector<K> keys(static_cast<std::size_t>(n));
  if (dist == key_dist::few_distinct) {
    std::vector<K> pool(3 + rng() % 5);
    for (auto& k : pool) k = random_key<K>(rng);
    for (auto& k : keys) k = pool[rng() % pool.size()];
    return keys;
  }
  for (auto& k : keys) k = random_key<K>(rng);
  if (dist == key_dist::sorted || dist == key_dist::reversed) {
    keys = permuted(keys, oracle_permutation(keys, streamscan::sort_options{}));
    if (dist == key_dist::reversed) std::reverse(keys.begin(), keys.end());
  }
  return keys;
}

template <class V>
std::vector<V> index_values(std::int64_t n) {
  std::vector<V> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto x = static_cast<std::uint32_t>(i);
    if constexpr (std::is_same_v<V, value12>) v[i] = {x, ~x, x * 2654435761u};
    else if constexpr (sizeof(V) == 8) v[i] = static_cast<V>(std::uint64_t{~x} << 32 | x);  // both halves differ
    else v[i] = static_cast<V>(x);
  }
  return v;
}


template <class Backend, class K, int ValueBytes = 0>
std::int64_t sort_tile() {
  return Backend::template sort_tile_items<K, ValueBytes>();
}

template <class Backend, class K, int ValueBytes = 0>
std::vector<std::int64_t> sort_sizes(std::mt19937_64& rng) {
  const std::int64_t t = sort_tile<Backend, K, ValueBytes>();
  std::uniform_int_distribution<std::int64_t> large(Backend::large_size / 4, Backend::large_size / 2);
  return capped({0, 1, 2, 33, t - 1, t, t + 1, Backend::many_tiles * t + 5, large(rng)});
}

// split takes a pass per key bit: only up to a few tiles.
template <class Backend, class K, int ValueBytes = 0>
bool split_size(std::int64_t n) {
  return n <= 8 * sort_tile<Backend, K, ValueBytes>() + 5;
}

inline std::string describe(const sort_request& r, std::int64_t n, const char* what) {
  const auto& o = r.options;
  std::ostringstream os;
  os << "seed=" << global_seed() << " (STREAMSCAN_TEST_SEED to replay) n=" << n << " " << what
     << " strategy=" << streamscan::to_string(o.strategy)
     << (o.order == streamscan::sort_order::descending ? " descending" : " ascending") << " bits=[" << o.begin_bit
     << "," << o.end_bit << ") " << to_string(r.form) << (r.in_place ? " in-place" : "")
     << (r.misaligned ? " misaligned" : "");
  return os.str();
}

// The forms a run cycles through: out of place, in place, double buffer, convenience.
inline sort_request cycle_form(sort_request r, int call) {
  switch (call % 4) {
    case 0: r.form = sort_form::two_phase; r.misaligned = call % 8 == 0; break;
    case 1: r.form = sort_form::two_phase; r.in_place = true; break;
    case 2: r.form = sort_form::double_buffer; break;
    default: r.form = sort_form::convenience; break;
  }
  return r;
}

template <class Backend, class K>
void expect_sorted_keys(const sort_request& req, const std::vector<K>& keys, const std::vector<K>& want,
                        const std::string& where) {
  std::vector<K> out(keys.size());
  poison(out);
  const streamscan::status s = run_sort_keys<Backend>(req, keys, out);
  ASSERT_TRUE(s.is_ok()) << s.message() << " " << where;
  ASSERT_TRUE(same_bits(out, want)) << where;
}

template <class Backend, class K, class V>
void expect_sorted_pairs(const sort_request& req, const std::vector<K>& keys, const std::vector<V>& values,
                         const std::string& where) {
  const auto perm = oracle_permutation(keys, req.options);
  std::vector<K> keys_out(keys.size());
  std::vector<V> values_out(values.size());
  poison(keys_out);
  poison(values_out);
  const streamscan::status s = Backend::run_sort(req, keys, values, keys_out, values_out);
  ASSERT_TRUE(s.is_ok()) << s.message() << " " << where;
  ASSERT_TRUE(same_bits(keys_out, permuted(keys, perm))) << "keys: " << where;
  ASSERT_TRUE(same_bits(values_out, permuted(values, perm))) << "values: " << where;
}

// ---- radix sort of keys: every size, distribution, strategy, order, form ----

template <class Backend, class K>
void check_sort_keys() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto rng = make_rng(std::string(info->test_suite_name()) + "." + info->name());
  int call = 0;
  const auto sizes = sort_sizes<Backend, K>(rng);
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::int64_t n = sizes[si];
    const bool largest = si + 1 == sizes.size();
    for (const key_dist dist : {key_dist::uniform, key_dist::few_distinct, key_dist::sorted, key_dist::reversed}) {
      if (largest && (dist == key_dist::sorted || dist == key_dist::reversed)) continue;  // host time
      const std::vector<K> keys = make_keys<K>(rng, n, dist);
      for (const auto order : {streamscan::sort_order::ascending, streamscan::sort_order::descending}) {
        streamscan::sort_options opt{};
        opt.order = order;
        const std::vector<K> want = permuted(keys, oracle_permutation(keys, opt));
        for (const auto strategy :
             {streamscan::sort_strategy::automatic, streamscan::sort_strategy::onesweep, streamscan::sort_strategy::split}) {
          if (strategy == streamscan::sort_strategy::split && !split_size<Backend, K>(n)) continue;
          opt.strategy = strategy;
          sort_request req;
          req.options = opt;
          req = cycle_form(req, call++);
          expect_sorted_keys<Backend>(req, keys, want, describe(req, n, to_string(dist)));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// ---- bit ranges: keys equal on the sorted bits keep their input order ----

template <class Backend, class K>
void check_sort_bit_ranges() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto rng = make_rng(std::string(info->test_suite_name()) + "." + info->name());
  constexpr int b = key_bits<K>;
  const std::vector<std::pair<int, int>> ranges = {{0, b},     {0, b / 2}, {b / 2, b}, {1, b - 1}, {b - 1, b},
                                                   {0, 1},     {3, -1},    {b - 8, b}, {2, 2 + (b > 8 ? 9 : 5)}};
  int call = 0;
  const std::int64_t t = sort_tile<Backend, K>();
  for (const std::int64_t n : capped({t + 1, 3 * t + 17})) {
    const std::vector<K> keys = make_keys<K>(rng, n, key_dist::uniform);
    for (const auto& [begin, end] : ranges) {
      for (const auto order : {streamscan::sort_order::ascending, streamscan::sort_order::descending}) {
        for (const auto strategy : {streamscan::sort_strategy::automatic, streamscan::sort_strategy::split}) {
          sort_request req;
          req.options.order = order;
          req.options.strategy = strategy;
          req.options.begin_bit = begin;
          req.options.end_bit = end;
          req = cycle_form(req, call++);
          const std::vector<K> want = permuted(keys, oracle_permutation(keys, req.options));
          expect_sorted_keys<Backend>(req, keys, want, describe(req, n, "uniform"));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// ---- pairs: the values follow their keys, stably ----

template <class Backend, class K, class V>
void check_sort_pairs(bool every_size) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto rng = make_rng(std::string(info->test_suite_name()) + "." + info->name());
  constexpr int value_bytes = static_cast<int>(sizeof(V));
  const std::int64_t t = sort_tile<Backend, K, value_bytes>();
  std::vector<std::int64_t> sizes = sort_sizes<Backend, K, value_bytes>(rng);
  if (!every_size) sizes = capped({0, 1, t - 1, t + 1, Backend::many_tiles * t + 5, sizes.back()});
  int call = 0;
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::int64_t n = sizes[si];
    const bool largest = si + 1 == sizes.size();
    const std::vector<V> values = index_values<V>(n);
    for (const key_dist dist : {key_dist::few_distinct, key_dist::uniform, key_dist::sorted, key_dist::reversed}) {
      if ((largest || !every_size) && (dist == key_dist::sorted || dist == key_dist::reversed)) continue;
      const std::vector<K> keys = make_keys<K>(rng, n, dist);
      for (const auto order : {streamscan::sort_order::ascending, streamscan::sort_order::descending}) {
        for (const auto strategy :
             {streamscan::sort_strategy::automatic, streamscan::sort_strategy::onesweep, streamscan::sort_strategy::split}) {
          if (strategy == streamscan::sort_strategy::split && !split_size<Backend, K, value_bytes>(n)) continue;
          if (strategy == streamscan::sort_strategy::onesweep && (largest || !every_size)) continue;
          sort_request req;
          req.options.order = order;
          req.options.strategy = strategy;
          req = cycle_form(req, call++);
          expect_sorted_pairs<Backend>(req, keys, values, describe(req, n, to_string(dist)));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
    // A bit range: values of keys equal on those bits stay in input order.
    if (n > 1) {
      sort_request req;
      req.options.begin_bit = 4;
      req.options.end_bit = key_bits<K> - 7;
      req = cycle_form(req, call++);
      expect_sorted_pairs<Backend>(req, make_keys<K>(rng, n, key_dist::uniform), values, describe(req, n, "uniform"));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// ---- quicksort: a stable sort by `less`, both pivot rules ----

// A sorted or reversed input takes [ScanPrimitives]'s first-element pivot a
// round per element: those cases stay this small.
inline constexpr std::int64_t quicksort_worst_case_max = 3000;

template <class Backend, class K, class Less>
void check_quicksort(const std::vector<K>& in, Less less, const quicksort_request& req, const std::string& where) {
  std::vector<K> want = in;
  std::stable_sort(want.begin(), want.end(), less);
  std::vector<K> out(in.size());
  poison(out);
  const streamscan::status s = Backend::run_quicksort(req, in, out, less);
  ASSERT_TRUE(s.is_ok()) << s.message() << " " << where;
  ASSERT_TRUE(same_bits(out, want)) << where;
}

template <class Backend, class K, class Less>
void check_quicksorts(Less less) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto rng = make_rng(std::string(info->test_suite_name()) + "." + info->name());
  const std::int64_t t = sort_tile<Backend, std::uint32_t>();
  int call = 0;
  for (const std::int64_t n : capped({0, 1, 2, 100, t - 1, t + 1, 100003})) {
    for (const key_dist dist : {key_dist::uniform, key_dist::few_distinct, key_dist::sorted, key_dist::reversed}) {
      std::vector<K> in(static_cast<std::size_t>(n));
      if constexpr (std::is_same_v<K, tagged>) {
        // Few distinct keys, tags in input order: stability shows in the tags.
        const auto keys = make_keys<std::uint32_t>(rng, n, dist == key_dist::uniform ? key_dist::few_distinct : dist);
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = {keys[i], static_cast<std::uint32_t>(i)};
      } else {
        in = make_keys<K>(rng, n, dist);
      }
      for (const auto pivot : {streamscan::pivot_rule::first, streamscan::pivot_rule::middle}) {
        const bool worst = pivot == streamscan::pivot_rule::first &&
                           (dist == key_dist::sorted || dist == key_dist::reversed);
        if (worst && n > quicksort_worst_case_max) continue;
        quicksort_request req;
        req.options.pivot = pivot;
        req.form = call % 3 == 2 ? sort_form::convenience : sort_form::two_phase;
        req.in_place = call % 3 == 1;
        ++call;
        std::ostringstream where;
        where << "seed=" << global_seed() << " n=" << n << " " << to_string(dist) << " pivot="
              << (pivot == streamscan::pivot_rule::first ? "first" : "middle") << " " << to_string(req.form)
              << (req.in_place ? " in-place" : "");
        check_quicksort<Backend>(in, less, req, where.str());
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  // The worst case of the first-element pivot, once, at its size limit.
  std::vector<K> in(static_cast<std::size_t>(capped({quicksort_worst_case_max})[0]));
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto k = static_cast<std::uint32_t>(in.size() - i);
    if constexpr (std::is_same_v<K, tagged>) in[i] = {k / 2, static_cast<std::uint32_t>(i)};
    else in[i] = static_cast<K>(k);
  }
  quicksort_request req;
  req.options.pivot = streamscan::pivot_rule::first;
  check_quicksort<Backend>(in, less, req, "seed=" + std::to_string(global_seed()) + " reversed 1..n, pivot=first");
}

// ---- bad arguments: the right error, the argument named, nothing written ----

template <class Backend>
void check_sort_errors() {
  namespace ss = streamscan;
  const std::int64_t n = 1000;
  std::vector<std::uint32_t> keys(n), values(n);
  for (std::int64_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>((i * 7919) % 1000), values[i] = static_cast<std::uint32_t>(i);

  struct bad_call {
    sort_fault fault;
    int begin_bit, end_bit;
    bool query_full_bits;
    sort_form form;
    ss::errc code;
    const char* text;
  };
  const bad_call keys_calls[] = {
      {sort_fault::negative_n, 0, -1, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'n' is negative (-1)"},
      {sort_fault::negative_n, 0, -1, false, sort_form::convenience, ss::errc::invalid_argument, "argument 'n' is negative (-1)"},
      {sort_fault::null_keys_in, 0, -1, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'keys_in' is a null pointer"},
      {sort_fault::null_keys_out, 0, -1, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'keys_out' is a null pointer"},
      {sort_fault::null_keys_out, 0, -1, false, sort_form::convenience, ss::errc::invalid_argument, "argument 'keys_out' is a null pointer"},
      {sort_fault::temp_too_small, 0, -1, false, sort_form::two_phase, ss::errc::temp_storage_too_small, "argument 'temp_bytes'"},
      {sort_fault::none, 8, 8, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.begin_bit' (8) is not below 'options.end_bit' (8)"},
      {sort_fault::none, 8, 8, true, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.begin_bit' (8) is not below 'options.end_bit' (8)"},
      {sort_fault::none, 20, 4, true, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.begin_bit' (20) is not below 'options.end_bit' (4)"},
      {sort_fault::none, 32, -1, true, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.begin_bit' (32) is not below 'options.end_bit' (32)"},
      {sort_fault::none, 0, 40, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.end_bit' is 40, past the 32 bits of the key"},
      {sort_fault::none, 0, 33, true, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.end_bit' is 33, past the 32 bits of the key"},
      {sort_fault::none, 0, 40, false, sort_form::convenience, ss::errc::invalid_argument, "argument 'options.end_bit' is 40, past the 32 bits of the key"},
      {sort_fault::none, -1, -1, true, sort_form::two_phase, ss::errc::invalid_argument, "argument 'options.begin_bit' is negative (-1)"},
  };
  for (const bool pairs : {false, true}) {
    std::vector<bad_call> calls(std::begin(keys_calls), std::end(keys_calls));
    if (pairs) {
      calls.push_back({sort_fault::null_values_in, 0, -1, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'values_in' is a null pointer"});
      calls.push_back({sort_fault::null_values_out, 0, -1, false, sort_form::two_phase, ss::errc::invalid_argument, "argument 'values_out' is a null pointer"});
      calls.push_back({sort_fault::null_values_out, 0, -1, false, sort_form::convenience, ss::errc::invalid_argument, "argument 'values_out' is a null pointer"});
    }
    for (const bad_call& c : calls) {
      for (const bool in_place : {false, true}) {
        if (in_place && (c.fault == sort_fault::null_keys_in || c.fault == sort_fault::null_values_in)) continue;
        sort_request req;
        req.form = c.form;
        req.fault = c.fault;
        req.in_place = in_place;
        req.query_full_bits = c.query_full_bits;
        req.options.begin_bit = c.begin_bit;
        req.options.end_bit = c.end_bit;
        std::ostringstream where;
        where << (pairs ? "radix_sort_pairs " : "radix_sort_keys ") << to_string(c.form) << (in_place ? " in-place" : "")
              << " expecting \"" << c.text << "\"" << (c.query_full_bits ? " (at the call)" : "");
        std::vector<std::uint32_t> keys_out(n), values_out(n);
        poison(keys_out);
        poison(values_out);
        const ss::status s = pairs ? Backend::run_sort(req, keys, values, keys_out, values_out)
                                   : run_sort_keys<Backend>(req, keys, keys_out);
        EXPECT_EQ(s.code(), c.code) << s.message() << " | " << where.str();
        EXPECT_NE(s.message().find(c.text), std::string::npos) << s.message() << " | " << where.str();
        if (in_place) {  // the input, untouched
          EXPECT_EQ(keys_out, keys) << "keys written: " << where.str();
          if (pairs) {
            EXPECT_EQ(values_out, values) << "values written: " << where.str();
          }
        } else {
          EXPECT_TRUE(still_poisoned(keys_out)) << "keys written: " << where.str();
          if (pairs) {
            EXPECT_TRUE(still_poisoned(values_out)) << "values written: " << where.str();
          }
        }
      }
    }
  }

  // Option values this build does not know.
  for (const bool bad_order : {false, true}) {
    sort_request req;
    if (bad_order)
      req.options.order = static_cast<ss::sort_order>(7);
    else
      req.options.strategy = static_cast<ss::sort_strategy>(99);
    std::vector<std::uint32_t> keys_out(n);
    poison(keys_out);
    const ss::status s = run_sort_keys<Backend>(req, keys, keys_out);
    EXPECT_NE(s.message().find(bad_order ? "argument 'options.order' is neither" : "argument 'options.strategy' is not a sort strategy"),
              std::string::npos)
        << s.message();
    EXPECT_TRUE(still_poisoned(keys_out)) << s.message();
  }
  {
    quicksort_request req;
    req.options.pivot = static_cast<ss::pivot_rule>(9);
    std::vector<std::uint32_t> out(n);
    poison(out);
    const ss::status s = Backend::run_quicksort(req, keys, out, ss::less{});
    EXPECT_NE(s.message().find("argument 'options.pivot' is not a pivot rule"), std::string::npos) << s.message();
    EXPECT_TRUE(still_poisoned(out)) << s.message();
  }

  // No data and null pointers: nothing to do, no error.
  for (const sort_fault f : {sort_fault::null_keys_in, sort_fault::null_keys_out}) {
    sort_request req;
    req.fault = f;
    std::vector<std::uint32_t> none;
    const ss::status s = run_sort_keys<Backend>(req, none, none);
    EXPECT_TRUE(s.is_ok()) << s.message() << " n=0 with a null pointer";
  }

  // quicksort names its arrays 'in' and 'out'.
  const struct {
    sort_fault fault;
    sort_form form;
    ss::errc code;
    const char* text;
  } quick_calls[] = {
      {sort_fault::negative_n, sort_form::two_phase, ss::errc::invalid_argument, "argument 'n' is negative (-1)"},
      {sort_fault::negative_n, sort_form::convenience, ss::errc::invalid_argument, "argument 'n' is negative (-1)"},
      {sort_fault::null_keys_in, sort_form::two_phase, ss::errc::invalid_argument, "argument 'in' is a null pointer"},
      {sort_fault::null_keys_out, sort_form::two_phase, ss::errc::invalid_argument, "argument 'out' is a null pointer"},
      {sort_fault::temp_too_small, sort_form::two_phase, ss::errc::temp_storage_too_small, "argument 'temp_bytes'"},
  };
  for (const auto& c : quick_calls) {
    quicksort_request req;
    req.form = c.form;
    req.fault = c.fault;
    std::vector<std::uint32_t> out(n);
    poison(out);
    const ss::status s = Backend::run_quicksort(req, keys, out, ss::less{});
    EXPECT_EQ(s.code(), c.code) << s.message() << " | quicksort expecting \"" << c.text << "\"";
    EXPECT_NE(s.message().find(c.text), std::string::npos) << s.message();
    EXPECT_TRUE(still_poisoned(out)) << "quicksort wrote its output: expecting \"" << c.text << "\"";
  }
}

// A null half of a double_buffer, which the adapter's own arrays cannot be:
// refused with the argument it stands for named (current: keys_in /
// values_in; alternate: keys_out / values_out) whichever buffer the selector
// makes current; no buffer written, no selector changed.
template <class Backend>
void check_sort_double_buffer_nulls() {
  namespace ss = streamscan;
  ASSERT_STREQ(Backend::name, tu_backend::name) << "a CUDA translation unit runs the CUDA back end";
  const std::int64_t n = 1000;
  std::vector<std::uint32_t> keys(n), values(n), poisoned(n);
  for (std::int64_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(n - i);
    values[i] = static_cast<std::uint32_t>(i);
  }
  poison(poisoned);
  tu_backend::array<std::uint32_t> k0(keys), k1(poisoned), v0(values), v1(poisoned);
  std::size_t bytes = 0;
  {
    ss::double_buffer<std::uint32_t> kdb(k0.data(), k1.data()), vdb(v0.data(), v1.data());
    ASSERT_TRUE(tu_backend::api::radix_sort_pairs(nullptr, bytes, kdb, vdb, n).is_ok());  // more than keys alone
  }
  tu_backend::array<unsigned char> temp{std::vector<unsigned char>(bytes)};
  const char* const names[] = {"keys_in", "keys_out", "values_in", "values_out"};
  for (const int selector : {0, 1}) {
    for (int half = 0; half < 4; ++half) {  // keys' current, keys' alternate, values' current, values' alternate
      for (const bool pairs : {false, true}) {
        if (!pairs && half >= 2) continue;
        ss::double_buffer<std::uint32_t> kdb(k0.data(), k1.data()), vdb(v0.data(), v1.data());
        kdb.selector = vdb.selector = selector;
        (half < 2 ? kdb : vdb).buffers[(selector + half) & 1] = nullptr;
        std::size_t given = bytes;
        const ss::status s = pairs ? tu_backend::api::radix_sort_pairs(temp.data(), given, kdb, vdb, n)
                                   : tu_backend::api::radix_sort_keys(temp.data(), given, kdb, n);
        const std::string needle = std::string("argument '") + names[half] + "' is a null pointer";
        const std::string where = std::string(pairs ? "radix_sort_pairs" : "radix_sort_keys") + " selector " +
                                  std::to_string(selector) + " expecting \"" + needle + "\"";
        EXPECT_EQ(s.code(), ss::errc::invalid_argument) << s.message() << " | " << where;
        EXPECT_NE(s.message().find(needle), std::string::npos) << s.message() << " | " << where;
        EXPECT_EQ(kdb.selector, selector) << where;
        EXPECT_EQ(vdb.selector, selector) << where;
      }
    }
  }
  EXPECT_EQ(k0.values(), keys) << "keys written";
  EXPECT_EQ(v0.values(), values) << "values written";
  EXPECT_TRUE(still_poisoned(k1.values())) << "keys' alternate written";
  EXPECT_TRUE(still_poisoned(v1.values())) << "values' alternate written";
}

using sort_key_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                                        std::int16_t, std::int32_t, std::int64_t, float, double>;

// Buffers that overlap are refused before any work, by name. p: 64 uint32 of
// the back end's memory; keys_db(a, b) and pairs(ki, ko, vi, vo) make the back
// end's two-phase calls on 32 elements (temp given, so not a size query) and
// return the status's message. The caller checks that p was not written.
template <class KeysDb, class Pairs>
void expect_sort_overlaps_refused(std::uint32_t* p, KeysDb keys_db, Pairs pairs) {
  const auto npos = std::string::npos;
  EXPECT_NE(keys_db(p, p).find("argument 'keys' (double_buffer): its two buffers overlap"), npos);
  EXPECT_NE(keys_db(p, p + 16).find("argument 'keys' (double_buffer): its two buffers overlap"), npos);
  EXPECT_NE(pairs(p, p + 1, p + 32, p + 32).find("arguments 'keys_in' and 'keys_out' overlap in part"), npos);
  EXPECT_NE(pairs(p, p, p + 32, p + 33).find("arguments 'values_in' and 'values_out' overlap in part"), npos);
  EXPECT_NE(pairs(p, p, p + 16, p + 16).find("the keys and the values overlap"), npos);
  EXPECT_NE(pairs(p, p + 32, p + 31, p + 31).find("the keys and the values overlap"), npos);
}

}  // namespace streamscan_test

// Stamps out the sort tests of one back end: a typed suite over the key types
// (keys only), and plain tests for pairs, quicksort and bad arguments.
#define STREAMSCAN_SORT_TESTS(Suite, Backend)                                                          \
  template <class K>                                                                                   \
  class Suite : public streamscan_test::backend_typed_test<Backend, K> {};                             \
  TYPED_TEST_SUITE(Suite, streamscan_test::sort_key_types);                                            \
  TYPED_TEST(Suite, keys) { streamscan_test::check_sort_keys<Backend, TypeParam>(); }                  \
  TYPED_TEST(Suite, bit_ranges) { streamscan_test::check_sort_bit_ranges<Backend, TypeParam>(); }      \
  TEST(Suite##_pairs, uint32_values) {                                                                 \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_sort_pairs<Backend, std::uint32_t, std::uint32_t>(true);                    \
  }                                                                                                    \
  TEST(Suite##_pairs, uint64_values) {                                                                 \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_sort_pairs<Backend, std::int32_t, std::uint64_t>(false);                    \
  }                                                                                                    \
  TEST(Suite##_pairs, struct_values) {                                                                 \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_sort_pairs<Backend, float, streamscan_test::value12>(false);                \
  }                                                                                                    \
  TEST(Suite##_quicksort, uint32) {                                                                    \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_quicksorts<Backend, std::uint32_t>(streamscan::less{});                     \
  }                                                                                                    \
  TEST(Suite##_quicksort, stable_by_comparator) {                                                      \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_quicksorts<Backend, streamscan_test::tagged>(streamscan_test::tagged_key_less{}); \
  }                                                                                                    \
  TEST(Suite##_errors, BadArgumentsAreNamedAndNothingIsWritten) {                                      \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_sort_errors<Backend>();                                                     \
  }                                                                                                    \
  TEST(Suite##_errors, NullHalfOfADoubleBufferIsNamed) {                                               \
    if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";                    \
    streamscan_test::check_sort_double_buffer_nulls<Backend>();                                        \
  }
