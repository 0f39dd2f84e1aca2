// `streamscan verify`: every scan strategy and policy of one back end against
// the naive host oracle of the tests (tests/common/oracle.hpp), then every
// other primitive (verify_primitives.hpp).
//
// A Backend offers:
//   static const char* name;
//   std::vector<streamscan::scan_strategy> strategies();
//   std::vector<std::string> policies(scan_strategy, std::size_t value_bytes);
//   template <class A> std::int64_t tile_items(scan_strategy, const std::string& policy);
//   template <class A, class Op> std::string run(scan_kind, const std::vector<A>& in, std::vector<A>& out,
//                                                Op, A init, scan_strategy, const std::string& policy);
//     (returns an error message, empty on success)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <streamscan/operators.hpp>
#include <streamscan/scan_options.hpp>

#include "../tests/common/oracle.hpp"
#include "../tests/common/random.hpp"
#include "../tests/common/types.hpp"
#include "report.hpp"
#include "verify_primitives.hpp"

namespace streamscan_tool {

namespace verify_detail {
using streamscan_test::scan_kind;

inline const char* primitive_name(scan_kind k) {
  return k == scan_kind::inclusive ? "inclusive_scan" : k == scan_kind::inclusive_init ? "inclusive_scan_init"
                                                                                          : "exclusive_scan";
}

// Empty when equal (floats: within the rounding bound the tests use).
template <class A>
std::string compare(const std::vector<A>& in, const std::vector<A>& got, const std::vector<A>& expected,
                    scan_kind kind, const A& init) {
  if (got.size() != expected.size()) return "output size differs";
  if constexpr (std::is_floating_point_v<A>) {
    std::vector<double> exact(in.size());
    double acc = kind == scan_kind::inclusive ? 0.0 : static_cast<double>(init);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (kind == scan_kind::exclusive) {
        exact[i] = acc;
        acc += in[i];
      } else {
        exact[i] = acc += in[i];
      }
    }
    const auto scale = streamscan_test::float_error_scale(in, exact, std::fabs(static_cast<double>(init)));
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double tol = 2.0 * std::numeric_limits<A>::epsilon() * std::sqrt(i + 2.0) * scale[i] + 1e-30;
      if (!(std::fabs(static_cast<double>(got[i]) - exact[i]) <= tol)) {
        std::ostringstream os;
        os << "element " << i << ": got " << got[i] << ", expected " << exact[i] << " +- " << tol;
        return os.str();
      }
    }
    return {};
  } else {
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(got[i] == expected[i])) {
        std::ostringstream os;
        os << "element " << i << " of " << got.size() << ": got " << got[i] << ", expected " << expected[i];
        return os.str();
      }
    return {};
  }
}

struct tally {
  int runs = 0;
  std::string first_failure;
};

template <class Backend, class A, class Op>
void check_type(Backend& b, const char* type, Op op, scan_kind kind, streamscan::scan_strategy s,
                std::mt19937_64& rng, std::int64_t large, tally& t, progress& bar) {
  for (const std::string& policy : b.policies(s, sizeof(A))) {
    const std::int64_t tile = b.template tile_items<A>(s, policy);
    for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, tile - 1, tile, tile + 1, 3 * tile + 7, large}) {
      if (n < 0) continue;
      const std::vector<A> in = streamscan_test::random_vector<A>(rng, n);
      const A init = streamscan_test::random_init<A>(rng);
      std::vector<A> out(in.size());
      streamscan_test::poison(out);
      std::string why = b.run(kind, in, out, op, init, s, policy);
      if (why.empty()) why = compare(in, out, streamscan_test::oracle_scan<A>(in, op, kind, init), kind, init);
      ++t.runs;
      if (!why.empty() && t.first_failure.empty())
        t.first_failure = std::string(type) + ", policy " + policy + ", n = " + std::to_string(n) + ": " + why;
    }
  }
  bar.step(std::string(primitive_name(kind)) + " " + to_string(s) + " " + type);
}

}  // namespace verify_detail

// Prints one line per primitive and strategy; returns 0 when everything passed.
template <class Backend>
int run_verify(Backend& b, std::uint64_t seed, progress_mode progress_opt) {
  using namespace verify_detail;
  std::printf("verify: %s back end, seed %llu (replay with --seed %llu)\n", Backend::name,
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  std::printf("  types: int32 sum, uint64 sum (wrapping), float sum (rounding bound), 2x2 matrix product\n"
              "  (non-commutative); sizes 0, 1, tile-1, tile, tile+1, 3 tiles + 7 and a random large one,\n"
              "  for every policy of each strategy; outputs poisoned before each run.\n");
  std::mt19937_64 rng(seed);
  const auto strategies = b.strategies();
  progress bar(progress_opt, static_cast<int>(3 * strategies.size() * 4));
  int failed = 0;
  for (const scan_kind kind : {scan_kind::inclusive, scan_kind::inclusive_init, scan_kind::exclusive}) {
    for (const auto s : strategies) {
      tally t;
      const std::int64_t large = std::uniform_int_distribution<std::int64_t>(100000, 3000000)(rng);
      check_type<Backend, std::int32_t>(b, "int32", streamscan::plus{}, kind, s, rng, large, t, bar);
      check_type<Backend, std::uint64_t>(b, "uint64", streamscan::plus{}, kind, s, rng, large, t, bar);
      check_type<Backend, float>(b, "float", streamscan::plus{}, kind, s, rng, large, t, bar);
      check_type<Backend, streamscan_test::mat2u>(b, "mat2u", streamscan_test::mat2u_product{}, kind, s, rng, large,
                                                  t, bar);
      bar.done();
      const bool ok = t.first_failure.empty();
      failed += ok ? 0 : 1;
      std::printf("  %-20s %-20s %4d runs  %s%s\n", primitive_name(kind), to_string(s), t.runs, ok ? "pass" : "FAIL: ",
                  t.first_failure.c_str());
      std::fflush(stdout);
    }
  }
  std::printf("  the other primitives: int32 sums and the 2x2 matrix product; sorts of uint32, float and uint64\n"
              "  keys and uint32 pairs; SpMV in float and double; tridiagonal systems in float and double.\n");
  failed += verify_primitives(b, rng);
  std::printf("verify: %s\n", failed == 0 ? "all passed" : (std::to_string(failed) + " failed").c_str());
  return failed == 0 ? 0 : 1;
}

}  // namespace streamscan_tool
