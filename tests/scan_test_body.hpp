// Test bodies of the device-wide scans, shared by every back end.
//
// A back end adapter (cpu_backend.hpp, cuda_backend.cuh) provides:
//   name, available(), strategies(), tile_items<A>(strategy), many_tiles, large_size,
//   run(request, in, out, op, init)  // out arrives poisoned, sized n
// Each test TU stamps the tests out with STREAMSCAN_SCAN_TESTS(suite, backend, cases).
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

#include <streamscan/accumulator.hpp>
#include <streamscan/scan_options.hpp>

#include "common/backend_fixture.hpp"
#include "common/compare.hpp"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace streamscan_test {

template <class In, class Out, class Op>
struct scan_case {
  using in_t = In;
  using out_t = Out;
  using op_t = Op;
};

// The cases every back end runs: integer widening, the plain integer and
// floating-point types, min/max, 16-byte structs, non-commutative operators.
using all_scan_cases = ::testing::Types<
    scan_case<std::int8_t, std::int64_t, streamscan::plus>,      // accumulate int8 in int64
    scan_case<std::uint8_t, std::uint64_t, streamscan::plus>,    // ... and uint8 in uint64
    scan_case<std::int32_t, std::int32_t, streamscan::plus>,
    scan_case<std::int32_t, std::int32_t, streamscan::maximum>,
    scan_case<std::int32_t, std::int32_t, streamscan::minimum>,
    scan_case<std::int32_t, std::int32_t, take_right>,           // non-commutative scalar
    scan_case<std::uint32_t, std::uint32_t, streamscan::plus>,
    scan_case<std::int64_t, std::int64_t, streamscan::plus>,
    scan_case<float, float, streamscan::plus>,
    scan_case<double, double, streamscan::plus>,
    scan_case<vec4i, vec4i, vec4i_plus>,                         // 16-byte struct
    scan_case<mat2u, mat2u, mat2u_product>>;                     // 16-byte, non-commutative

struct run_request {
  scan_kind kind;
  streamscan::scan_strategy strategy;
  bool two_phase;      // else the convenience (allocating) form
  bool in_place;       // out == in
  bool wrapped_input;  // an iterator, not a raw pointer
  bool write_only_output = false;  // an output iterator without a value type
};

inline std::string describe(const run_request& r, std::int64_t n) {
  std::ostringstream os;
  os << "seed=" << global_seed() << " (STREAMSCAN_TEST_SEED to replay) n=" << n << " " << to_string(r.kind)
     << " strategy=" << streamscan::to_string(r.strategy) << (r.two_phase ? " two-phase" : " convenience")
     << (r.in_place ? " in-place" : "") << (r.wrapped_input ? " iterator-input" : "")
     << (r.write_only_output ? " write-only-output" : "");
  return os.str();
}

template <class Backend, class A>
std::vector<std::int64_t> test_sizes(std::mt19937_64& rng, streamscan::scan_strategy strategy) {
  const std::int64_t t = Backend::template tile_items<A>(strategy);
  std::uniform_int_distribution<std::int64_t> some_tiles(2 * t, 64 * t);
  std::uniform_int_distribution<std::int64_t> large(Backend::large_size / 2, Backend::large_size);
  std::vector<std::int64_t> sizes = {0, 1, 31, 32, 33, t - 1, t, t + 1, Backend::many_tiles * t + 5,
                                     some_tiles(rng), large(rng)};
  // The first window of tiles ends with the last tile, or one more tile follows it
  // (the GPU's grouped look-back, the walk of every plain scan).
  if (const std::int64_t w = Backend::look_back_window; w > 0) {
    sizes.push_back(w * t);
    sizes.push_back(w * t + 1);
  }
  // STREAMSCAN_TEST_MAX_N caps the sizes (for runs under compute-sanitizer).
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N")) {
    const std::int64_t max_n = std::strtoll(cap, nullptr, 10);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n > max_n; }), sizes.end());
  }
  return sizes;
}

