// Test bodies of the segmented and backward scans, enumerate and distribute,
// shared by every back end.
//
// A back end adapter provides, besides what scan_test_body.hpp asks:
//   run_segmented(seg_request, in, flags, bits, offsets, out, op, init)
//     out arrives poisoned, sized n; flags/bits/offsets describe the same segments.
// Each test TU stamps the tests out with STREAMSCAN_SEGMENTED_TESTS(suite, backend).
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

#include <streamscan/detail/segmented_scan.hpp>
#include <streamscan/segmented.hpp>

#include "common/compare.hpp"
#include "common/segmented_oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace streamscan_test {


inline std::string describe(const seg_request& r, std::int64_t n, double mean) {
  std::ostringstream os;
  os << "seed=" << global_seed() << " n=" << n << " mean segment " << mean << " " << to_string(r.kind) << " "
     << to_string(r.form) << " " << streamscan::to_string(r.direction) << " "
     << streamscan::to_string(r.strategy) << (r.in_place ? " in-place" : "") << (r.policy ? " policy " : "")
     << (r.policy ? r.policy : "") << (r.offset ? " offset " + std::to_string(r.offset) : "");
  return os.str();
}

// What one run of check_segmented_plan covers.
struct seg_plan {
  std::vector<std::int64_t> sizes;
  std::vector<streamscan::scan_strategy> strategies;
  const char* policy = nullptr;
  int offset = 0;
};

// Every size x strategy x description x direction against the oracle, with a
// random mean segment length per size; odd sizes run in place.
template <class Backend, class A, class Op>
void check_segmented_plan(std::mt19937_64& rng, seg_kind kind, Op op, seg_plan plan) {
  plan.sizes = capped(plan.sizes);
  const std::vector<double> means = {1, 4, 300, 1e12};
  for (const auto strategy : plan.strategies) {
    if (strategy == streamscan::scan_strategy::scan_then_add) continue;  // refused (tested apart)
    for (const std::int64_t n : plan.sizes) {
      const double mean = means[std::uniform_int_distribution<std::size_t>(0, means.size() - 1)(rng)];
      const segments_fixture segs = make_segments(rng, n, mean);
      for (const seg_form form : {seg_form::flags, seg_form::bits, seg_form::offsets}) {
        for (const auto dir : {streamscan::scan_direction::forward, streamscan::scan_direction::backward}) {
          const seg_request req{kind, form, dir, strategy, n % 2 == 1, plan.policy, plan.offset};
          std::vector<A> in = random_vector<A>(rng, n);
          A init = random_init<A>(rng);
          if constexpr (std::is_arithmetic_v<A>) {
            if (kind == seg_kind::enumerate) {  // 0/1 flags in, counts out
              for (auto& x : in) x = static_cast<A>(rng() % 2);
              init = A(0);
            }
          }
          std::vector<A> out(in.size());
          poison(out);
          Backend::run_segmented(req, in, segs, out, op, init);
          if (::testing::Test::HasFatalFailure()) return;
          const seg_kind oracle_kind = kind == seg_kind::enumerate ? seg_kind::exclusive : kind;
          EXPECT_TRUE(compare_exact(out, oracle_segmented<A>(in, segs.flags, op, oracle_kind, init, dir)))
              << describe(req, n, mean);
        }
      }
    }
  }
  // Plain scans through the segmented calls: one segment, no description,
  // both directions (the GPU runs its plain scan kernel, backward too).
  for (const std::int64_t n : plan.sizes) {
    if (kind == seg_kind::enumerate) continue;
    for (const auto dir : {streamscan::scan_direction::forward, streamscan::scan_direction::backward}) {
      const seg_request req{kind, seg_form::none, dir, streamscan::scan_strategy::automatic, false, plan.policy,
                            plan.offset};
      const std::vector<A> in = random_vector<A>(rng, n);
      const A init = random_init<A>(rng);
      std::vector<A> out(in.size());
      poison(out);
      Backend::run_segmented(req, in, segments_fixture{}, out, op, init);
      std::vector<unsigned char> one(in.size(), 0);
      EXPECT_TRUE(compare_exact(out, oracle_segmented<A>(in, one, op, kind, init, req.direction)))
          << describe(req, n, 0);
    }
  }
}

