// Test bodies of the batched tridiagonal solver, shared by every back end. The
// oracle is the Thomas algorithm in double on the host; a result is right when
// it is within a bound of the oracle's and its residual is small, for random
// diagonally dominant systems.
//
// A back end adapter provides name, gpu, available() and
//   run_tridiagonal<T>(const host_tridiagonal<T>& a, const std::vector<T>& b,
//                      std::vector<T>& x (in: poison; out: copied back whether
//                      the call failed or not), tridiagonal_options, form,
//                      null_arg, in_place, std::int64_t* zero_pivot_at) -> status
// in_place: x is b's buffer (b's values are the right-hand side); zero_pivot_at
// (GPU, unchecked) receives the word options.zero_pivot_at points to.
// Each test TU stamps the tests out with STREAMSCAN_TRIDIAGONAL_TESTS(suite, backend).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include <streamscan/status.hpp>
#include <streamscan/tridiagonal.hpp>

#include "common/backend_fixture.hpp"
#include "common/random.hpp"

namespace streamscan_test {

// The systems, in their layout, on the host.
template <class T>
struct host_tridiagonal {
  streamscan::tridiagonal_view<T> shape;  // pointers unused
  std::vector<T> lower, diagonal, upper;  // the matrix's extent
  std::int64_t matrix_at(std::int64_t s, std::int64_t i) const {
    return shape.layout == streamscan::tridiagonal_layout::interleaved ? i * shape.batch_count + s
                                                                       : s * shape.batch_stride + i;
  }
  std::int64_t rhs_stride() const {
    return shape.rhs_stride != 0 ? shape.rhs_stride : static_cast<std::int64_t>(lower.size());
  }
  std::int64_t rhs_extent() const {
    return lower.empty() || shape.rhs_count == 0 ? 0
                                                : (shape.rhs_count - 1) * rhs_stride() + static_cast<std::int64_t>(lower.size());
  }
};

enum class tridiagonal_form { two_phase, convenience };
enum class tridiagonal_null { none, lower, diagonal, upper, b, x };

template <class T>
T poison_value() {
  return T(-7777.25);
}

// Random diagonally dominant systems: |diagonal| >= dominance (|lower| + |upper|),
// the signs random. Elements outside the systems (gaps) hold poison.
template <class T>
host_tridiagonal<T> random_tridiagonal(std::mt19937_64& rng, std::int64_t n, std::int64_t batch,
                                       streamscan::tridiagonal_layout layout, std::int64_t gap = 0,
                                       std::int64_t rhs_count = 1, std::int64_t rhs_gap = 0, double dominance = 1.5) {
  host_tridiagonal<T> a;
  a.shape.n = n;
  a.shape.batch_count = batch;
  a.shape.layout = layout;
  a.shape.batch_stride = layout == streamscan::tridiagonal_layout::strided ? n + gap : 0;
  a.shape.rhs_count = rhs_count;
  const std::int64_t extent = n == 0 || batch == 0 ? 0
                              : layout == streamscan::tridiagonal_layout::interleaved ? n * batch
                                                                                        : (batch - 1) * (n + gap) + n;
  a.shape.rhs_stride = rhs_gap == 0 ? 0 : extent + rhs_gap;
  a.lower.assign(static_cast<std::size_t>(extent), poison_value<T>());
  a.diagonal = a.upper = a.lower;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto at = static_cast<std::size_t>(a.matrix_at(s, i));
      const double l = u(rng), up = u(rng);
      // lower[0] and upper[n-1] are ignored: give them junk that would show.
      a.lower[at] = static_cast<T>(i == 0 ? 1e6 : l);
      a.upper[at] = static_cast<T>(i + 1 == n ? -1e6 : up);
      const double off = (i == 0 ? 0 : std::fabs(l)) + (i + 1 == n ? 0 : std::fabs(up));
      const double d = dominance * off + 0.25 + 0.75 * std::fabs(u(rng));
      a.diagonal[at] = static_cast<T>(u(rng) < 0 ? -d : d);
    }
  return a;
}

template <class T>
std::vector<T> random_rhs(std::mt19937_64& rng, const host_tridiagonal<T>& a) {
  std::vector<T> b(static_cast<std::size_t>(a.rhs_extent()), poison_value<T>());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t r = 0; r < a.shape.rhs_count; ++r)
    for (std::int64_t s = 0; s < a.shape.batch_count; ++s)
      for (std::int64_t i = 0; i < a.shape.n; ++i)
        b[static_cast<std::size_t>(r * a.rhs_stride() + a.matrix_at(s, i))] = static_cast<T>(u(rng));
  return b;
}

