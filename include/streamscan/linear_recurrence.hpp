// streamscan/linear_recurrence.hpp - first-order linear recurrences, shared by
// every back end. No CUDA.
//
// For every sequence s of a batch and every time step t in [0, length):
//
//   forward:  h[t] = a[t] * h[t-1] + b[t],   h[-1]     = initial[s] (0 without one)
//   reverse:  h[t] = a[t] * h[t+1] + b[t],   h[length] = initial[s]
//
// a scan with the associative, non-commutative operator on (a, b) pairs
//   (a1, b1) . (a2, b2) = (a1 a2, a2 b1 + b2).
// Where a[t] == 0, h[t] = b[t]: a zero gate forgets the past, even an
// infinite or NaN one (so sequences never leak into each other, whatever the
// tiling; IEEE arithmetic would give NaN for 0 * inf).
//
// Layout (recurrence_layout): sequences are (batch, channel) pairs, s = batch
// index * channels + channel; element t of sequence s lives at
//   (s / channels) * batch_stride + (s % channels) * channel_stride + t * time_stride
// (in elements) in a, b and h alike. Two layouts cover most models:
//   time_last_layout(B, C, T):     [B, C, T], time contiguous
//   channels_last_layout(B, T, C): [B, T, C], channels contiguous
// Any strides >= 0 whose elements do not overlap are accepted (each dimension's
// stride at least the span of the dimensions with smaller strides); the fast
// paths are time_stride == 1 and channel_stride == 1. initial (optional) and
// grad_initial hold one value per sequence, at index s (contiguous [B, C]).
//
// Types: float and double (state of the same type); float16 and bfloat16 in
// and out with float32 state (each h is rounded once to the output type; the
// carried state is not). The CPU back end takes streamscan::float16 and
// streamscan::bfloat16 (their bits); the CUDA back end takes those and
// __half / __nv_bfloat16.
//
// In place: h may be a or b itself (the same pointer, the same layout); other
// overlaps of h with a, b or initial are refused.
//
// Gradient (linear_recurrence_backward), for the forward direction, given
// dh = dL/dh and the h the forward call produced:
//   g[t] = a[t+1] g[t+1] + dh[t]  (g[length] = 0)      -> grad_b[t] = g[t]
//   grad_a[t] = g[t] h[t-1]        (h[-1] = initial or 0)
//   grad_initial[s] = a[0] g[0]
// (reverse: mirrored in time.) One pass reads dh, a and h and writes grad_a
// and grad_b. grad_b may be dh itself; grad_a must not overlap a, h or dh.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "config.hpp"

namespace streamscan {

// IEEE binary16 and bfloat16 by their bits (layout-compatible with CUDA's
// __half and __nv_bfloat16), for code without CUDA headers.
struct float16 {
  std::uint16_t bits;
};
struct bfloat16 {
  std::uint16_t bits;
};

struct recurrence_layout {
  std::int64_t batch_count = 0;
  std::int64_t length = 0;  // time steps T of every sequence
  std::int64_t channels = 1;
  std::int64_t time_stride = 1;     // elements between t and t + 1
  std::int64_t channel_stride = 0;  // between channel c and c + 1
  std::int64_t batch_stride = 0;    // between batch index i and i + 1
  std::int64_t sequences() const { return batch_count * channels; }
};

// [batch, channels, length]: each sequence contiguous.
inline recurrence_layout time_last_layout(std::int64_t batch, std::int64_t channels, std::int64_t length) {
  return {batch, length, channels, 1, length, channels * length};
}
// [batch, length, channels]: the channels of a time step contiguous.
inline recurrence_layout channels_last_layout(std::int64_t batch, std::int64_t length, std::int64_t channels) {
  return {batch, length, channels, channels, 1, length * channels};
}

struct recurrence_options {
  bool reverse = false;  // h[t] = a[t] h[t+1] + b[t]
};

namespace detail {

inline float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline std::uint32_t float_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Host conversions, round to nearest even (the CUDA back end uses the
// hardware's, which round the same way).
inline float to_float(float16 h) {
  const std::uint32_t sign = (h.bits & 0x8000u) << 16, exponent = (h.bits >> 10) & 0x1fu, mantissa = h.bits & 0x3ffu;
  if (exponent == 0x1f) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    const float m = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // 2^-24
    return sign ? -m : m;
  }
  return bits_to_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
inline float to_float(bfloat16 h) { return bits_to_float(static_cast<std::uint32_t>(h.bits) << 16); }

inline bfloat16 to_bfloat16(float f) {
  const std::uint32_t u = float_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return {static_cast<std::uint16_t>((u >> 16) | 0x40u)};  // quiet NaN
  return {static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
}

inline float16 to_float16(float f) {
  const std::uint32_t u = float_to_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) return {static_cast<std::uint16_t>(sign | 0x7e00u)};  // NaN
  if (mag >= 0x477ff000u) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // rounds past 65504: inf
  if (mag < 0x38800000u) {  // below 2^-14: a subnormal (or zero) result, in units of 2^-24
    const float m = bits_to_float(mag) * 16777216.0f;  // exact: a power-of-two scale
    // round to nearest even by the FPU's own rounding of a float to an integer-valued float
    const float r = m + 12582912.0f - 12582912.0f;  // 1.5 * 2^23: rounds to an integer, ties to even
    return {static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r))};
  }
  const std::uint32_t rounded = mag + 0xfffu + ((mag >> 13) & 1u);
  return {static_cast<std::uint16_t>(sign | ((rounded - (112u << 23)) >> 13))};
}

// What a value of type T is carried as, and how it is read and written.
template <class T>
struct recurrence_traits {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "streamscan::linear_recurrence: values are float, double, float16 or bfloat16");
  using state = T;
  static state load(T v) { return v; }
  static T store(state v) { return v; }
};
template <>
struct recurrence_traits<float16> {
  using state = float;
  static state load(float16 v) { return to_float(v); }
  static float16 store(state v) { return to_float16(v); }
};
template <>
struct recurrence_traits<bfloat16> {
  using state = float;
  static state load(bfloat16 v) { return to_float(v); }
  static bfloat16 store(state v) { return to_bfloat16(v); }
};

// An (a, b) pair: the map h -> a h + b. a == 0 means "closed": nothing before
// it matters (a sequence's first step, or a zero gate).
template <class S>
struct recurrence_pair {
  S a, b;
};

// The scan operator: first x, then y. Associative whenever + and * are.
template <class S>
STREAMSCAN_HOST_DEVICE inline recurrence_pair<S> compose(const recurrence_pair<S>& x, const recurrence_pair<S>& y) {
  if (y.a == S(0)) return y;
  return {x.a * y.a, y.a * x.b + y.b};
}

// One step of the recurrence: a h + b, or b where a == 0.
template <class S>
STREAMSCAN_HOST_DEVICE inline S step(S a, S h, S b) {
  return a == S(0) ? b : a * h + b;
}

}  // namespace detail
}  // namespace streamscan
