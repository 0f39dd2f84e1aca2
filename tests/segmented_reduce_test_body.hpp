// Test bodies of the segmented reduction and of the iterators of
// streamscan/iterators.hpp, shared by every back end.
//
// A back end adapter provides, besides what segmented_test_body.hpp asks:
//   run_segmented_reduce(reduce_request, in, segs, out, op, init, num)
//     out arrives poisoned, sized for more values than there are segments;
//     num receives the num_segments output (set to -1 before).
//   reduce_status(form, temp, bytes, in, out, n, segments_pointer, m)
//     the two-phase call's status on raw host vectors (bad-argument checks).
//   scan_of(in_iterator, n, exclusive, out)           inclusive / exclusive(0) sum, int64 out
//   segmented_scan_of(in_iterator, n, flags, out)     segmented inclusive sum, int64 out
//   select_below_of(in_iterator, n, threshold, out)   select_if(x < threshold), returns the count
//   reduce_of(in_iterator, n, offsets, out)           segmented_reduce by offsets, sum from 0
// Each test TU stamps the tests out with STREAMSCAN_SEGMENTED_REDUCE_TESTS(suite, backend).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <streamscan/iterators.hpp>
#include <streamscan/segmented.hpp>

#include "common/compare.hpp"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"
#include "segmented_test_body.hpp"

namespace streamscan_test {

struct reduce_request {
  seg_form form;
  bool two_phase = true;       // else the convenience form
  bool wrapped_input = false;  // the input through a non-pointer iterator
};

inline std::string describe(const reduce_request& r, std::int64_t n, double mean) {
  std::ostringstream os;
  os << "seed=" << global_seed() << " n=" << n << " mean segment " << mean << " " << to_string(r.form)
     << (r.two_phase ? " two-phase" : " convenience") << (r.wrapped_input ? " wrapped input" : "");
  return os.str();
}

// Values written past the m-th output: how many differ from the poison.
template <class A>
std::int64_t written_past(const std::vector<A>& out, std::size_t m) {
  std::int64_t count = 0;
  for (std::size_t i = m; i < out.size(); ++i) {
    unsigned char bytes[sizeof(A)];
    std::memcpy(bytes, &out[i], sizeof(A));
    for (unsigned char b : bytes)
      if (b != poison_byte) {
        ++count;
        break;
      }
  }
  return count;
}

// One size, every description, against the naive oracle; nothing past the
// last segment's value is written.
template <class Backend, class A, class Op>
void check_reduce_size(std::mt19937_64& rng, std::int64_t n, double mean, Op op, bool two_phase, bool wrapped) {
  const segments_fixture segs = make_segments(rng, n, mean);
  for (const seg_form form : {seg_form::flags, seg_form::bits, seg_form::offsets}) {
    const reduce_request req{form, two_phase, wrapped};
    const std::vector<A> in = random_vector<A>(rng, n);
    const A init = random_init<A>(rng);
    const std::vector<A> expected = form == seg_form::offsets
                                        ? oracle_segmented_reduce_offsets<A>(in, segs.offsets, op, init)
                                        : oracle_segmented_reduce_flags<A>(in, segs.flags, op, init);
    std::vector<A> out(expected.size() + 33);
    poison(out);
    std::int64_t num = -1;
    Backend::run_segmented_reduce(req, in, segs, out, op, init, num);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(num, static_cast<std::int64_t>(expected.size())) << describe(req, n, mean);
    EXPECT_EQ(written_past(out, expected.size()), 0) << "written past the last segment; " << describe(req, n, mean);
    out.resize(expected.size());
    EXPECT_TRUE(compare_exact(out, expected)) << describe(req, n, mean);
  }
}

// Sizes 0, 1, around a word of head bits, around the tiles of the scan
// underneath (the dedicated kernel's, and the general pair scan's that
// iterator inputs take), many tiles and a random large one.
template <class Backend, class A>
std::vector<std::int64_t> reduce_sizes(std::mt19937_64& rng) {
  std::vector<std::int64_t> sizes = {0, 1, 2, 31, 32, 33, 1000};
  for (const std::int64_t t : {Backend::template segmented_tile_items<A>(),
                               Backend::template tile_items<streamscan::detail::seg_pair<A>>(
                                   streamscan::scan_strategy::reduce_then_scan)})
    sizes.insert(sizes.end(), {t - 1, t + 1, Backend::many_tiles * t + 5});
  sizes.push_back(std::uniform_int_distribution<std::int64_t>(Backend::large_size / 4, Backend::large_size / 2)(rng));
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N"))  // runs under compute-sanitizer
    for (auto& n : sizes) n = std::min<std::int64_t>(n, std::strtoll(cap, nullptr, 10));
  return sizes;
}

// Mean segment lengths from 1 (every element its own segment, empty ones
// between in the offsets) to one segment; the forms and inputs alternate.
template <class Backend, class A, class Op>
void check_segmented_reduce(const char* test, Op op) {
  if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";
  auto rng = make_rng(test);
  const std::vector<std::int64_t> sizes = reduce_sizes<Backend, A>(rng);
  const std::vector<double> means = {1, 2, 4, 300, 1e12};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double mean = means[std::uniform_int_distribution<std::size_t>(0, means.size() - 1)(rng)];
    check_reduce_size<Backend, A>(rng, sizes[i], mean, op, i % 3 != 2, i % 4 == 3);
  }
  // Every mean at a few tiles' size, so that each one meets the tile edges.
  const std::int64_t few_tiles = std::min(sizes.back(), 2 * Backend::template segmented_tile_items<A>() + 7);
  for (const double mean : means) check_reduce_size<Backend, A>(rng, few_tiles, mean, op, true, false);
}