// The oracle: Thomas in double, system by system; checks x (and that the
// elements outside the systems still hold poison).
template <class T>
void expect_tridiagonal_result(const host_tridiagonal<T>& a, const std::vector<T>& b, const std::vector<T>& x,
                               const std::string& what) {
  ASSERT_EQ(x.size(), b.size()) << what;
  const std::int64_t n = a.shape.n;
  const double eps = std::numeric_limits<T>::epsilon();
  std::vector<bool> inside(x.size(), false);
  std::vector<double> c(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < a.shape.rhs_count; ++r)
    for (std::int64_t s = 0; s < a.shape.batch_count; ++s) {
      auto m = [&](std::int64_t i) { return static_cast<std::size_t>(a.matrix_at(s, i)); };
      auto v = [&](std::int64_t i) { return static_cast<std::size_t>(r * a.rhs_stride() + a.matrix_at(s, i)); };
      for (std::int64_t i = 0; i < n; ++i) {
        const double l = i == 0 ? 0.0 : double(a.lower[m(i)]);
        const double p = double(a.diagonal[m(i)]) - l * (i == 0 ? 0.0 : c[i - 1]);
        c[i] = i + 1 < n ? double(a.upper[m(i)]) / p : 0.0;
        y[i] = (double(b[v(i)]) - l * (i == 0 ? 0.0 : y[i - 1])) / p;
      }
      for (std::int64_t i = n - 2; i >= 0; --i) y[i] -= c[i] * y[i + 1];
      double scale = 0;
      for (std::int64_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(y[i]));
      const double bound = 64 * eps * std::log2(double(n) + 2) * (scale + 1);
      for (std::int64_t i = 0; i < n; ++i) {
        inside[v(i)] = true;
        if (!(std::fabs(double(x[v(i)]) - y[i]) <= bound)) {
          ADD_FAILURE() << what << ": system " << s << " rhs " << r << " row " << i << " of " << n << ": got "
                        << x[v(i)] << ", expected " << y[i] << " (bound " << bound << "); seed " << global_seed();
          return;
        }
      }
      // The residual of what came back, as a user would check it.
      double residual = 0, size = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        double ax = double(a.diagonal[m(i)]) * double(x[v(i)]);
        if (i > 0) ax += double(a.lower[m(i)]) * double(x[v(i - 1)]);
        if (i + 1 < n) ax += double(a.upper[m(i)]) * double(x[v(i + 1)]);
        residual = std::max(residual, std::fabs(ax - double(b[v(i)])));
        size = std::max(size, std::fabs(double(b[v(i)])));
      }
      if (!(residual <= 64 * eps * std::log2(double(n) + 2) * (size + scale) * 4)) {
        ADD_FAILURE() << what << ": system " << s << " rhs " << r << ": residual " << residual << "; seed "
                      << global_seed();
        return;
      }
    }
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!inside[k] && !(x[k] == poison_value<T>())) {
      ADD_FAILURE() << what << ": element " << k << " outside every system was written";
      return;
    }
}

inline std::vector<streamscan::tridiagonal_strategy> tridiagonal_strategies(std::int64_t n, bool gpu) {
  using S = streamscan::tridiagonal_strategy;
  if (!gpu) return {S::automatic, S::cyclic_reduction};
  std::vector<S> v = {S::automatic, S::partitioned, S::thomas};
  if (n <= 2048) v.insert(v.end(), {S::cyclic_reduction, S::parallel_cyclic_reduction, S::hybrid, S::thomas_pcr});
  return v;
}

template <class Backend, class T>
void run_and_check(const host_tridiagonal<T>& a, const std::vector<T>& b, streamscan::tridiagonal_options opt,
                   tridiagonal_form form, bool in_place, const std::string& what) {
  std::vector<T> x = in_place ? b : std::vector<T>(b.size(), poison_value<T>());
  const streamscan::status s = Backend::run_tridiagonal(a, b, x, opt, form, tridiagonal_null::none, in_place, nullptr);
  ASSERT_TRUE(s.is_ok()) << what << ": " << s.message();
  if (in_place)  // the gaps of an in-place x hold b's poison as well
    expect_tridiagonal_result(a, b, x, what + " in place");
  else
    expect_tridiagonal_result(a, b, x, what);
}

