// Test bodies of compaction, partition, split and split-and-segment, shared
// by every back end.
//
// A back end adapter provides, besides name/available()/large_size:
//   has_split_and_segment                whether the back end has it yet
//   compaction_in_place                  whether select_* may run with out == in (strategy automatic)
//   compaction_strategies()              the select_strategy values to run compaction with
//   select_chunk()                       the tile/chunk size, to hit its edges
//   select_policy                        the policy name compaction and partition run with (null: default)
//   flagged_select_policy (optional)     the one select_flagged and split run with instead
//   compaction_select_policy (optional)  the one select_if runs with instead, and
//   flagged_compaction_select_policy     select_flagged's (both or neither)
//   run_select(select_request, in, flags, heads, out, heads_out, num) -> status
//     out (and heads_out) arrive poisoned; in/flags/heads sized n; out sized
//     max(n, capacity); num receives num_selected / num_false.
// Each test TU stamps the tests out with STREAMSCAN_SELECT_TESTS(suite, backend).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <streamscan/select.hpp>
#include <streamscan/status.hpp>

#include "common/compare.hpp"
#include "common/select_oracle.hpp"
#include "common/random.hpp"

namespace streamscan_test {


template <class Backend, class = void>
struct has_flagged_select_policy : std::false_type {};
template <class Backend>
struct has_flagged_select_policy<Backend, std::void_t<decltype(Backend::flagged_select_policy)>> : std::true_type {};

template <class Backend, class = void>
struct has_compaction_select_policy : std::false_type {};
template <class Backend>
struct has_compaction_select_policy<Backend, std::void_t<decltype(Backend::compaction_select_policy)>> : std::true_type {};

template <class Backend>
const char* select_policy_for(select_kind kind) {
  if constexpr (has_compaction_select_policy<Backend>::value) {
    if (kind == select_kind::select_if) return Backend::compaction_select_policy;
    if (kind == select_kind::select_flagged) return Backend::flagged_compaction_select_policy;
  }
  if constexpr (has_flagged_select_policy<Backend>::value)
    if (kind == select_kind::select_flagged || kind == select_kind::split) return Backend::flagged_select_policy;
  return Backend::select_policy;
}

template <class Backend>
void check_select(select_kind kind, const char* test) {
  if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";
  if (kind == select_kind::split_and_segment && !Backend::has_split_and_segment)
    GTEST_SKIP() << "split_and_segment is not on the " << Backend::name << " back end yet";
  auto rng = make_rng(test);
  const std::int64_t t = Backend::select_chunk();
  std::uniform_int_distribution<std::int64_t> large(Backend::large_size / 4, Backend::large_size / 2);
  std::vector<std::int64_t> sizes = {0, 1, 33, t - 1, t + 1, 3 * t + 5, large(rng)};
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N"))  // runs under compute-sanitizer
    for (auto& n : sizes) n = std::min<std::int64_t>(n, std::strtoll(cap, nullptr, 10));
  const bool compaction = kind == select_kind::select_if || kind == select_kind::select_flagged ||
                          kind == select_kind::select_indices;
  for (const std::int64_t n : sizes) {
    for (const double fraction : {0.0, -1.0 /* one kept */, 0.05, 0.5, 0.95, 1.0}) {
      std::vector<std::int32_t> in(static_cast<std::size_t>(n));
      std::vector<unsigned char> keep(in.size()), heads(in.size());
      for (auto& x : in) x = std::uniform_int_distribution<std::int32_t>(0, 999999)(rng);
      const std::int32_t threshold = fraction < 0 ? 0 : static_cast<std::int32_t>(fraction * 1000000);
      for (std::size_t i = 0; i < in.size(); ++i) keep[i] = in[i] < threshold;
      if (fraction < 0 && n > 0) {  // exactly one kept, somewhere inside
        const std::size_t at = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n));
        in[at] = -1;
        keep[at] = 1;
      }
      for (auto& h : heads) h = std::bernoulli_distribution(0.01)(rng);
      const select_expectation want = oracle_select(kind, in, keep, heads);
      std::vector<std::int64_t> capacities = {n};
      if (compaction) capacities = {n, want.num / 2, 0, want.num};
      std::vector<streamscan::select_strategy> strategies = {streamscan::select_strategy::automatic};
      if (compaction) strategies = Backend::compaction_strategies();
      for (const streamscan::select_strategy strategy : strategies)
      for (const std::int64_t capacity : capacities) {
        // In place only at full capacity, so that every truncated case checks nothing is written past it.
        const bool in_place = Backend::compaction_in_place && compaction && capacity == n && n % 2 == 1 &&
                              kind != select_kind::select_indices && strategy == streamscan::select_strategy::automatic;
        const select_request req{kind, capacity, in_place, threshold, strategy, select_policy_for<Backend>(kind)};
        std::vector<std::int64_t> out(static_cast<std::size_t>(std::max(n, capacity)));
        std::vector<unsigned char> heads_out(in.size());
        poison(out);
        poison(heads_out);
        std::int64_t num = -12345;
        const streamscan::status s = Backend::run_select(req, in, keep, heads, out, heads_out, num);
        std::ostringstream where;
        where << "seed=" << global_seed() << " " << to_string(kind) << " n=" << n << " fraction=" << fraction
              << " capacity=" << capacity << " strategy=" << streamscan::to_string(strategy)
              << " policy=" << (req.policy ? req.policy : "default")
              << (req.in_place ? " in-place" : "");
        ASSERT_TRUE(s.is_ok()) << s.message() << " " << where.str();
        if (kind != select_kind::split_and_segment) {
          EXPECT_EQ(num, want.num) << where.str();
        }
        const std::size_t written = compaction ? static_cast<std::size_t>(std::min(want.num, capacity)) : want.out.size();
        std::vector<std::int64_t> got(out.begin(), out.begin() + written);
        if (compaction && unordered(strategy)) {
          // Any order; with a short capacity, any `written` of the selected ones.
          std::vector<std::int64_t> all(want.out);
          std::sort(got.begin(), got.end());
          std::sort(all.begin(), all.end());
          EXPECT_TRUE(std::includes(all.begin(), all.end(), got.begin(), got.end()))
              << "not a sub-multiset of the selected: " << where.str();
          EXPECT_EQ(got.size(), written) << where.str();
        } else {
          EXPECT_TRUE(compare_exact(got, std::vector<std::int64_t>(want.out.begin(), want.out.begin() + written)))
              << where.str();
        }
        if (compaction && !req.in_place) {  // nothing past what was kept or the capacity
          std::vector<std::int64_t> rest(out.begin() + written, out.end()), poisoned(rest.size());
          poison(poisoned);
          EXPECT_TRUE(compare_exact(rest, poisoned)) << "written past the end: " << where.str();
        }
        if (kind == select_kind::split_and_segment) {
          EXPECT_TRUE(compare_exact(heads_out, want.heads_out)) << "heads: " << where.str();
        }
      }
    }
  }
}

}  // namespace streamscan_test

