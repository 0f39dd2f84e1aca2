// Test bodies of the linear recurrence and its gradient, shared by every back
// end. Results are checked against a naive double oracle
// (common/linear_recurrence_oracle.hpp) within a bound scaled by the
// magnitude of what went into each value; elements outside the layout (its
// gaps) start poisoned and must stay so.
//
// A back end adapter provides name, gpu, available() and
//   forward<T>(layout, a, b, h (in: poison or, in place, the values of b or
//     a; out: read back whether the call failed or not), const vector<T>*
//     initial, recurrence_options, form, null_arg, in_place) -> status
//   backward<T>(layout, a, h, dh, initial*, grad_a, grad_b (in place: holds
//     dh), vector<T>* grad_initial (null: not asked for), options, form,
//     null_arg, in_place) -> status
// Each test TU stamps the tests out with STREAMSCAN_RECURRENCE_TESTS(suite,
// backend, value types...).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include <streamscan/linear_recurrence.hpp>
#include <streamscan/status.hpp>
#include <streamscan/tuning/linear_recurrence.hpp>

#include "common/backend_fixture.hpp"
#include "common/linear_recurrence_oracle.hpp"
#include "common/random.hpp"
#include "common/tu_backend.hpp"

namespace streamscan_test {

enum class recurrence_form { two_phase, convenience };
enum class recurrence_null { none, a, b, h, dh, grad_a, grad_b };
enum class recurrence_in_place { none, on_b, on_a };

template <class T>
T recurrence_poison() {
  T v;
  std::memset(static_cast<void*>(&v), poison_byte, sizeof v);
  return v;
}
template <class T>
bool same_bits(const T& x, const T& y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, streamscan::float16>) return streamscan::detail::to_float16(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, streamscan::bfloat16>) return streamscan::detail::to_bfloat16(static_cast<float>(v));
  else return static_cast<T>(v);
}
template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "float" : std::is_same_v<T, double> ? "double"
         : std::is_same_v<T, streamscan::float16> ? "float16" : "bfloat16";
}

// Which elements belong to the layout.
inline std::vector<char> layout_members(const streamscan::recurrence_layout& l) {
  std::vector<char> in(static_cast<std::size_t>(layout_extent(l)), 0);
  for (std::int64_t s = 0; s < l.sequences(); ++s)
    for (std::int64_t t = 0; t < l.length; ++t) in[static_cast<std::size_t>(layout_at(l, s, t))] = 1;
  return in;
}

// Every member within bound(element) of the oracle, every gap poisoned.
template <class T, class Bound>
void expect_close(const std::vector<T>& got, const std::vector<double>& want, const std::vector<char>& in, Bound bound,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = in[i] ? std::fabs(exact_value(got[i]) - want[i]) <= bound(i) : same_bits(got[i], recurrence_poison<T>());
    if (!ok && bad++ == 0) first = static_cast<std::int64_t>(i);
  }
  if (bad > 0) {
    const auto i = static_cast<std::size_t>(first);
    ADD_FAILURE() << what << ": " << bad << " wrong elements; first at offset " << first
                  << (in[i] ? " (member)" : " (a gap, written)") << ": got " << exact_value(got[i]) << ", want "
                  << want[i] << " within " << (in[i] ? bound(i) : 0.0) << "; seed " << global_seed();
  }
}

// The bound's scale: rounding in the state type along a path of some tens of
// operations, and one rounding to the stored type.
template <class T>
double recurrence_tolerance(std::int64_t length) {
  return state_epsilon<T>() * (64 + 8 * std::log2(static_cast<double>(length) + 1)) + storage_epsilon<T>();
}

struct recurrence_case {
  streamscan::recurrence_layout layout;
  bool reverse = false, initial = false, wide_gates = false, zero_gates = false, gradient = false;
  recurrence_form form = recurrence_form::two_phase;
  recurrence_in_place in_place = recurrence_in_place::none;
  bool grad_in_place = false, grad_initial = false;
  std::string describe() const {
    const auto& l = layout;
    return "batch " + std::to_string(l.batch_count) + " channels " + std::to_string(l.channels) + " T " +
           std::to_string(l.length) + " strides (t " + std::to_string(l.time_stride) + ", c " +
           std::to_string(l.channel_stride) + ", b " + std::to_string(l.batch_stride) + ")" +
           (reverse ? " reverse" : "") + (initial ? " initial" : "") + (wide_gates ? " gates(-1.2,1.2)" : " gates(0,1)") +
           (zero_gates ? " zero gates" : "") + (form == recurrence_form::convenience ? " convenience" : "") +
           (in_place == recurrence_in_place::on_b ? " h=b" : in_place == recurrence_in_place::on_a ? " h=a" : "");
  }
};

