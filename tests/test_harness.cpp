// The harness itself must be able to fail: the comparisons catch a poisoned
// (unwritten) element, an order mistake and an out-of-tolerance float; the
// accumulator rule picks the documented types.
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <ostream>
#include <vector>

#include <streamscan/accumulator.hpp>
#include <streamscan/operators.hpp>

#include "common/compare.hpp"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace {
namespace st = streamscan_test;

TEST(harness, exact_comparison_catches_an_unwritten_element) {
  auto rng = st::make_rng("harness1");
  const auto in = st::random_vector<std::int32_t>(rng, 1000);
  const auto expected = st::oracle_scan<std::int32_t>(in, streamscan::plus{}, st::scan_kind::inclusive, 0);
  std::vector<std::int32_t> got = expected;
  EXPECT_TRUE(st::compare_exact(got, expected));
  std::memset(&got[517], st::poison_byte, sizeof(std::int32_t));
  EXPECT_FALSE(st::compare_exact(got, expected));
}

TEST(harness, noncommutative_operator_detects_order) {
  auto rng = st::make_rng("harness2");
  const auto in = st::random_vector<st::mat2u>(rng, 64);
  const auto forward = st::oracle_scan<st::mat2u>(in, st::mat2u_product{}, st::scan_kind::inclusive, {});
  auto swapped = [](const st::mat2u& a, const st::mat2u& b) { return st::mat2u_product{}(b, a); };
  const auto reversed = st::oracle_scan<st::mat2u>(in, swapped, st::scan_kind::inclusive, {});
  EXPECT_FALSE(st::compare_exact(reversed, forward));
}

TEST(harness, float_tolerance_rejects_a_missing_term) {
  auto rng = st::make_rng("harness3");
  const auto in = st::random_vector<float>(rng, 100000);
  const std::vector<double> in_d(in.begin(), in.end());
  const auto exact = st::oracle_scan<double>(in_d, streamscan::plus{}, st::scan_kind::inclusive, 0.0);
  const auto bound = st::float_error_scale(in, exact, 0.0);
  std::vector<float> got(exact.begin(), exact.end());
  EXPECT_TRUE(st::compare_float(got, exact, bound));
  std::size_t k = 50000;
  while (std::fabs(in[k]) < 0.5f) ++k;  // a term of typical size
  for (std::size_t i = k; i < got.size(); ++i) got[i] -= in[k];  // drop it
  EXPECT_FALSE(st::compare_float(got, exact, bound));
}

TEST(harness, accumulator_rule) {
  using streamscan::accumulator_t;
  using streamscan::plus;
  static_assert(std::is_same_v<accumulator_t<plus, const std::uint8_t*, std::uint64_t*>, std::uint64_t>);
  static_assert(std::is_same_v<accumulator_t<plus, const std::int8_t*, std::int64_t*>, std::int64_t>);
  // No output value type: the init's type, else op's result type.
  using sink = std::ostream_iterator<int>;
  static_assert(std::is_same_v<accumulator_t<plus, const std::uint8_t*, sink, std::int64_t>, std::int64_t>);
  static_assert(std::is_same_v<accumulator_t<plus, const float*, sink>, float>);
  SUCCEED();
}

}  // namespace