// Offsets with empty segments first, last and in runs, no elements at all,
// and offsets past n (clamped).
template <class Backend>
void check_reduce_empty_segments() {
  if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";
  const std::vector<std::int32_t> in = {1, 2, 3, 4, 5};
  struct example {
    std::vector<std::int64_t> offsets;
    std::int64_t n;
    std::vector<std::int32_t> expected;  // init 100
  };
  const std::vector<example> examples = {
      {{0, 0, 0, 3, 3, 5, 5, 5}, 5, {100, 100, 106, 100, 109, 100, 100}},
      {{0, 5}, 5, {115}},
      {{0, 1, 2, 3, 4, 5}, 5, {101, 102, 103, 104, 105}},
      {{0, 0, 0}, 0, {100, 100}},
      {{0, 2, 9}, 5, {103, 112}},
  };
  for (const example& e : examples) {
    segments_fixture segs;
    segs.offsets = e.offsets;
    std::vector<std::int32_t> out(e.expected.size() + 3);
    poison(out);
    std::int64_t num = -1;
    const std::vector<std::int32_t> data(in.begin(), in.begin() + e.n);
    Backend::run_segmented_reduce(reduce_request{seg_form::offsets}, data, segs, out, streamscan::plus{},
                                  std::int32_t{100}, num);
    EXPECT_EQ(num, static_cast<std::int64_t>(e.expected.size()));
    EXPECT_EQ(written_past(out, e.expected.size()), 0);
    out.resize(e.expected.size());
    EXPECT_EQ(out, e.expected) << "offsets of " << e.expected.size() << " segments, n = " << e.n;
  }
}

// Bad arguments are refused before anything is written, the argument named.
template <class Backend>
void check_reduce_bad_arguments() {
  if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";
  namespace ss = streamscan;
  std::vector<std::int32_t> in(100, 1), out(100, -7);
  std::vector<std::int64_t> offsets = {0, 50, 100};
  std::vector<unsigned char> flags(100, 0);
  auto expect = [](const ss::status& s, const std::string& text) {
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << s.message();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("segmented_reduce"), std::string::npos) << s.message();
  };
  std::size_t bytes = 0;
  unsigned char temp[64];
  void* t = temp;
  expect(Backend::reduce_status(seg_form::offsets, nullptr, bytes, in.data(), out.data(), -1, offsets.data(), 2),
         "argument 'n' is negative (-1)");
  expect(Backend::reduce_status(seg_form::offsets, t, bytes, nullptr, out.data(), 100, offsets.data(), 2),
         "argument 'in' is a null pointer");
  expect(Backend::reduce_status(seg_form::flags, t, bytes, in.data(), nullptr, 100, flags.data(), 0),
         "argument 'out' is a null pointer");
  expect(Backend::reduce_status(seg_form::offsets, t, bytes, in.data(), nullptr, 0, offsets.data(), 2),
         "argument 'out' is a null pointer while segments.num_segments = 2");
  expect(Backend::reduce_status(seg_form::offsets, nullptr, bytes, in.data(), out.data(), 100, offsets.data(), -1),
         "argument 'segments.num_segments' is negative (-1)");
  expect(Backend::reduce_status(seg_form::offsets, t, bytes, in.data(), out.data(), 100, nullptr, 2),
         "null offsets pointer");
  expect(Backend::reduce_status(seg_form::flags, t, bytes, in.data(), out.data(), 100, nullptr, 0),
         "argument 'segments' (head_flags) is a null pointer");
  expect(Backend::reduce_status(seg_form::bits, t, bytes, in.data(), out.data(), 100, nullptr, 0),
         "argument 'segments' (head_bits) is a null pointer");
  // Temp smaller than the query said.
  ASSERT_TRUE(
      Backend::reduce_status(seg_form::offsets, nullptr, bytes, in.data(), out.data(), 100, offsets.data(), 2).is_ok());
  std::vector<unsigned char> small(bytes);
  std::size_t less = bytes - 1;
  const ss::status s =
      Backend::reduce_status(seg_form::offsets, small.data(), less, in.data(), out.data(), 100, offsets.data(), 2);
  EXPECT_EQ(s.code(), ss::errc::temp_storage_too_small) << s.message();
  EXPECT_EQ(out, std::vector<std::int32_t>(100, -7));
  // Null pointers are fine for a size query (data and description alike: temp
  // may be sized before they are allocated) and for n == 0 with no segments.
  EXPECT_TRUE(Backend::reduce_status(seg_form::flags, nullptr, bytes, nullptr, nullptr, 0, nullptr, 0).is_ok());
  for (const seg_form form : {seg_form::flags, seg_form::bits, seg_form::offsets}) {
    std::size_t query = 0;
    const ss::status q = Backend::reduce_status(form, nullptr, query, nullptr, nullptr, 100, nullptr, 2);
    EXPECT_TRUE(q.is_ok()) << to_string(form) << ": " << q.message();
  }
}

