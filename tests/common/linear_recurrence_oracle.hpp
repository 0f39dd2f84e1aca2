// The linear recurrence's oracle: a naive loop in double over each sequence,
// kept apart from the CPU back end (its own reading of 16-bit values), and
// the magnitudes that bound a result's error: m[t] = |a[t]| m[t-1] + |b[t]|
// (|initial| before the first step), the size of every term that went into
// h[t]. Free of GoogleTest.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <streamscan/linear_recurrence.hpp>

namespace streamscan_test {

// A value's exact double, read from its bits.
inline double exact_value(float v) { return v; }
inline double exact_value(double v) { return v; }
inline double exact_value(streamscan::float16 v) {
  const int sign = v.bits >> 15, exponent = (v.bits >> 10) & 0x1f, mantissa = v.bits & 0x3ff;
  double m = exponent == 0x1f ? (mantissa ? NAN : INFINITY)
             : exponent == 0  ? std::ldexp(mantissa, -24)
                              : std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -m : m;
}
inline double exact_value(streamscan::bfloat16 v) {
  const std::uint32_t u = static_cast<std::uint32_t>(v.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

template <class T>
constexpr bool is_16bit_float_v = std::is_same_v<T, streamscan::float16> || std::is_same_v<T, streamscan::bfloat16>;

// Unit roundoff of the state type and of the stored values.
template <class T>
constexpr double state_epsilon() {
  return std::is_same_v<T, double> ? 1.1102230246251565e-16 : 5.960464477539063e-08;
}
template <class T>
constexpr double storage_epsilon() {
  return std::is_same_v<T, streamscan::bfloat16>  ? 3.90625e-03
         : std::is_same_v<T, streamscan::float16> ? 4.8828125e-04
                                                  : 0.0;
}

// The absolute error one rounding to the stored type may add near zero
// (float16's subnormals are 2^-24 apart).
template <class T>
constexpr double storage_floor() {
  return std::is_same_v<T, streamscan::float16> ? 5.960464477539063e-08 : 1e-300;
}

inline std::int64_t layout_at(const streamscan::recurrence_layout& l, std::int64_t s, std::int64_t t) {
  return (s / l.channels) * l.batch_stride + (s % l.channels) * l.channel_stride + t * l.time_stride;
}
inline std::int64_t layout_extent(const streamscan::recurrence_layout& l) {
  if (l.batch_count <= 0 || l.channels <= 0 || l.length <= 0) return 0;
  return (l.batch_count - 1) * l.batch_stride + (l.channels - 1) * l.channel_stride + (l.length - 1) * l.time_stride +
         1;
}

struct recurrence_oracle {
  std::vector<double> value, magnitude;  // by element offset; gaps stay 0
};

// h (reverse: walked from the end) in double.
template <class T>
recurrence_oracle oracle_recurrence(const streamscan::recurrence_layout& l, const std::vector<T>& a,
                                    const std::vector<T>& b, const std::vector<T>* initial, bool reverse) {
  recurrence_oracle o;
  o.value.assign(a.size(), 0.0);
  o.magnitude.assign(a.size(), 0.0);
  for (std::int64_t s = 0; s < l.sequences(); ++s) {
    double h = initial ? exact_value((*initial)[s]) : 0.0, m = std::fabs(h);
    for (std::int64_t i = 0; i < l.length; ++i) {
      const std::int64_t at = layout_at(l, s, reverse ? l.length - 1 - i : i);
      const double av = exact_value(a[at]), bv = exact_value(b[at]);
      h = av == 0 ? bv : av * h + bv;
      m = std::fabs(av) * m + std::fabs(bv);
      o.value[at] = h;
      o.magnitude[at] = m;
    }
  }
  return o;
}

struct recurrence_gradient_oracle {
  recurrence_oracle grad_b;                       // g and its magnitudes
  std::vector<double> grad_a, grad_a_bound_scale;  // g h[t-1], and gm |h[t-1]|
  std::vector<double> grad_initial, grad_initial_scale;
};

// The gradient from its definition, forward time u (reverse: mirrored).
template <class T>
recurrence_gradient_oracle oracle_recurrence_gradient(const streamscan::recurrence_layout& l, const std::vector<T>& a,
                                                      const std::vector<T>& h, const std::vector<T>& dh,
                                                      const std::vector<T>* initial, bool reverse) {
  recurrence_gradient_oracle o;
  o.grad_b.value.assign(a.size(), 0.0);
  o.grad_b.magnitude.assign(a.size(), 0.0);
  o.grad_a.assign(a.size(), 0.0);
  o.grad_a_bound_scale.assign(a.size(), 0.0);
  o.grad_initial.assign(static_cast<std::size_t>(l.sequences()), 0.0);
  o.grad_initial_scale.assign(static_cast<std::size_t>(l.sequences()), 0.0);
  const std::int64_t n = l.length;
  auto at = [&](std::int64_t s, std::int64_t u) { return layout_at(l, s, reverse ? n - 1 - u : u); };
  for (std::int64_t s = 0; s < l.sequences(); ++s) {
    double g = 0, gm = 0;
    for (std::int64_t u = n - 1; u >= 0; --u) {
      const double next_a = u + 1 < n ? exact_value(a[at(s, u + 1)]) : 0.0;
      const double d = exact_value(dh[at(s, u)]);
      g = next_a == 0 ? d : next_a * g + d;
      gm = std::fabs(next_a) * gm + std::fabs(d);
      const double h_prev = u > 0 ? exact_value(h[at(s, u - 1)]) : initial ? exact_value((*initial)[s]) : 0.0;
      o.grad_b.value[at(s, u)] = g;
      o.grad_b.magnitude[at(s, u)] = gm;
      o.grad_a[at(s, u)] = g * h_prev;
      o.grad_a_bound_scale[at(s, u)] = gm * std::fabs(h_prev);
    }
    if (n > 0) {
      const double a0 = exact_value(a[at(s, 0)]);
      o.grad_initial[s] = a0 * g;
      o.grad_initial_scale[s] = std::fabs(a0) * gm;
    }
  }
  return o;
}

}  // namespace streamscan_test
