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
#include <utility>
#include <vector>

#include <streamscan/status.hpp>
#include <streamscan/tridiagonal.hpp>
#include <streamscan/tuning/tridiagonal.hpp>

#include "common/backend_fixture.hpp"
#include "common/random.hpp"
#include "common/tridiagonal_oracle.hpp"
#include "common/tu_backend.hpp"

namespace streamscan_test {

enum class tridiagonal_form { two_phase, convenience };
enum class tridiagonal_null { none, lower, diagonal, upper, b, x };

template <class T>
void expect_tridiagonal(const host_tridiagonal<T>& a, const std::vector<T>& b, const std::vector<T>& x,
                        const std::string& what) {
  const std::string why = tridiagonal_mismatch(a, b, x);
  EXPECT_TRUE(why.empty()) << what << ": " << why << "; seed " << global_seed();
}

template <class Backend, class T>
void run_and_check(const host_tridiagonal<T>& a, const std::vector<T>& b, streamscan::tridiagonal_options opt,
                   tridiagonal_form form, bool in_place, const std::string& what) {
  std::vector<T> x = in_place ? b : std::vector<T>(b.size(), poison_value<T>());
  const streamscan::status s = Backend::run_tridiagonal(a, b, x, opt, form, tridiagonal_null::none, in_place, nullptr);
  ASSERT_TRUE(s.is_ok()) << what << ": " << s.message();
  if (in_place)  // the gaps of an in-place x hold b's poison as well
    expect_tridiagonal(a, b, x, what + " in place");
  else
    expect_tridiagonal(a, b, x, what);
}

template <class Backend, class T>
void check_tridiagonal_sizes() {
  using L = streamscan::tridiagonal_layout;
  auto rng = make_rng(std::string("tridiagonal.sizes.") + Backend::name + typeid(T).name());
  std::vector<std::int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 64, 100, 127, 128, 129, 511, 512, 1023,
                                     1024, 1025, 2047, 2048, 2049, 3000, 5000};
  sizes.push_back(20000 + static_cast<std::int64_t>(rng() % 50000));
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](std::int64_t n) { return n > test_size_cap(); }),
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

// warp_pcr (a warp a system, several a block) at the sizes where a lane's rows
// change (32, 64) and past its longest (which falls back), with a batch that
// leaves the last block partly empty; both layouts, one and two right-hand
// sides (the second right-hand side's systems continue the warp numbering).
template <class Backend, class T>
void check_tridiagonal_warp_systems() {
  using L = streamscan::tridiagonal_layout;
  auto rng = make_rng(std::string("tridiagonal.warp.") + Backend::name + typeid(T).name());
  const std::int64_t per_block = streamscan::tuning::tridiagonal_shape_for(sizeof(T)).warp_block_threads / 32;
  const std::int64_t batch = 5 * per_block + 3;
  for (const std::int64_t n : {1, 2, 31, 32, 33, 63, 64, 65})
    for (const L layout : {L::strided, L::interleaved})
      for (const std::int64_t rhs : {1, 2}) {
        const auto a = random_tridiagonal<T>(rng, n, batch, layout, layout == L::strided ? 3 : 0, rhs, 5);
        const auto b = random_rhs(rng, a);
        streamscan::tridiagonal_options opt;
        opt.strategy = streamscan::tridiagonal_strategy::warp_pcr;
        opt.checked = Backend::gpu && rhs == 2;
        run_and_check<Backend>(a, b, opt, tridiagonal_form::two_phase, n == 33,
                               std::string(Backend::name) + " warp_pcr n " + std::to_string(n) + " batch " +
                                   std::to_string(batch) + " rhs " + std::to_string(rhs) + " " +
                                   streamscan::to_string(layout) + (opt.checked ? " checked" : ""));
      }
  // A zero pivot in a system of the second block: reported as the block
  // solver reports it (checked: an error naming it; else options.zero_pivot_at).
  if (!Backend::gpu) return;
  auto singular = random_tridiagonal<T>(rng, 40, batch, L::strided);
  const std::int64_t bad_system = per_block + 2;
  for (std::int64_t i = 0; i < singular.shape.n; ++i) {
    const auto at = static_cast<std::size_t>(singular.matrix_at(bad_system, i));
    singular.lower[at] = singular.diagonal[at] = singular.upper[at] = T(0);
  }
  const auto b = random_rhs(rng, singular);
  streamscan::tridiagonal_options opt;
  opt.strategy = streamscan::tridiagonal_strategy::warp_pcr;
  for (const bool checked : {true, false}) {
    opt.checked = checked;
    std::vector<T> x(b.size(), poison_value<T>());
    std::int64_t at = -5;
    const streamscan::status s = Backend::run_tridiagonal(singular, b, x, opt, tridiagonal_form::two_phase,
                                                          tridiagonal_null::none, false, checked ? nullptr : &at);
    if (checked) {
      EXPECT_EQ(s.code(), streamscan::errc::zero_pivot) << s.message();
      EXPECT_NE(s.message().find("in system " + std::to_string(bad_system)), std::string::npos) << s.message();
    } else {
      EXPECT_TRUE(s.is_ok()) << s.message();
      EXPECT_EQ(at, bad_system);
    }
  }
}