#define STREAMSCAN_SELECT_TESTS(Suite, Backend)                                                             \
  TEST(Suite, select_if) { streamscan_test::check_select<Backend>(streamscan_test::select_kind::select_if, #Suite "if"); } \
  TEST(Suite, select_flagged) {                                                                             \
    streamscan_test::check_select<Backend>(streamscan_test::select_kind::select_flagged, #Suite "fl");      \
  }                                                                                                         \
  TEST(Suite, select_indices) {                                                                             \
    streamscan_test::check_select<Backend>(streamscan_test::select_kind::select_indices, #Suite "ix");      \
  }                                                                                                         \
  TEST(Suite, partition) { streamscan_test::check_select<Backend>(streamscan_test::select_kind::partition, #Suite "p"); } \
  TEST(Suite, partition_pairs) {                                                                            \
    streamscan_test::check_select<Backend>(streamscan_test::select_kind::partition_pairs, #Suite "pp");     \
  }                                                                                                         \
  TEST(Suite, stable_partition) {                                                                           \
    streamscan_test::check_select<Backend>(streamscan_test::select_kind::stable_partition, #Suite "sp");    \
  }                                                                                                         \
  TEST(Suite, stable_partition_pairs) {                                                                     \
    streamscan_test::check_select<Backend>(streamscan_test::select_kind::stable_partition_pairs, #Suite "spp"); \
  }                                                                                                         \
  TEST(Suite, split) { streamscan_test::check_select<Backend>(streamscan_test::select_kind::split, #Suite "s"); } \
  TEST(Suite, split_and_segment) {                                                                          \
    streamscan_test::check_select<Backend>(streamscan_test::select_kind::split_and_segment, #Suite "ss");   \
  }
