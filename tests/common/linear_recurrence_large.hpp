// The linear recurrence past 2^31 elements (test_linear_recurrence_cuda_float.cu)
// and its host check, kept apart so that the CPU tests run the same check on
// the CPU back end at small sizes (test_linear_recurrence_cpu.cpp). Free of
// GoogleTest and of CUDA headers.
//
// Inputs come from a formula of the element's offset, so the device fills
// them and the host recomputes them without keeping them: 8-bit hashes, gates
// 0.5 + k/256 (k < 128: 8 significant bits) and inputs (k - 128)/256, every
// value exact in float and in bfloat16. The oracle still runs on the values as
// stored (the formula sent through the storage type), so a formula that is not
// exact in it cannot make the check compare against other inputs than the
// kernel's.
//
// The check: every element of a sample of whole sequences (warp-group edges,
// the last group, and a spread of channels: every tile edge along time of
// each of them), and every sequence over the first `head` steps, walked
// time-major (the host memory of channels-last data in order). Bound per
// element: |got - h| <= tol m, m[t] = |a| m[t-1] + |b| the size of what went
// into h[t], tol = float rounding along the path plus half an ulp of the
// stored type (storage_eps, 2^-8 for bfloat16). m == 0 is exact (a NaN ratio
// there must not reset the running worst).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <streamscan/linear_recurrence.hpp>

#include "linear_recurrence_oracle.hpp"

#if defined(__CUDACC__)
#define STREAMSCAN_LARGE_HD __host__ __device__
#else
#define STREAMSCAN_LARGE_HD
#endif

namespace streamscan_test {

STREAMSCAN_LARGE_HD inline unsigned large_recurrence_hash(std::int64_t i, unsigned salt) {
  std::uint64_t h = (static_cast<std::uint64_t>(i) + salt) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return static_cast<unsigned>(h >> 56);  // 8 bits
}
// [0.5, 0.99609375] in steps of 2^-8: exact in bfloat16 (and float16).
STREAMSCAN_LARGE_HD inline float large_recurrence_gate(std::int64_t i) {
  return 0.5f + static_cast<float>(large_recurrence_hash(i, 1) >> 1) * (1.0f / 256);
}
// [-0.5, 0.49609375] in steps of 2^-8.
STREAMSCAN_LARGE_HD inline float large_recurrence_input(std::int64_t i) {
  return (static_cast<float>(large_recurrence_hash(i, 2)) - 128.0f) * (1.0f / 256);
}

struct large_recurrence_result {
  double worst = 0;         // largest |got - h| / (tol m); NaN if any was NaN
  std::int64_t at = -1;     // its element
  std::int64_t checked = 0;  // elements compared
  std::int64_t bad = 0;      // elements past the bound
  std::int64_t first_bad = -1;
};

// Channels checked over the whole length (the rest over the first `head`
// steps): lanes 0, 1, 31 of the first warp group, both sides of the next
// group edges, the last (partial) group, and every `spread`-th channel.
inline std::vector<std::int64_t> large_recurrence_sample(std::int64_t sequences, std::int64_t spread = 37) {
  std::vector<std::int64_t> s;
  for (std::int64_t v : {0, 1, 31, 32, 33, 63, 64, 95, 96}) s.push_back(v);
  const std::int64_t last_group = sequences / 32 * 32;
  for (std::int64_t v : {last_group - 1, last_group, last_group + 1, sequences - 2, sequences - 1}) s.push_back(v);
  for (std::int64_t v = 5; v < sequences; v += spread) s.push_back(v);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  s.erase(std::remove_if(s.begin(), s.end(), [&](std::int64_t v) { return v < 0 || v >= sequences; }), s.end());
  return s;
}

// stored(float) -> double: the formula's value as the kernel read it; got(i)
// -> double: the output at element offset i. Forward direction, no initial
// state.
template <class Stored, class Got>
large_recurrence_result check_large_recurrence_host(const streamscan::recurrence_layout& l, double tol,
                                                    std::int64_t head, Stored stored, Got got) {
  large_recurrence_result r;
  const std::int64_t n_seq = l.sequences();
  const std::vector<std::int64_t> sample = large_recurrence_sample(n_seq);
  auto compare = [&](std::int64_t i, double x, double m) {
    const double err = std::fabs(got(i) - x);
    const double q = err == 0 ? 0.0 : err / (tol * m);  // m == 0 and err > 0: inf
    ++r.checked;
    if (!(q <= 1.0)) {
      if (r.bad++ == 0) r.first_bad = i;
    }
    if (std::isnan(q) || (!std::isnan(r.worst) && q > r.worst)) {
      r.worst = q;
      r.at = i;
    }
  };
  auto run = [&](const std::vector<std::int64_t>& seqs, std::int64_t steps) {
    struct state {
      double x = 0, m = 0;  // h and its magnitude
    };
    std::vector<state> st(seqs.size());
    for (std::int64_t t = 0; t < steps; ++t)
      for (std::size_t k = 0; k < seqs.size(); ++k) {
        const std::int64_t i = layout_at(l, seqs[k], t);
        const double a = stored(large_recurrence_gate(i)), b = stored(large_recurrence_input(i));
        st[k].x = a == 0 ? b : a * st[k].x + b;
        st[k].m = std::fabs(a) * st[k].m + std::fabs(b);
        compare(i, st[k].x, st[k].m);
      }
  };
  run(sample, l.length);
  std::vector<std::int64_t> rest;
  for (std::int64_t s = 0, k = 0; s < n_seq; ++s) {
    while (k < static_cast<std::int64_t>(sample.size()) && sample[k] < s) ++k;
    if (k < static_cast<std::int64_t>(sample.size()) && sample[k] == s) continue;
    rest.push_back(s);
  }
  run(rest, std::min(head, l.length));
  return r;
}

}  // namespace streamscan_test