// thomas on short systems (a thread each, its factors in shared memory): at
// the sizes around a slice's and a warp's rows and past the longest short
// system (which runs the global-memory thomas), batches that leave the last
// block partly full, strided rows packed and with gaps between systems (a gap
// of 3 leaves some systems' rows 16-byte aligned and others not, so both the
// vector and the row-by-row reads run, the vectors with a last partial slice),
// interleaved systems, one and two right-hand sides (the second's systems
// continue the block numbering, and their gap misaligns them); automatic,
// which takes it for many systems or systems of one slice; then a zero pivot
// in a system of the second block, checked and unchecked.
template <class Backend, class T>
void check_tridiagonal_short_systems() {
  namespace ss = streamscan;
  using L = ss::tridiagonal_layout;
  using S = ss::tridiagonal_strategy;
  auto rng = make_rng(std::string("tridiagonal.short.") + Backend::name + typeid(T).name());
  const auto shape = ss::tuning::tridiagonal_shape_for(sizeof(T));
  const std::int64_t per_block = shape.short_threads;
  const std::int64_t longest = shape.short_max_rows;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{7}, std::int64_t{31}, std::int64_t{32},
                               std::int64_t{33}, std::int64_t{63}, longest, longest + 1})
    for (const std::int64_t gap : {-1, 0, 3})  // -1: interleaved
      for (const std::int64_t rhs : {1, 2}) {
        const L layout = gap < 0 ? L::interleaved : L::strided;
        const std::int64_t g = gap < 0 ? 0 : gap;
        const std::int64_t batch = (rhs == 1 ? 5 : 2) * per_block + 3 + g;
        const auto a = random_tridiagonal<T>(rng, n, batch, layout, g, rhs, rhs == 2 && gap != 0 ? 5 : 0);
        const auto b = random_rhs(rng, a);
        ss::tridiagonal_options opt;
        opt.strategy = S::thomas;
        opt.checked = Backend::gpu && rhs == 2;
        run_and_check<Backend>(a, b, opt, tridiagonal_form::two_phase, n == 33 || n == 2,
                               std::string(Backend::name) + " short thomas n " + std::to_string(n) + " batch " +
                                   std::to_string(batch) + " " + ss::to_string(layout) + " gap " +
                                   std::to_string(g) + " rhs " + std::to_string(rhs) +
                                   (opt.checked ? " checked" : ""));
      }
  // automatic: from thomas_min_systems systems on, and systems of one slice.
  for (const auto& [n, batch] : {std::pair<std::int64_t, std::int64_t>{shape.short_slice_rows, 3},
                                 {longest / 2, shape.thomas_min_systems + 5}})
    for (const L layout : {L::strided, L::interleaved}) {
      if (n * batch > test_size_cap()) continue;
      const auto a = random_tridiagonal<T>(rng, n, batch, layout);
      const auto b = random_rhs(rng, a);
      ss::tridiagonal_options opt;
      opt.strategy = S::automatic;
      run_and_check<Backend>(a, b, opt, tridiagonal_form::two_phase, false,
                             std::string(Backend::name) + " short automatic n " + std::to_string(n) + " batch " +
                                 std::to_string(batch) + " " + ss::to_string(layout));
    }
  // A zero pivot in a system of the second block: reported as the global
  // thomas reports it (checked: an error naming it; else options.zero_pivot_at).
  if (!Backend::gpu) return;
  const std::int64_t batch = 3 * per_block + 1, bad_system = per_block + 2;
  for (const std::int64_t rhs : {1, 2}) {
    auto singular = random_tridiagonal<T>(rng, 40, batch, L::strided, 0, rhs);
    for (std::int64_t i = 0; i < singular.shape.n; ++i) {
      const auto at = static_cast<std::size_t>(singular.matrix_at(bad_system, i));
      singular.lower[at] = singular.diagonal[at] = singular.upper[at] = T(0);
    }
    const auto b = random_rhs(rng, singular);
    for (const S strategy : {S::thomas, S::automatic})
      for (const bool checked : {true, false}) {
        ss::tridiagonal_options opt;
        opt.strategy = strategy;
        opt.checked = checked;
        std::vector<T> x(b.size(), poison_value<T>());
        std::int64_t at = -5;
        const ss::status s = Backend::run_tridiagonal(singular, b, x, opt, tridiagonal_form::two_phase,
                                                      tridiagonal_null::none, false, checked ? nullptr : &at);
        const std::string what = std::string(ss::to_string(strategy)) + " rhs " + std::to_string(rhs);
        if (checked) {
          EXPECT_EQ(s.code(), ss::errc::zero_pivot) << what << ": " << s.message();
          EXPECT_NE(s.message().find("in system " + std::to_string(bad_system)), std::string::npos)
              << what << ": " << s.message();
        } else {
          EXPECT_TRUE(s.is_ok()) << what << ": " << s.message();
          EXPECT_EQ(at, bad_system) << what;
        }
      }
  }
}

