// Segmented and backward scans, enumerate and distribute: the segments in
// their three descriptions and the naive host oracle (no test framework, so
// that `streamscan verify` uses it as well).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <streamscan/scan_options.hpp>
#include <streamscan/segmented.hpp>

namespace streamscan_test {

enum class seg_form { flags, bits, offsets, none };
enum class seg_kind { inclusive, inclusive_init, exclusive, enumerate, distribute };

inline const char* to_string(seg_form f) {
  return f == seg_form::flags ? "head_flags" : f == seg_form::bits ? "head_bits" : f == seg_form::offsets ? "offsets" : "no_segments";
}
inline const char* to_string(seg_kind k) {
  switch (k) {
    case seg_kind::inclusive: return "inclusive";
    case seg_kind::inclusive_init: return "inclusive_init";
    case seg_kind::exclusive: return "exclusive";
    case seg_kind::enumerate: return "enumerate";
    default: return "distribute";
  }
}

struct seg_request {
  seg_kind kind;
  seg_form form;
  streamscan::scan_direction direction;
  streamscan::scan_strategy strategy;
  bool in_place = false;
  const char* policy = nullptr;  // options.scan.policy (the GPU reads it)
  int offset = 0;                // in and out start this many elements into their buffers
};

// The segments in three descriptions. flags[0] may be 0: element 0 starts a
// segment anyway. Offsets include empty segments.
struct segments_fixture {
  std::vector<unsigned char> flags;
  std::vector<std::uint32_t> bits;
  std::vector<std::int64_t> offsets;  // num_segments + 1 entries
};

inline segments_fixture make_segments(std::mt19937_64& rng, std::int64_t n, double mean_length) {
  segments_fixture s;
  s.flags.assign(static_cast<std::size_t>(n), 0);
  std::bernoulli_distribution head(mean_length <= 1 ? 1.0 : 1.0 / mean_length);
  // Any nonzero byte flags a head (the GPU tests bytes 16 at a time).
  for (auto& f : s.flags) f = head(rng) ? static_cast<unsigned char>(1 + rng() % 255) : 0;
  s.bits.assign(static_cast<std::size_t>((n + 31) / 32), 0u);
  std::bernoulli_distribution empty(0.2);
  s.offsets.push_back(0);
  for (std::int64_t i = 0; i < n; ++i) {
    if (!s.flags[i]) continue;
    s.bits[i / 32] |= 1u << (i % 32);
    if (i == 0) continue;
    while (empty(rng)) s.offsets.push_back(i);  // empty segments before this one
    s.offsets.push_back(i);
  }
  s.offsets.push_back(n);
  return s;
}

// The naive oracle: walks each segment in scan order.
template <class A, class Op>
std::vector<A> oracle_segmented(const std::vector<A>& in, const std::vector<unsigned char>& flags, Op op,
                                seg_kind kind, const A& init, streamscan::scan_direction dir) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  std::vector<A> out(in.size());
  std::int64_t s = 0;
  while (s < n) {
    std::int64_t e = s + 1;
    while (e < n && !flags[e]) ++e;
    const bool fwd = dir == streamscan::scan_direction::forward;
    A acc = init;
    bool first = true;
    for (std::int64_t j = 0; j < e - s; ++j) {
      const std::int64_t i = fwd ? s + j : e - 1 - j;
      if (kind == seg_kind::exclusive) {
        out[i] = acc;
        acc = op(acc, in[i]);
      } else if (kind == seg_kind::distribute) {
        if (first) acc = in[i];
        out[i] = acc;
      } else {
        acc = first ? (kind == seg_kind::inclusive_init ? op(init, in[i]) : in[i]) : op(acc, in[i]);
        out[i] = acc;
      }
      first = false;
    }
    s = e;
  }
  return out;
}

}  // namespace streamscan_test