template <class Backend, class A, class Op>
void check_segmented(const char* test, seg_kind kind, Op op) {
  if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";
  auto rng = make_rng(test);
  // Tile edges of the general kernels (pairs through iterators: the
  // multi-pass tile) and of the GPU's dedicated kernel (its default shape).
  const std::int64_t t = Backend::template tile_items<streamscan::detail::seg_pair<A>>(
      streamscan::scan_strategy::reduce_then_scan);
  const std::int64_t d = Backend::template segmented_tile_items<A>();
  std::uniform_int_distribution<std::int64_t> large(Backend::large_size / 4, Backend::large_size / 2);
  std::vector<std::int64_t> sizes = {0, 1, 33, t - 1, t + 1, 3 * t + 5, large(rng)};
  if (d != t) sizes.insert(sizes.end(), {d - 1, d + 1, 3 * d + 5});
  check_segmented_plan<Backend, A>(rng, kind, op, seg_plan{sizes, Backend::strategies()});
}

// Bad arguments of the segmented scans, named before any work.
// call(segments, n, options) runs the back end's two-phase
// segmented_inclusive_scan over 16 int32 of its memory with temp given and
// returns the status; the caller checks that out was not written.
template <class Call>
void expect_segmented_argument_errors(Call call) {
  namespace ss = streamscan;
  const auto npos = std::string::npos;
  const ss::segmented_options plain{};
  EXPECT_NE(call(ss::head_flags(static_cast<const unsigned char*>(nullptr)), 16, plain).message().find(
                "argument 'segments' (head_flags) is a null pointer"),
            npos);
  EXPECT_NE(call(ss::head_bits(nullptr), 16, plain).message().find("argument 'segments' (head_bits) is a null pointer"),
            npos);
  EXPECT_NE(call(ss::segment_offsets<const std::int64_t*>{nullptr, 2}, 16, plain).message().find("null offsets pointer"),
            npos);
  EXPECT_NE(call(ss::segment_offsets<const std::int64_t*>{nullptr, -1}, 16, plain).message().find(
                "argument 'segments.num_segments' is negative (-1)"),
            npos);
  EXPECT_NE(call(ss::no_segments{}, -1, plain).message().find("argument 'n' is negative"), npos);
  ss::segmented_options opt;
  opt.scan.strategy = ss::scan_strategy::scan_then_add;
  EXPECT_NE(call(ss::no_segments{}, 16, opt).message().find("do not offer scan_then_add"), npos);
  opt = {};
  opt.direction = static_cast<ss::scan_direction>(7);
  EXPECT_NE(call(ss::no_segments{}, 16, opt).message().find("argument 'options.direction' is neither"), npos);
}

}  // namespace streamscan_test

#define STREAMSCAN_SEGMENTED_TESTS(Suite, Backend)                                                        \
  TEST(Suite, inclusive_int32) {                                                                          \
    streamscan_test::check_segmented<Backend, std::int32_t>(#Suite "i", streamscan_test::seg_kind::inclusive, \
                                                             streamscan::plus{});                          \
  }                                                                                                       \
  TEST(Suite, inclusive_init_mat2u_noncommutative) {                                                      \
    streamscan_test::check_segmented<Backend, streamscan_test::mat2u>(                                    \
        #Suite "ii", streamscan_test::seg_kind::inclusive_init, streamscan_test::mat2u_product{});        \
  }                                                                                                       \
  TEST(Suite, inclusive_mat2u_noncommutative) {                                                           \
    streamscan_test::check_segmented<Backend, streamscan_test::mat2u>(                                    \
        #Suite "im", streamscan_test::seg_kind::inclusive, streamscan_test::mat2u_product{});             \
  }                                                                                                       \
  TEST(Suite, exclusive_mat2u_noncommutative) {                                                           \
    streamscan_test::check_segmented<Backend, streamscan_test::mat2u>(                                    \
        #Suite "e", streamscan_test::seg_kind::exclusive, streamscan_test::mat2u_product{});              \
  }                                                                                                       \
  TEST(Suite, exclusive_int64) {                                                                          \
    streamscan_test::check_segmented<Backend, std::int64_t>(#Suite "e64", streamscan_test::seg_kind::exclusive, \
                                                             streamscan::plus{});                          \
  }                                                                                                       \
  TEST(Suite, enumerate) {                                                                                \
    streamscan_test::check_segmented<Backend, std::int32_t>(#Suite "n", streamscan_test::seg_kind::enumerate, \
                                                             streamscan::plus{});                          \
  }                                                                                                       \
  TEST(Suite, distribute_vec4i) {                                                                         \
    streamscan_test::check_segmented<Backend, streamscan_test::vec4i>(                                    \
        #Suite "d", streamscan_test::seg_kind::distribute, streamscan_test::vec4i_plus{});                \
  }