template <class Backend, class Case>
void check_scan(scan_kind kind, bool in_place, bool wrapped_input, bool write_only_output = false) {
  using In = typename Case::in_t;
  using Out = typename Case::out_t;
  using Op = typename Case::op_t;
  using A = streamscan::accumulator_t<Op, const In*, Out*>;
  static_assert(std::is_same_v<A, Out>, "accumulator rule: a pointer output's value type");
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto rng = make_rng(std::string(info->test_suite_name()) + "." + info->name());
  int call = 0;
  for (const auto strategy : Backend::strategies()) {
    // scan_then_add reads its output back; with a write-only output it must
    // refuse (tested in test_errors_*), so only the other strategies run here.
    if (write_only_output && strategy == streamscan::scan_strategy::scan_then_add) continue;
    for (const std::int64_t n : test_sizes<Backend, A>(rng, strategy)) {
      const run_request req{kind, strategy, (call++ % 2) == 0, in_place, wrapped_input, write_only_output};
      SCOPED_TRACE(describe(req, n));
      const std::vector<In> in = random_vector<In>(rng, n);
      const Out init = random_init<Out>(rng);
      std::vector<Out> out(static_cast<std::size_t>(n));
      poison(out);
      Backend::run(req, in, out, Op{}, init);
      if constexpr (std::is_floating_point_v<Out>) {
        const std::vector<double> in_d(in.begin(), in.end());
        const double init_d = kind == scan_kind::inclusive ? 0.0 : static_cast<double>(init);
        const auto exact = oracle_scan<double>(in_d, Op{}, kind, init_d);
        const auto bound = float_error_scale(in, exact, init_d < 0 ? -init_d : init_d);
        ASSERT_TRUE(compare_float(out, exact, bound));
      } else {
        ASSERT_TRUE(compare_exact(out, oracle_scan<A>(in, Op{}, kind, static_cast<A>(init))));
      }
    }
  }
}

}  // namespace streamscan_test

// Stamps out the scan tests of one back end over a list of cases.
#define STREAMSCAN_SCAN_TESTS(Suite, Backend, Cases)                                                 \
  template <class Case>                                                                              \
  class Suite : public streamscan_test::backend_typed_test<Backend, Case> {};                        \
  TYPED_TEST_SUITE(Suite, Cases);                                                                    \
  TYPED_TEST(Suite, inclusive) {                                                                     \
    streamscan_test::check_scan<Backend, TypeParam>(streamscan_test::scan_kind::inclusive, false, false); \
  }                                                                                                  \
  TYPED_TEST(Suite, inclusive_init) {                                                                \
    streamscan_test::check_scan<Backend, TypeParam>(streamscan_test::scan_kind::inclusive_init, false, false); \
  }                                                                                                  \
  TYPED_TEST(Suite, exclusive) {                                                                     \
    streamscan_test::check_scan<Backend, TypeParam>(streamscan_test::scan_kind::exclusive, false, false); \
  }                                                                                                  \
  TYPED_TEST(Suite, iterator_input) {                                                                \
    streamscan_test::check_scan<Backend, TypeParam>(streamscan_test::scan_kind::inclusive_init, false, true); \
  }                                                                                                  \
  TYPED_TEST(Suite, write_only_output) {                                                             \
    streamscan_test::check_scan<Backend, TypeParam>(streamscan_test::scan_kind::exclusive, false, false, true); \
  }                                                                                                  \
  TYPED_TEST(Suite, in_place) {                                                                      \
    using C = TypeParam;                                                                             \
    if constexpr (!std::is_same_v<typename C::in_t, typename C::out_t>) {                            \
      GTEST_SKIP() << "in-place needs the same input and output type";                               \
    } else {                                                                                         \
      streamscan_test::check_scan<Backend, C>(streamscan_test::scan_kind::inclusive, true, false);   \
      streamscan_test::check_scan<Backend, C>(streamscan_test::scan_kind::exclusive, true, false);   \
    }                                                                                                \
  }
