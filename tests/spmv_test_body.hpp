// Test bodies of y = alpha A x + beta y, shared by every back end. The oracle
// is a loop over rows in double on the host; a result is right when it is
// within a rounding bound of the oracle for the value type and row length.
//
// A back end adapter provides name, available() and
//   run_spmv<V, O, I>(const host_csr<V, O, I>& a, x, y (in: the initial y; out: the
//                     result, copied back whether the call failed or not), alpha,
//                     beta, options, form, null_arg) -> status
//   run_coo_to_csr<I, V, O>(rows, cols, coo rows, coo cols, coo values, offsets
//                           (rows + 1), columns, values (nnz each; poisoned), entries,
//                           coo_options) -> status
// form: two-phase (temp == nullptr first) or convenience (returning the status
// of a thrown streamscan::error); null_arg: which pointer the adapter passes as
// null instead of the array (the size query keeps the real ones).
// Each test TU stamps the tests out with STREAMSCAN_SPMV_TESTS(suite, backend).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include <streamscan/spmv.hpp>
#include <streamscan/status.hpp>

#include "common/backend_fixture.hpp"
#include "common/random.hpp"
#include "common/spmv_oracle.hpp"
#include "common/tu_backend.hpp"

namespace streamscan_test {

template <class V, class O, class I>
struct spmv_types {
  using value = V;
  using offset = O;
  using index = I;
};
using spmv_type_list = ::testing::Types<spmv_types<float, std::int32_t, std::int32_t>,
                                        spmv_types<double, std::int32_t, std::int64_t>,
                                        spmv_types<float, std::int64_t, std::int32_t>,
                                        spmv_types<double, std::int64_t, std::int64_t>>;

// prepared: spmv_prepare, then two prepared products on its plan (the
// second one's y is returned).
enum class spmv_form { two_phase, convenience, prepared };
enum class spmv_null { none, offsets, columns, values, x, y };

inline std::vector<streamscan::spmv_strategy> spmv_strategies() {
  return {streamscan::spmv_strategy::automatic, streamscan::spmv_strategy::merge_path,
          streamscan::spmv_strategy::segmented_scan, streamscan::spmv_strategy::row_groups,
          streamscan::spmv_strategy::nonzero_split};
}

template <class Backend, class T>
void check_spmv_shapes() {
  using V = typename T::value;
  using O = typename T::offset;
  using I = typename T::index;
  auto rng = make_rng(std::string("spmv.shapes.") + Backend::name + typeid(T).name());
  struct shape {
    std::int64_t rows, cols;
    int max_length, long_rows;
    std::int64_t long_length;
    int empty_runs = 0;
    std::int64_t empty_run = 0;
    bool long_after_run = false;
  };
  std::vector<shape> shapes = {{0, 0, 0, 0, 0},      {1, 1, 1, 0, 0},      {1, 5, 5, 0, 0},
                               {3, 0, 0, 0, 0},      {1, 3000, 0, 1, 2999}, {200, 50, 6, 0, 0},
                               {511, 700, 3, 0, 0},  {513, 700, 3, 0, 0},  {1025, 90, 2, 0, 0},
                               {4000, 4000, 40, 2, 5000}, {20000, 1000, 0, 0, 0},
                               // Mean row lengths of about 3.7, 6.9 and 8.5: row groups of 2, 1 and 8
                               // lanes, with rows spilled to chunks (three chunks, three, one).
                               {20000, 3000, 6, 3, 9000},  {20000, 3000, 11, 3, 9000}, {3000, 2000, 22, 1, 3000}};
  std::int64_t big_rows = 100000 + static_cast<std::int64_t>(rng() % 100000), long_row = Backend::long_row;
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N")) {  // runs under compute-sanitizer
    big_rows = std::min<std::int64_t>(big_rows, std::atoll(cap));
    long_row = std::min<std::int64_t>(long_row, std::atoll(cap));
  }
  shapes.push_back({big_rows, 50000, 30, 3, long_row});
  // Runs of empty rows longer than the non-zero split lets a tile write
  // (tuning::spmv_split_own_rows tiles' worth): it leaves the rest to the
  // fix-up. Not capped under the sanitizers, so that they see that path.
  shapes.push_back({60000, 3000, 12, 2, 5000, 2, 40000, false});
  // The same, each run followed by a row that goes on past its tile: one
  // tile both lists rows and carries one.
  shapes.push_back({60000, 3000, 12, 0, 5000, 2, 40000, true});
  // Under one non-zero in eight rows: most tiles list rows, some in several
  // pieces.
  shapes.push_back({300000, 100, 0, 0, 0, 10, 20000, false});
  const V scalars[][2] = {{1, 0}, {1, 1}, {V(2.5), V(-0.5)}, {0, V(3)}, {0, 0}};
  for (const shape& sh : shapes) {
    const auto a = random_csr<V, O, I>(rng, sh.rows, sh.cols, sh.max_length, sh.long_rows, sh.long_length,
                                       sh.empty_runs, sh.empty_run, sh.long_after_run);
    const auto x = random_vector<V>(rng, sh.cols);
    for (const auto& ab : scalars) {
      for (const auto strategy : spmv_strategies()) {
        for (const spmv_form form : {spmv_form::two_phase, spmv_form::convenience, spmv_form::prepared}) {
          if (form == spmv_form::convenience && !(ab[0] == V(1) && ab[1] == V(1))) continue;
          auto y0 = random_vector<V>(rng, sh.rows);
          if (ab[1] == V(0))  // beta == 0: y is not read, so NaNs must not come through
            for (auto& v : y0) v = std::numeric_limits<V>::quiet_NaN();
          std::vector<V> y = y0;
          streamscan::spmv_options opt;
          opt.strategy = strategy;
          opt.checked = (rng() % 2) == 0;
          const std::string what = std::string(Backend::name) + " rows " + std::to_string(sh.rows) + " nnz " +
                                   std::to_string(a.nnz()) + " alpha " + std::to_string(ab[0]) + " beta " +
                                   std::to_string(ab[1]) + " " + streamscan::to_string(strategy) +
                                   (opt.checked ? " checked" : "") + (form == spmv_form::prepared ? " prepared" : "");
          const streamscan::status s = Backend::run_spmv(a, x, y, ab[0], ab[1], opt, form, spmv_null::none);
          ASSERT_TRUE(s.is_ok()) << what << ": " << s.message();
          const std::string why = spmv_mismatch(a, x, y0, y, ab[0], ab[1]);
          EXPECT_TRUE(why.empty()) << what << ": " << why << "; seed " << global_seed();
        }
      }
    }
  }
}