template <class Backend, class T>
void check_tridiagonal_sizes() {
  using L = streamscan::tridiagonal_layout;
  auto rng = make_rng(std::string("tridiagonal.sizes.") + Backend::name + typeid(T).name());
  std::vector<std::int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 64, 100, 127, 128, 129, 511, 512, 1023,
                                     1024, 1025, 2047, 2048, 2049, 3000, 5000};
  sizes.push_back(20000 + static_cast<std::int64_t>(rng() % 50000));
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N"))  // runs under compute-sanitizer
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n > std::atoll(cap); }),
                sizes.end());
  for (const std::int64_t n : sizes) {
    const std::int64_t batch = n >= 2048 ? 1 + static_cast<std::int64_t>(rng() % 3) : 1 + static_cast<std::int64_t>(rng() % 40);
    for (const L layout : {L::strided, L::interleaved}) {
      const std::int64_t gap = layout == L::strided && rng() % 2 ? 3 : 0;
      const auto a = random_tridiagonal<T>(rng, n, batch, layout, gap);
      const auto b = random_rhs(rng, a);
      for (const auto strategy : tridiagonal_strategies(n, Backend::gpu)) {
        streamscan::tridiagonal_options opt;
        opt.strategy = strategy;
        opt.checked = Backend::gpu && rng() % 4 == 0;
        const auto form = rng() % 3 == 0 ? tridiagonal_form::convenience : tridiagonal_form::two_phase;
        const bool in_place = rng() % 3 == 0;
        run_and_check<Backend>(a, b, opt, form, in_place,
                               std::string(Backend::name) + " n " + std::to_string(n) + " batch " +
                                   std::to_string(batch) + " " + streamscan::to_string(layout) + " gap " +
                                   std::to_string(gap) + " " + streamscan::to_string(strategy) +
                                   (opt.checked ? " checked" : "") +
                                   (form == tridiagonal_form::convenience ? " convenience" : ""));
      }
    }
  }
}

// Many small systems, several right-hand sides, and a system of millions of
// rows (the partitioned method nested twice on the GPU).
template <class Backend, class T>
void check_tridiagonal_batches() {
  using L = streamscan::tridiagonal_layout;
  auto rng = make_rng(std::string("tridiagonal.batches.") + Backend::name + typeid(T).name());
  std::int64_t big = (std::int64_t{1} << 21) + 5 + static_cast<std::int64_t>(rng() % 100000);
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N")) big = std::min<std::int64_t>(big, std::atoll(cap));
  struct shape {
    std::int64_t n, batch, rhs;
    L layout;
    std::int64_t rhs_gap;
  };
  const shape shapes[] = {{16, 20000, 1, L::interleaved, 0}, {16, 20000, 1, L::strided, 0},
                          {300, 50, 3, L::strided, 0},        {300, 50, 3, L::interleaved, 11},
                          {5000, 2, 2, L::strided, 7},        {big, 1, 1, L::strided, 0}};
  for (const shape& sh : shapes) {
    const auto a = random_tridiagonal<T>(rng, sh.n, sh.batch, sh.layout, 0, sh.rhs, sh.rhs_gap);
    const auto b = random_rhs(rng, a);
    std::vector<streamscan::tridiagonal_strategy> strategies = {streamscan::tridiagonal_strategy::automatic};
    if (Backend::gpu && sh.rhs > 1) strategies = tridiagonal_strategies(sh.n, true);
    for (const auto strategy : strategies) {
      streamscan::tridiagonal_options opt;
      opt.strategy = strategy;
      run_and_check<Backend>(a, b, opt, tridiagonal_form::two_phase, false,
                             std::string(Backend::name) + " n " + std::to_string(sh.n) + " batch " +
                                 std::to_string(sh.batch) + " rhs " + std::to_string(sh.rhs) + " " +
                                 streamscan::to_string(sh.layout) + " " + streamscan::to_string(strategy));
    }
  }
  // Nothing to solve: every size 0, and all right-hand sides 0.
  for (const auto& [n, batch] : {std::pair<std::int64_t, std::int64_t>{0, 5}, {5, 0}, {0, 0}}) {
    const auto a = random_tridiagonal<T>(rng, n, batch, L::strided);
    std::vector<T> x;
    const auto s = Backend::run_tridiagonal(a, std::vector<T>{}, x, {}, tridiagonal_form::two_phase,
                                            tridiagonal_null::none, false, nullptr);
    EXPECT_TRUE(s.is_ok()) << "n " << n << " batch " << batch << ": " << s.message();
  }
}