template <class Backend, class T>
void run_recurrence_case(std::mt19937_64& rng, const recurrence_case& c) {
  namespace ss = streamscan;
  const auto& l = c.layout;
  const std::string what = std::string(Backend::name) + " " + type_name<T>() + " " + c.describe();
  const std::int64_t extent = layout_extent(l);
  const std::vector<char> in = layout_members(l);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), gate(c.wide_gates ? -1.2 : 0.0, c.wide_gates ? 1.2 : 1.0);
  auto fill = [&](auto draw) {
    std::vector<T> v(static_cast<std::size_t>(extent), recurrence_poison<T>());
    for (std::size_t i = 0; i < v.size(); ++i)
      if (in[i]) v[i] = from_double<T>(draw());
    return v;
  };
  const std::vector<T> a = fill([&] { return c.zero_gates && rng() % 50 == 0 ? 0.0 : gate(rng); });
  const std::vector<T> b = fill([&] { return unit(rng); });
  std::vector<T> init(static_cast<std::size_t>(std::max<std::int64_t>(l.sequences(), 0)));
  for (auto& v : init) v = from_double<T>(unit(rng));
  const std::vector<T>* initial = c.initial ? &init : nullptr;
  ss::recurrence_options opt;
  opt.reverse = c.reverse;

  std::vector<T> h = c.in_place == recurrence_in_place::on_b   ? b
                     : c.in_place == recurrence_in_place::on_a ? a
                                                               : std::vector<T>(a.size(), recurrence_poison<T>());
  const ss::status s = Backend::template forward<T>(l, a, b, h, initial, opt, c.form, recurrence_null::none, c.in_place);
  ASSERT_TRUE(s.is_ok()) << what << ": " << s.message();
  const recurrence_oracle o = oracle_recurrence(l, a, b, initial, c.reverse);
  const double tol = recurrence_tolerance<T>(l.length);
  expect_close(h, o.value, in, [&](std::size_t i) { return tol * o.magnitude[i] + storage_floor<T>(); }, what);
  if (!c.gradient) return;

  // The gradient, from the h this back end produced.
  const std::vector<T> dh = fill([&] { return unit(rng); });
  std::vector<T> grad_a(a.size(), recurrence_poison<T>());
  std::vector<T> grad_b = c.grad_in_place ? dh : std::vector<T>(a.size(), recurrence_poison<T>());
  std::vector<T> grad_init(init.size(), recurrence_poison<T>());
  const ss::status g = Backend::template backward<T>(l, a, h, dh, initial, grad_a, grad_b, c.grad_initial ? &grad_init : nullptr,
                                         opt, c.form, recurrence_null::none, c.grad_in_place);
  ASSERT_TRUE(g.is_ok()) << what << " gradient: " << g.message();
  const recurrence_gradient_oracle go = oracle_recurrence_gradient(l, a, h, dh, initial, c.reverse);
  expect_close(grad_b, go.grad_b.value, in, [&](std::size_t i) { return tol * go.grad_b.magnitude[i] + storage_floor<T>(); },
               what + " grad_b" + (c.grad_in_place ? " (in place on dh)" : ""));
  expect_close(grad_a, go.grad_a, in,
               [&](std::size_t i) { return (tol + storage_epsilon<T>()) * go.grad_a_bound_scale[i] + storage_floor<T>(); },
               what + " grad_a");
  if (c.grad_initial) {
    const std::vector<char> all(init.size(), 1);
    expect_close(grad_init, go.grad_initial, all,
                 [&](std::size_t i) { return tol * go.grad_initial_scale[i] + storage_floor<T>(); }, what + " grad_initial");
  }
}