// partitioned with thread chunks (a thread a chunk of thread_chunk_rows rows,
// where that gives thomas_min_systems chunks or more): systems whose last chunk
// has one row, a part of a chunk, or a whole chunk (no separator after it),
// strided rows packed and with a gap of 3 (misaligned vectors), interleaved
// systems, one and two right-hand sides, checked; automatic past
// max_block_rows rows. Under STREAMSCAN_TEST_MAX_N (the sanitizers) three of
// the cases (both layouts, one and two right-hand sides), whatever their size.
template <class Backend, class T>
void check_tridiagonal_thread_chunks() {
  namespace ss = streamscan;
  using L = ss::tridiagonal_layout;
  using S = ss::tridiagonal_strategy;
  auto rng = make_rng(std::string("tridiagonal.thread_chunks.") + Backend::name + typeid(T).name());
  const auto shape = ss::tuning::tridiagonal_shape_for(sizeof(T));
  const std::int64_t b = shape.thread_chunk_rows;
  if (b == 0) return;
  const bool few = std::getenv("STREAMSCAN_TEST_MAX_N") != nullptr;
  int case_number = 0;
  for (const std::int64_t n : {20 * b + 1, 20 * b + 37, 20 * b, std::int64_t{shape.max_block_rows} + 3})
    for (const std::int64_t gap : {-1, 0, 3})  // -1: interleaved
      for (const std::int64_t rhs : {1, 2}) {
        if (few && case_number++ % 9 != 0) continue;
        const L layout = gap < 0 ? L::interleaved : L::strided;
        const std::int64_t g = gap < 0 ? 0 : gap;
        const std::int64_t chunks = (n + b - 1) / b;
        const std::int64_t batch = (shape.thomas_min_systems + chunks - 1) / chunks / rhs + 3;
        const auto a = random_tridiagonal<T>(rng, n, batch, layout, g, rhs, rhs == 2 && gap != 0 ? 5 : 0);
        const auto x0 = random_rhs(rng, a);
        ss::tridiagonal_options opt;
        opt.strategy = n > shape.max_block_rows ? S::automatic : S::partitioned;
        opt.checked = Backend::gpu && rhs == 2;
        run_and_check<Backend>(a, x0, opt, tridiagonal_form::two_phase, false,
                               std::string(Backend::name) + " thread chunks " + ss::to_string(opt.strategy) + " n " +
                                   std::to_string(n) + " batch " + std::to_string(batch) + " " +
                                   ss::to_string(layout) + " gap " + std::to_string(g) + " rhs " +
                                   std::to_string(rhs) + (opt.checked ? " checked" : ""));
      }
}

// Many small systems, several right-hand sides, and a system of millions of
// rows (the partitioned method nested twice on the GPU).
template <class Backend, class T>
void check_tridiagonal_batches() {
  using L = streamscan::tridiagonal_layout;
  auto rng = make_rng(std::string("tridiagonal.batches.") + Backend::name + typeid(T).name());
  std::int64_t big = (std::int64_t{1} << 21) + 5 + static_cast<std::int64_t>(rng() % 100000);
  big = std::min(big, test_size_cap());
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
  broken = good;
  broken.shape.layout = static_cast<ss::tridiagonal_layout>(5);
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.layout' is not a layout");
  broken = good;
  broken.shape.rhs_stride = -4;
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.rhs_stride' is negative (-4)");
  broken = good;
  broken.shape.rhs_count = 2;
  broken.shape.rhs_stride = 10;  // less than the systems' extent: right-hand sides would overlap
  expect_error(broken, {}, tridiagonal_null::none, invalid, "'A.rhs_stride' (10) is less than the");
  ss::tridiagonal_options unknown;
  unknown.strategy = static_cast<ss::tridiagonal_strategy>(42);
  expect_error(good, unknown, tridiagonal_null::none, invalid, "'options.strategy' is not a strategy");
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
    expect_tridiagonal(good, b, x, "zero_pivot_at set, all good");
  }
}