// The small matrix the bad-input tests break or place: 300 x 200, rows of
// up to 9 non-zeros.
template <class T>
host_csr<typename T::value, typename T::offset, typename T::index> small_csr(std::mt19937_64& rng) {
  return random_csr<typename T::value, typename T::offset, typename T::index>(rng, 300, 200, 9);
}

// Bad input: an error naming the argument, and y exactly as it was.
template <class Backend, class T>
void check_spmv_errors() {
  using V = typename T::value;
  using I = typename T::index;
  namespace ss = streamscan;
  auto rng = make_rng(std::string("spmv.errors.") + Backend::name + typeid(T).name());
  const auto good = small_csr<T>(rng);
  const auto x = random_vector<V>(rng, good.cols);
  const auto y0 = random_vector<V>(rng, good.rows);
  auto expect_error = [&](const decltype(good)& a, ss::spmv_options opt, spmv_null null_arg, const char* needle,
                          spmv_form form = spmv_form::two_phase) {
    std::vector<V> y = y0;
    const ss::status s = Backend::run_spmv(a, x, y, V(1), V(1), opt, form, null_arg);
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
    EXPECT_EQ(std::memcmp(y.data(), y0.data(), y.size() * sizeof(V)), 0) << needle << ": y was written";
  };
  ss::spmv_options checked;
  checked.checked = true;
  expect_error(good, {}, spmv_null::offsets, "'A.row_offsets' is a null pointer");
  expect_error(good, {}, spmv_null::columns, "'A.column_indices' is a null pointer");
  expect_error(good, {}, spmv_null::values, "'A.values' is a null pointer");
  expect_error(good, {}, spmv_null::x, "'x' is a null pointer");
  expect_error(good, {}, spmv_null::y, "'y' is a null pointer");
  // spmv_prepare names the pattern's arrays too; the convenience form has no plan to use.
  expect_error(good, {}, spmv_null::offsets, "'A.row_offsets' is a null pointer", spmv_form::prepared);
  expect_error(good, checked, spmv_null::columns, "'A.column_indices' is a null pointer", spmv_form::prepared);
  ss::spmv_options prepared;
  prepared.prepared = true;
  expect_error(good, prepared, spmv_null::none, "'options.prepared' needs the two-phase form", spmv_form::convenience);
  auto broken = good;
  broken.cols = -1;
  expect_error(broken, {}, spmv_null::none, "'A.cols' is negative");
  broken.cols = 0;  // every column index would be outside: x is not read past its end
  expect_error(broken, {}, spmv_null::none, "in a matrix of 0 columns");
  if constexpr (std::is_same_v<I, std::int32_t>) {  // the last column's index past int32 (x is not read)
    broken.cols = (std::int64_t{1} << 31) + 1;
    expect_error(broken, {}, spmv_null::none, "'A.cols' (2147483649) does not fit the column indices' type");
  }
  broken = good;
  broken.rows = -1;
  expect_error(broken, {}, spmv_null::none, "'A.rows' is negative");
  broken = good;
  std::swap(broken.offsets[10], broken.offsets[11]);
  if (broken.offsets[10] != broken.offsets[11]) expect_error(broken, checked, spmv_null::none, "decreases at row");
  broken = good;
  broken.offsets.back() += 1;
  expect_error(broken, checked, spmv_null::none, "not A.nnz");
  broken = good;
  broken.offsets[0] = 1;
  expect_error(broken, checked, spmv_null::none, "A.row_offsets[0]");
  broken = good;
  broken.columns[broken.columns.size() / 2] = static_cast<I>(good.cols);
  expect_error(broken, checked, spmv_null::none, "outside [0, 200)");
  broken = good;
  broken.columns[0] = -1;
  expect_error(broken, checked, spmv_null::none, "is -1, outside");
}