// Layout kinds: 0 [B, C, T] dense; 1 [B, C, T] with gaps; 2 [B, C, T] rows
// 16-aligned with gaps; 3 [B, T, C] dense; 4 [B, T, C] with gaps.
inline streamscan::recurrence_layout recurrence_layout_kind(int kind, std::int64_t batch, std::int64_t channels,
                                                            std::int64_t length) {
  switch (kind) {
    case 0: return streamscan::time_last_layout(batch, channels, length);
    case 1: return {batch, length, channels, 1, length + 5, channels * (length + 5) + 7};
    case 2: return {batch, length, channels, 1, length + 16, channels * (length + 16) + 32};
    case 3: return streamscan::channels_last_layout(batch, length, channels);
    default: return {batch, length, channels, channels + 3, 1, length * (channels + 3) + 2};
  }
}

template <class Backend, class T>
void check_recurrence_sizes() {
  auto rng = make_rng(std::string("recurrence.sizes.") + Backend::name + typeid(T).name());
  constexpr auto rows = streamscan::tuning::recurrence_rows_shape(sizeof(T));
  constexpr auto lanes = streamscan::tuning::recurrence_lanes_shape(sizeof(T));
  const std::int64_t tile = std::int64_t{rows.threads} * rows.items, steps = std::int64_t{lanes.threads / 32} * lanes.items;
  std::vector<std::int64_t> lengths = {1, 2, 31, 32, 33, steps - 1, steps, steps + 1, tile - 1, tile, tile + 1,
                                       3 * tile + 5, 20000 + static_cast<std::int64_t>(rng() % 50000)};
  for (const std::int64_t length : capped(lengths)) {
    for (int kind = 0; kind < 5; ++kind) {
      for (const bool reverse : {false, true}) {
        const std::int64_t channels = std::vector<std::int64_t>{1, 3, 37}[rng() % 3];
        const std::int64_t room = std::max<std::int64_t>(1, 150000 / (length * channels));
        const std::int64_t batch = 1 + static_cast<std::int64_t>(rng() % std::min<std::int64_t>(room, 4));
        recurrence_case c;
        c.layout = recurrence_layout_kind(kind, batch, channels, length);
        c.reverse = reverse;
        c.initial = rng() % 2;
        c.wide_gates = rng() % 2;
        c.zero_gates = rng() % 4 == 0;
        c.form = rng() % 4 == 0 ? recurrence_form::convenience : recurrence_form::two_phase;
        c.in_place = static_cast<recurrence_in_place>(rng() % 5 < 3 ? 0 : 1 + rng() % 2);
        c.gradient = rng() % 2;
        c.grad_in_place = rng() % 3 == 0;
        c.grad_initial = rng() % 2;
        run_recurrence_case<Backend, T>(rng, c);
      }
    }
  }
}

// Many short sequences in both layouts, the bench's shape at small T, and the
// gradient everywhere.
template <class Backend, class T>
void check_recurrence_batches() {
  auto rng = make_rng(std::string("recurrence.batches.") + Backend::name + typeid(T).name());
  struct shape {
    std::int64_t batch, channels, length;
  };
  // {4, 1024, 520}: enough sequences for one warp a sequence (dense rows), over
  // several of its chunks and a partial one.
  for (const shape sh : {shape{8, 1536, 16}, shape{4, 1024, 520}, shape{4, 96, 128}, shape{2, 300, 7},
                         shape{3, 1, 1000}}) {
    for (int kind : {0, 3}) {
      for (const bool reverse : {false, true})
        for (const bool initial : {true, false}) {
          recurrence_case c;
          c.layout = recurrence_layout_kind(kind, sh.batch, sh.channels, sh.length);
          c.reverse = reverse;
          c.initial = initial;
          c.wide_gates = rng() % 2;
          c.gradient = true;
          c.grad_initial = initial;
          run_recurrence_case<Backend, T>(rng, c);
        }
    }
  }
  // Nothing to do: batch 0, channels 0, length 0 (null pointers allowed then).
  for (const auto& l : {streamscan::time_last_layout(0, 4, 9), streamscan::time_last_layout(3, 0, 9),
                        streamscan::time_last_layout(3, 4, 0), streamscan::channels_last_layout(0, 0, 0)}) {
    std::vector<T> none;
    const streamscan::status s = Backend::template forward<T>(l, none, none, none, nullptr, {}, recurrence_form::two_phase,
                                                  recurrence_null::none, recurrence_in_place::none);
    EXPECT_TRUE(s.is_ok()) << s.message();
    std::vector<T> ga, gb;
    const streamscan::status g = Backend::template backward<T>(l, none, none, none, nullptr, ga, gb, nullptr, {},
                                                   recurrence_form::two_phase, recurrence_null::none, false);
    EXPECT_TRUE(g.is_ok()) << g.message();
  }
}