// ---- iterators as inputs of every call ----

// A deterministic value of every index in [-100, 100].
struct index_mix {
  STREAMSCAN_HOST_DEVICE std::int32_t operator()(std::int64_t i) const {
    return static_cast<std::int32_t>((i * 7919 + 13) % 201) - 100;
  }
};

template <class Backend>
void check_iterator_inputs(const char* test) {
  if (!Backend::available()) GTEST_SKIP() << "no " << Backend::name << " device";
  namespace ss = streamscan;
  auto rng = make_rng(test);
  const std::int64_t t = Backend::template tile_items<std::int64_t>(ss::scan_strategy::decoupled_lookback);
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, t + 1, 3 * t + 7}) {
    const std::string at = "seed=" + std::to_string(global_seed()) + " n=" + std::to_string(n);
    const ss::counting_iterator<std::int64_t> count(5);
    const auto mixed = ss::make_transform_iterator(ss::counting_iterator<std::int64_t>(0), index_mix{});
    std::vector<std::int32_t> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = index_mix{}(i);

    // Plain scans of a counting, a transform and a constant iterator.
    std::vector<std::int64_t> out, expected;
    std::int64_t acc = 0;
    for (std::int64_t i = 0; i < n; ++i) expected.push_back(acc += 5 + i);
    Backend::scan_of(count, n, false, out);
    EXPECT_EQ(out, expected) << "inclusive scan of a counting_iterator, " << at;
    expected.clear();
    acc = 0;
    for (const std::int32_t v : values) {
      expected.push_back(acc);
      acc += v;
    }
    Backend::scan_of(mixed, n, true, out);
    EXPECT_EQ(out, expected) << "exclusive scan of a transform_iterator, " << at;
    expected.clear();
    for (std::int64_t i = 0; i < n; ++i) expected.push_back(3 * (i + 1));
    Backend::scan_of(ss::constant_iterator<std::int32_t>(3), n, false, out);
    EXPECT_EQ(out, expected) << "inclusive scan of a constant_iterator, " << at;

    // A segmented scan, a compaction and a segmented reduction of a transform.
    const segments_fixture segs = make_segments(rng, n, 50);
    Backend::segmented_scan_of(mixed, n, segs.flags, out);
    std::vector<std::int64_t> wide(values.begin(), values.end());
    EXPECT_EQ(out, oracle_segmented<std::int64_t>(wide, segs.flags, ss::plus{}, seg_kind::inclusive, 0,
                                                   ss::scan_direction::forward))
        << "segmented scan of a transform_iterator, " << at;
    expected.clear();
    for (const std::int32_t v : values)
      if (v < 20) expected.push_back(v);
    const std::int64_t kept = Backend::select_below_of(mixed, n, 20, out);
    EXPECT_EQ(kept, static_cast<std::int64_t>(expected.size())) << at;
    out.resize(expected.size());
    EXPECT_EQ(out, expected) << "select_if of a transform_iterator, " << at;
    Backend::reduce_of(mixed, n, segs.offsets, out);
    EXPECT_EQ(out, oracle_segmented_reduce_offsets<std::int64_t>(wide, segs.offsets, ss::plus{}, 0))
        << "segmented_reduce of a transform_iterator, " << at;
  }
}

}  // namespace streamscan_test

#define STREAMSCAN_SEGMENTED_REDUCE_TESTS(Suite, Backend)                                                      \
  TEST(Suite, int32_sum) { streamscan_test::check_segmented_reduce<Backend, std::int32_t>(#Suite "s", streamscan::plus{}); } \
  TEST(Suite, int64_max) {                                                                                     \
    streamscan_test::check_segmented_reduce<Backend, std::int64_t>(#Suite "x", streamscan::maximum{});        \
  }                                                                                                            \
  TEST(Suite, mat2u_noncommutative) {                                                                          \
    streamscan_test::check_segmented_reduce<Backend, streamscan_test::mat2u>(#Suite "m",                      \
                                                                              streamscan_test::mat2u_product{}); \
  }                                                                                                            \
  TEST(Suite, affine16_noncommutative) {                                                                       \
    streamscan_test::check_segmented_reduce<Backend, streamscan_test::affine<std::uint16_t>>(                 \
        #Suite "a", streamscan_test::affine_compose{});                                                        \
  }                                                                                                            \
  TEST(Suite, empty_segments) { streamscan_test::check_reduce_empty_segments<Backend>(); }                     \
  TEST(Suite, bad_arguments) { streamscan_test::check_reduce_bad_arguments<Backend>(); }                       \
  TEST(Suite, iterator_inputs) { streamscan_test::check_iterator_inputs<Backend>(#Suite "it"); }