// What the adapter cannot pass: x and y in one array of the back end, refused
// where they overlap; and A.nnz past the row offsets' type, refused before
// any array is read (so the arrays need not be that long). Nothing written.
template <class Backend, class T>
void check_spmv_overlaps_and_type_fit() {
  using V = typename T::value;
  using O = typename T::offset;
  using I = typename T::index;
  namespace ss = streamscan;
  ASSERT_STREQ(Backend::name, tu_backend::name) << "a CUDA translation unit runs the CUDA back end";
  auto rng = make_rng(std::string("spmv.overlaps.") + Backend::name + typeid(T).name());
  const auto good = small_csr<T>(rng);
  tu_backend::array<O> offsets(good.offsets);
  tu_backend::array<I> columns(good.columns);
  tu_backend::array<V> values(good.values);
  const std::vector<V> host = random_vector<V>(rng, good.rows + good.cols);  // x and y
  tu_backend::array<V> xy(host);
  V* const base = xy.data();
  const ss::csr_view<V, O, I> a{good.rows, good.cols, good.nnz(), offsets.data(), columns.data(), values.data()};
  std::size_t bytes = 0;
  ASSERT_TRUE(tu_backend::api::spmv(nullptr, bytes, a, base, base + good.cols, V(1), V(1)).is_ok());
  tu_backend::array<unsigned char> temp{std::vector<unsigned char>(bytes)};
  auto expect_error = [&](const ss::csr_view<V, O, I>& view, const V* x, V* y, const std::string& needle) {
    std::size_t given = bytes;
    const ss::status s = tu_backend::api::spmv(temp.data(), given, view, x, y, V(1), V(1));
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  const std::string overlap = "arguments 'x' and 'y' overlap";
  expect_error(a, base, base, overlap);
  expect_error(a, base, base + good.cols - 1, overlap);  // y starts at x's last element
  expect_error(a, base + good.rows - 1, base, overlap);  // x starts at y's last element
  if constexpr (std::is_same_v<O, std::int32_t>) {
    auto wide = a;
    wide.nnz = std::int64_t{1} << 31;
    expect_error(wide, base, base + good.cols, "argument 'A.nnz' (2147483648) does not fit the row offsets' type");
  }
  const std::vector<V> after = xy.values();
  EXPECT_EQ(std::memcmp(after.data(), host.data(), host.size() * sizeof(V)), 0) << "x or y written on error";
}

// coo_to_csr against the oracle: rows left empty, forced duplicates (small
// integer values keep float sums exact), outputs poisoned.
template <class Backend, class I, class V, class O>
void check_coo_to_csr(std::mt19937_64& rng, std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  std::vector<I> r(static_cast<std::size_t>(nnz)), c(r.size());
  std::vector<V> v(r.size());
  const std::int64_t used_rows = rows > 3 ? rows / 3 : rows;
  for (std::size_t k = 0; k < r.size(); ++k) {
    r[k] = static_cast<I>(rng() % used_rows * 3 % rows);
    c[k] = static_cast<I>(rng() % (cols > 50 ? 50 : cols));
    v[k] = static_cast<V>(static_cast<int>(rng() % 17) - 8);
  }
  const auto want = oracle_coo_to_csr<I, V, O>(rows, r, c, v);
  std::vector<O> offsets(static_cast<std::size_t>(rows + 1));
  std::vector<I> columns(r.size());
  std::vector<V> values(r.size());
  poison(offsets);
  poison(columns);
  poison(values);
  std::int64_t entries = -1;
  const streamscan::status s =
      Backend::run_coo_to_csr(rows, cols, r, c, v, offsets, columns, values, entries, streamscan::coo_options{nnz % 2 == 1});
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(entries, static_cast<std::int64_t>(want.columns.size())) << "rows " << rows << " nnz " << nnz;
  columns.resize(static_cast<std::size_t>(entries));
  values.resize(static_cast<std::size_t>(entries));
  EXPECT_EQ(offsets, want.offsets) << "rows " << rows << " nnz " << nnz;
  EXPECT_EQ(columns, want.columns) << "rows " << rows << " nnz " << nnz;
  EXPECT_EQ(values, want.values) << "rows " << rows << " nnz " << nnz;
}

template <class Backend>
void check_coo_to_csr_all() {
  if (!Backend::available()) GTEST_SKIP() << Backend::name << " back end unavailable: no GPU";
  auto rng = make_rng(std::string("coo_to_csr.") + Backend::name);
  check_coo_to_csr<Backend, std::int32_t, float, std::int32_t>(rng, 5, 5, 0);
  check_coo_to_csr<Backend, std::int32_t, float, std::int32_t>(rng, 1, 1, 1);
  check_coo_to_csr<Backend, std::int32_t, float, std::int32_t>(rng, 7, 3, 40);
  check_coo_to_csr<Backend, std::int32_t, double, std::int64_t>(rng, 1000, 800, 20000);
  check_coo_to_csr<Backend, std::int64_t, float, std::int64_t>(rng, 300000, 100000, 1000000 + rng() % 1000);
}

// Bad sizes and indices outside the matrix are named; nothing is written.
template <class Backend>
void check_coo_to_csr_errors() {
  if (!Backend::available()) GTEST_SKIP() << Backend::name << " back end unavailable: no GPU";
  using I = std::int32_t;
  const std::vector<I> r = {0, 1, 2}, c = {1, 1, 0};
  const std::vector<float> v = {1, 2, 3};
  auto run = [&](std::int64_t rows, std::int64_t cols, const std::vector<I>& rr, const std::vector<I>& cc) {
    std::vector<I> offsets(static_cast<std::size_t>(rows > 0 && rows < 100 ? rows + 1 : 1), 7), columns(3, 7);
    std::vector<float> values(3, 7.0f);
    std::int64_t entries = -1;
    const streamscan::status s =
        Backend::run_coo_to_csr(rows, cols, rr, cc, v, offsets, columns, values, entries, streamscan::coo_options{true});
    EXPECT_EQ(columns, std::vector<I>(3, 7)) << "written on error: " << s.message();
    EXPECT_EQ(values, std::vector<float>(3, 7.0f)) << "written on error: " << s.message();
    return s.message();
  };
  EXPECT_NE(run(-1, 4, r, c).find("'rows' is negative"), std::string::npos);
  EXPECT_NE(run(3, -2, r, c).find("'cols' is negative"), std::string::npos);
  EXPECT_NE(run(0, 4, r, c).find("no rows or columns"), std::string::npos);
  EXPECT_NE(run(std::int64_t{1} << 40, std::int64_t{1} << 40, r, c).find("63 bits"), std::string::npos);
  // Checked mode (the CPU always checks): the first triplet outside the matrix.
  EXPECT_NE(run(3, 2, r, {1, 1, 2}).find("coo_cols[2] is 2, outside [0, cols = 2)"), std::string::npos);
  EXPECT_NE(run(3, 2, {0, -1, 2}, c).find("coo_rows[1] is -1, outside [0, rows = 3)"), std::string::npos);
  EXPECT_NE(run(2, 2, {0, 1, 2}, {0, 5, 1}).find("coo_cols[1] is 5"), std::string::npos);
}

}  // namespace streamscan_test

#define STREAMSCAN_SPMV_TESTS(Suite, Backend)                                                           \
  template <class T>                                                                                    \
  class Suite : public streamscan_test::backend_typed_test<Backend, T> {};                              \
  TYPED_TEST_SUITE(Suite, streamscan_test::spmv_type_list);                                             \
  TYPED_TEST(Suite, shapes_scalars_strategies) { streamscan_test::check_spmv_shapes<Backend, TypeParam>(); } \
  TYPED_TEST(Suite, bad_input) { streamscan_test::check_spmv_errors<Backend, TypeParam>(); }               \
  TYPED_TEST(Suite, overlaps_and_type_fit) {                                                            \
    streamscan_test::check_spmv_overlaps_and_type_fit<Backend, TypeParam>();                            \
  }                                                                                                     \
  TEST(Suite##_coo, builds_csr_and_sums_duplicates) { streamscan_test::check_coo_to_csr_all<Backend>(); } \
  TEST(Suite##_coo, bad_arguments_are_named) { streamscan_test::check_coo_to_csr_errors<Backend>(); }