// Bad input: an error naming the argument, and x exactly as it was.
template <class Backend, class T>
void check_tridiagonal_errors() {
  namespace ss = streamscan;
  using L = ss::tridiagonal_layout;
  auto rng = make_rng(std::string("tridiagonal.errors.") + Backend::name + typeid(T).name());
  const auto good = random_tridiagonal<T>(rng, 100, 6, L::strided);
  const auto b = random_rhs(rng, good);
  auto expect_error = [&](const host_tridiagonal<T>& a, ss::tridiagonal_options opt, tridiagonal_null null_arg,
                          ss::errc code, const char* needle) {
    std::vector<T> x(b.size(), poison_value<T>());
    const ss::status s = Backend::run_tridiagonal(a, b, x, opt, tridiagonal_form::two_phase, null_arg, false, nullptr);
    EXPECT_EQ(s.code(), code) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
    for (const T v : x)
      if (!(v == poison_value<T>())) {
        ADD_FAILURE() << needle << ": x was written";
        break;
      }
  };
  const ss::errc invalid = ss::errc::invalid_argument;
  expect_error(good, {}, tridiagonal_null::lower, invalid, "'A.lower' is a null pointer");
  expect_error(good, {}, tridiagonal_null::diagonal, invalid, "'A.diagonal' is a null pointer");
  expect_error(good, {}, tridiagonal_null::upper, invalid, "'A.upper' is a null pointer");
  expect_error(good, {}, tridiagonal_null::b, invalid, "'b' is a null pointer");
  expect_error(good, {}, tridiagonal_null::x, invalid, "'x' is a null pointer");
  auto broken = good;
  broken.shape.n = -3;
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.n' is negative");
  broken = good;
  broken.shape.batch_count = -1;
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.batch_count' is negative");
  broken = good;
  broken.shape.rhs_count = -2;
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.rhs_count' is negative");
  broken = good;
  broken.shape.batch_stride = 99;
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.batch_stride' (99) is less than A.n");
  if (Backend::gpu) {
    auto big = random_tridiagonal<T>(rng, 3000, 1, L::strided);
    const auto bb = random_rhs(rng, big);
    std::vector<T> x(bb.size(), poison_value<T>());
    ss::tridiagonal_options opt;
    opt.strategy = ss::tridiagonal_strategy::cyclic_reduction;
    const ss::status s = Backend::run_tridiagonal(big, bb, x, opt, tridiagonal_form::two_phase, tridiagonal_null::none,
                                                  false, nullptr);
    EXPECT_EQ(s.code(), invalid) << s.message();
    EXPECT_NE(s.message().find("'options.strategy' (cyclic_reduction)"), std::string::npos) << s.message();
  }

  // A zero pivot: system 3 of 6 is all zeros (singular for every method);
  // another batch has a NaN on the diagonal of system 1.
  for (int variant = 0; variant < 2; ++variant) {
    auto singular = good;
    const std::int64_t bad_system = variant == 0 ? 3 : 1;
    for (std::int64_t i = 0; i < singular.shape.n; ++i) {
      const auto at = static_cast<std::size_t>(singular.matrix_at(bad_system, i));
      if (variant == 0)
        singular.lower[at] = singular.diagonal[at] = singular.upper[at] = T(0);
      else if (i == 40)
        singular.diagonal[at] = std::numeric_limits<T>::quiet_NaN();
    }
    const std::string needle = "in system " + std::to_string(bad_system);
    for (const auto strategy : tridiagonal_strategies(singular.shape.n, Backend::gpu)) {
      ss::tridiagonal_options opt;
      opt.strategy = strategy;
      opt.checked = true;
      expect_error(singular, opt, tridiagonal_null::none, ss::errc::zero_pivot, needle.c_str());
      if (Backend::gpu) {  // unchecked: the lowest failed system in options.zero_pivot_at
        std::vector<T> x(b.size(), poison_value<T>());
        std::int64_t at = -5;
        opt.checked = false;
        const ss::status s = Backend::run_tridiagonal(singular, b, x, opt, tridiagonal_form::two_phase,
                                                      tridiagonal_null::none, false, &at);
        EXPECT_TRUE(s.is_ok()) << s.message();
        EXPECT_EQ(at, bad_system) << ss::to_string(strategy);
      }
    }
  }
  if (Backend::gpu) {  // and -1 when every pivot was fine
    std::vector<T> x(b.size(), poison_value<T>());
    std::int64_t at = -5;
    const ss::status s = Backend::run_tridiagonal(good, b, x, {}, tridiagonal_form::two_phase, tridiagonal_null::none,
                                                  false, &at);
    EXPECT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(at, -1);
    expect_tridiagonal_result(good, b, x, "zero_pivot_at set, all good");
  }
}

}  // namespace streamscan_test

#define STREAMSCAN_TRIDIAGONAL_TESTS(Suite, Backend)                                                         \
  template <class T>                                                                                         \
  class Suite : public streamscan_test::backend_typed_test<Backend, T> {};                                   \
  using Suite##_types = ::testing::Types<float, double>;                                                     \
  TYPED_TEST_SUITE(Suite, Suite##_types);                                                                    \
  TYPED_TEST(Suite, sizes_layouts_strategies) { streamscan_test::check_tridiagonal_sizes<Backend, TypeParam>(); } \
  TYPED_TEST(Suite, batches_and_right_hand_sides) {                                                          \
    streamscan_test::check_tridiagonal_batches<Backend, TypeParam>();                                        \
  }                                                                                                          \
  TYPED_TEST(Suite, bad_input) { streamscan_test::check_tridiagonal_errors<Backend, TypeParam>(); }