// Bad input: an error naming the argument, and nothing written.
template <class Backend, class T>
void check_recurrence_errors() {
  namespace ss = streamscan;
  auto rng = make_rng(std::string("recurrence.errors.") + Backend::name + typeid(T).name());
  const ss::recurrence_layout good = ss::time_last_layout(2, 3, 50);
  const std::int64_t extent = layout_extent(good);
  std::vector<T> a(static_cast<std::size_t>(extent)), b(a.size());
  for (auto& v : a) v = from_double<T>(0.5);
  for (auto& v : b) v = from_double<T>(0.25);
  auto expect_error = [&](const ss::recurrence_layout& l, recurrence_null null_arg, bool gradient, const char* needle) {
    std::vector<T> h(a.size(), recurrence_poison<T>()), gb(a.size(), recurrence_poison<T>());
    const ss::status s = gradient ? Backend::template backward<T>(l, a, b, b, nullptr, h, gb, nullptr, {}, recurrence_form::two_phase,
                                                      null_arg, false)
                                  : Backend::template forward<T>(l, a, b, h, nullptr, {}, recurrence_form::two_phase, null_arg,
                                                     recurrence_in_place::none);
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
    for (std::size_t i = 0; i < h.size(); ++i)
      if (!same_bits(h[i], recurrence_poison<T>()) || !same_bits(gb[i], recurrence_poison<T>())) {
        ADD_FAILURE() << needle << ": an output was written";
        break;
      }
  };
  auto broken = [&](auto change) {
    ss::recurrence_layout l = good;
    change(l);
    return l;
  };
  for (const bool gradient : {false, true}) {
    expect_error(broken([](auto& l) { l.length = -1; }), recurrence_null::none, gradient, "'layout.length' is negative");
    expect_error(broken([](auto& l) { l.batch_count = -2; }), recurrence_null::none, gradient,
                 "'layout.batch_count' is negative");
    expect_error(broken([](auto& l) { l.channels = -3; }), recurrence_null::none, gradient,
                 "'layout.channels' is negative");
    expect_error(broken([](auto& l) { l.time_stride = -1; }), recurrence_null::none, gradient,
                 "'layout.time_stride' is negative");
    expect_error(broken([](auto& l) { l.channel_stride = -1; }), recurrence_null::none, gradient,
                 "'layout.channel_stride' is negative");
    expect_error(broken([](auto& l) { l.batch_stride = -1; }), recurrence_null::none, gradient,
                 "'layout.batch_stride' is negative");
    expect_error(broken([](auto& l) { l.channel_stride = 49; }), recurrence_null::none, gradient,
                 "'layout.channel_stride' (49) is less than the 50 elements");
    expect_error(broken([](auto& l) { l.batch_stride = 100; }), recurrence_null::none, gradient,
                 "'layout.batch_stride' (100) is less than the 150 elements");
    expect_error(broken([](auto& l) { l.time_stride = 0; }), recurrence_null::none, gradient,
                 "'layout.time_stride' (0) is less than the 1 elements");
  }
  expect_error(good, recurrence_null::a, false, "'a' is a null pointer");
  expect_error(good, recurrence_null::b, false, "'b' is a null pointer");
  expect_error(good, recurrence_null::h, false, "'h' is a null pointer");
  expect_error(good, recurrence_null::a, true, "'a' is a null pointer");
  expect_error(good, recurrence_null::h, true, "'h' is a null pointer");
  expect_error(good, recurrence_null::dh, true, "'dh' is a null pointer");
  expect_error(good, recurrence_null::grad_a, true, "'grad_a' is a null pointer");
  expect_error(good, recurrence_null::grad_b, true, "'grad_b' is a null pointer");
  (void)rng;
}

