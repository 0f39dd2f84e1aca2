// The naive host oracle: one sequential loop, written apart from (and simpler
// than) the CPU back end, so the two cannot share a mistake.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace streamscan_test {

enum class scan_kind { inclusive, inclusive_init, exclusive };

inline const char* to_string(scan_kind k) {
  return k == scan_kind::inclusive ? "inclusive" : k == scan_kind::inclusive_init ? "inclusive_init" : "exclusive";
}

// Returns the expected output in the accumulator type A.
template <class A, class In, class Op>
std::vector<A> oracle_scan(const std::vector<In>& in, Op op, scan_kind kind, const A& init) {
  std::vector<A> out;
  out.reserve(in.size());
  if (in.empty()) return out;
  if (kind == scan_kind::exclusive) {
    A acc = init;
    for (const In& x : in) {
      out.push_back(acc);
      acc = op(acc, static_cast<A>(x));
    }
    return out;
  }
  A acc = kind == scan_kind::inclusive_init ? op(init, static_cast<A>(in[0])) : static_cast<A>(in[0]);
  out.push_back(acc);
  for (std::size_t i = 1; i < in.size(); ++i) {
    acc = op(acc, static_cast<A>(in[i]));
    out.push_back(acc);
  }
  return out;
}

// For floating point: a bound on the magnitude of every intermediate value any
// summation order can form on the way to element i. Those are sums of
// contiguous ranges (plus init), i.e. differences of two exact prefixes, so
// m_i = 2 max_{j<=i} |P_j| + max_{j<=i} |x_j| + |init| bounds them all.
template <class In>
std::vector<double> float_error_scale(const std::vector<In>& in, const std::vector<double>& exact, double init_abs) {
  std::vector<double> out(in.size());
  double max_prefix = 0, max_x = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const double p = exact[i] < 0 ? -exact[i] : exact[i];
    const double x = in[i] < 0 ? -static_cast<double>(in[i]) : static_cast<double>(in[i]);
    max_prefix = p > max_prefix ? p : max_prefix;
    max_x = x > max_x ? x : max_x;
    out[i] = 2 * max_prefix + max_x + init_abs;
  }
  return out;
}

}  // namespace streamscan_test

namespace streamscan_test {

// Segmented reduction, one value per segment, from offsets: segment k is
// [offsets[k], offsets[k+1]); an empty one gives init.
template <class A, class Op>
std::vector<A> oracle_segmented_reduce_offsets(const std::vector<A>& in, const std::vector<std::int64_t>& offsets,
                                               Op op, const A& init) {
  std::vector<A> out;
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
    A acc = init;
    for (std::int64_t i = offsets[k]; i < offsets[k + 1]; ++i) acc = op(acc, in[static_cast<std::size_t>(i)]);
    out.push_back(acc);
  }
  return out;
}

// The same from head flags: element 0 and every flagged element start a segment.
template <class A, class Op>
std::vector<A> oracle_segmented_reduce_flags(const std::vector<A>& in, const std::vector<unsigned char>& flags, Op op,
                                             const A& init) {
  std::vector<A> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || flags[i] != 0) out.push_back(init);
    out.back() = op(out.back(), in[i]);
  }
  return out;
}

}  // namespace streamscan_test