// Overlaps, which the adapter's own arrays cannot make: b, the diagonals and
// x in one array of the back end. x over b (not equal to it) or over a
// diagonal is refused by name and nothing is written; x just past the upper
// diagonal is fine.
template <class Backend, class T>
void check_tridiagonal_overlaps() {
  namespace ss = streamscan;
  ASSERT_STREQ(Backend::name, tu_backend::name) << "a CUDA translation unit runs the CUDA back end";
  auto rng = make_rng(std::string("tridiagonal.overlaps.") + Backend::name + typeid(T).name());
  const auto good = random_tridiagonal<T>(rng, 100, 6, ss::tridiagonal_layout::strided);
  const auto b = random_rhs(rng, good);
  const auto e = static_cast<std::ptrdiff_t>(b.size());  // what x, b and each diagonal span
  // [b][A.lower][A.diagonal][A.upper][room for x]
  std::vector<T> host = b;
  for (const auto* part : {&good.lower, &good.diagonal, &good.upper})
    host.insert(host.end(), part->begin(), part->end());
  host.resize(host.size() + b.size(), poison_value<T>());
  tu_backend::array<T> m(host);
  T* const base = m.data();
  const std::pair<const char*, T*> diagonals[] = {
      {"A.lower", base + e}, {"A.diagonal", base + 2 * e}, {"A.upper", base + 3 * e}};
  ss::tridiagonal_view<T> a = good.shape;
  a.lower = diagonals[0].second;
  a.diagonal = diagonals[1].second;
  a.upper = diagonals[2].second;
  T* const room = base + 4 * e;
  std::size_t bytes = 0;
  ASSERT_TRUE(tu_backend::api::tridiagonal_solve<T>(nullptr, bytes, a, base, room).is_ok());
  tu_backend::array<unsigned char> temp{std::vector<unsigned char>(bytes)};
  auto expect_error = [&](const T* bp, T* xp, const std::string& needle) {
    std::size_t given = bytes;
    const ss::status s = tu_backend::api::tridiagonal_solve<T>(temp.data(), given, a, bp, xp);
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  const std::string b_and_x = "arguments 'b' and 'x' overlap without being equal";
  expect_error(base, base + 1, b_and_x);
  expect_error(base + 1, base, b_and_x);
  expect_error(base, base + e - 1, b_and_x);  // one element in common
  for (const auto& [name, p] : diagonals) {  // x is the diagonal, or starts at its last element
    expect_error(base, p, std::string("arguments 'x' and '") + name + "' overlap");
    expect_error(base, p + e - 1, std::string("arguments 'x' and '") + name + "' overlap");
  }
  const std::vector<T> after = m.values();
  EXPECT_EQ(std::memcmp(after.data(), host.data(), host.size() * sizeof(T)), 0) << "written on error";

  std::size_t given = bytes;
  const ss::status s = tu_backend::api::tridiagonal_solve<T>(temp.data(), given, a, base, room);
  ASSERT_TRUE(s.is_ok()) << s.message();
  const std::vector<T> solved = m.values();
  expect_tridiagonal(good, b, std::vector<T>(solved.begin() + 4 * e, solved.end()), "x right after A.upper");
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
  TYPED_TEST(Suite, warp_systems) { streamscan_test::check_tridiagonal_warp_systems<Backend, TypeParam>(); }   \
  TYPED_TEST(Suite, short_systems) { streamscan_test::check_tridiagonal_short_systems<Backend, TypeParam>(); }   \
  TYPED_TEST(Suite, thread_chunks) { streamscan_test::check_tridiagonal_thread_chunks<Backend, TypeParam>(); }   \
  TYPED_TEST(Suite, bad_input) { streamscan_test::check_tridiagonal_errors<Backend, TypeParam>(); }          \
  TYPED_TEST(Suite, overlapping_arguments) {                                                                 \
    streamscan_test::check_tridiagonal_overlaps<Backend, TypeParam>();                                       \
  }