// Overlaps, which the adapter's separate arrays cannot make: everything in
// one array of the back end this translation unit is built for.
template <class Backend, class T>
void check_recurrence_overlaps() {
  namespace ss = streamscan;
  ASSERT_STREQ(Backend::name, tu_backend::name) << "a CUDA translation unit runs the CUDA back end";
  const ss::recurrence_layout l = ss::time_last_layout(2, 2, 40);
  const std::int64_t e = layout_extent(l);
  std::vector<T> host(static_cast<std::size_t>(6 * e), from_double<T>(0.5));
  const std::vector<T> before = host;
  tu_backend::array<T> m(host);
  T* const base = m.data();
  std::size_t bytes = 0;
  ASSERT_TRUE(tu_backend::api::linear_recurrence<T>(nullptr, bytes, l, base, base + e, base + 2 * e).is_ok());
  tu_backend::array<unsigned char> temp{std::vector<unsigned char>(bytes)};
  auto forward = [&](const T* a, const T* b, T* h, const T* init, const std::string& needle) {
    std::size_t given = bytes;
    const ss::status s = tu_backend::api::linear_recurrence<T>(temp.data(), given, l, a, b, h, init);
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  forward(base, base + e, base + 1, nullptr, "arguments 'h' and 'a' overlap without being equal");
  forward(base, base + e, base + 2 * e - 1, nullptr, "arguments 'h' and 'b' overlap without being equal");
  forward(base, base + e, base + 2 * e, base + 2 * e + 3, "arguments 'h' and 'initial' overlap");
  auto backward = [&](const T* a, const T* h, const T* dh, T* ga, T* gb, T* gi, const std::string& needle) {
    std::size_t given = bytes;
    const ss::status s = tu_backend::api::linear_recurrence_backward<T>(temp.data(), given, l, a, h, dh, nullptr, ga, gb, gi);
    EXPECT_EQ(s.code(), ss::errc::invalid_argument) << needle << ": " << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  T *A = base, *H = base + e, *D = base + 2 * e, *GA = base + 3 * e, *GB = base + 4 * e, *GI = base + 5 * e;
  backward(A, H, D, A, GB, nullptr, "arguments 'grad_a' and 'a' overlap");
  backward(A, H, D, H + 3, GB, nullptr, "arguments 'grad_a' and 'h' overlap");
  backward(A, H, D, GA, D + 1, nullptr, "arguments 'grad_b' and 'dh' overlap without being equal");
  backward(A, H, D, GA, H, nullptr, "arguments 'grad_b' and 'h' overlap");
  backward(A, H, D, GA, GA + 5, nullptr, "arguments 'grad_a' and 'grad_b' overlap");
  backward(A, H, D, GA, GB, A, "arguments 'grad_initial' and 'a' overlap");
  const std::vector<T> after = m.values();
  EXPECT_EQ(std::memcmp(after.data(), before.data(), before.size() * sizeof(T)), 0) << "written on error";
  // The temp storage must be large enough.
  if (bytes > 1) {
    std::size_t small = bytes - 1;
    const ss::status s = tu_backend::api::linear_recurrence<T>(temp.data(), small, l, A, H, GA);
    EXPECT_EQ(s.code(), ss::errc::temp_storage_too_small) << s.message();
  }
  // And then in place on b, and grad_b on dh, run.
  std::size_t given = bytes;
  EXPECT_TRUE(tu_backend::api::linear_recurrence<T>(temp.data(), given, l, A, H, H).is_ok());
  EXPECT_TRUE(tu_backend::api::linear_recurrence_backward<T>(temp.data(), given, l, A, H, D, nullptr, GA, D, GI).is_ok());
  (void)m.values();
}

}  // namespace streamscan_test

#define STREAMSCAN_RECURRENCE_TESTS(Suite, Backend, ...)                                                     \
  template <class T>                                                                                        \
  class Suite : public streamscan_test::backend_typed_test<Backend, T> {};                                  \
  using Suite##_types = ::testing::Types<__VA_ARGS__>;                                                      \
  TYPED_TEST_SUITE(Suite, Suite##_types);                                                                   \
  TYPED_TEST(Suite, sizes_layouts_directions) { streamscan_test::check_recurrence_sizes<Backend, TypeParam>(); } \
  TYPED_TEST(Suite, batches_and_gradients) { streamscan_test::check_recurrence_batches<Backend, TypeParam>(); } \
  TYPED_TEST(Suite, bad_input) { streamscan_test::check_recurrence_errors<Backend, TypeParam>(); }          \
  TYPED_TEST(Suite, overlapping_arguments) { streamscan_test::check_recurrence_overlaps<Backend, TypeParam>(); }
