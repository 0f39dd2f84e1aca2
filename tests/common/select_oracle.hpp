// Compaction, partition, split and split-and-segment: the request's kinds,
// the predicate, and the naive host oracle (one loop; no test framework, so
// that `streamscan verify` uses it as well).
#pragma once

#include <cstdint>
#include <vector>

#include <streamscan/config.hpp>
#include <streamscan/select.hpp>

namespace streamscan_test {

enum class select_kind {
  select_if,
  select_flagged,
  select_indices,
  partition,
  partition_pairs,
  stable_partition,
  stable_partition_pairs,
  split,
  split_and_segment
};

inline const char* to_string(select_kind k) {
  switch (k) {
    case select_kind::select_if: return "select_if";
    case select_kind::select_flagged: return "select_flagged";
    case select_kind::select_indices: return "select_indices";
    case select_kind::partition: return "partition";
    case select_kind::partition_pairs: return "partition_pairs";
    case select_kind::stable_partition: return "stable_partition";
    case select_kind::stable_partition_pairs: return "stable_partition_pairs";
    case select_kind::split: return "split";
    default: return "split_and_segment";
  }
}

struct select_request {
  select_kind kind;
  std::int64_t capacity;  // compaction only
  bool in_place = false;  // compaction only
  std::int32_t threshold = 0;  // select_if / partition keep values below it (keep[] agrees)
  streamscan::select_strategy strategy = streamscan::select_strategy::automatic;
  const char* policy = nullptr;  // select_options::policy
};

// Whether a compaction strategy leaves the selected elements in no particular order.
inline bool unordered(streamscan::select_strategy s) {
  return s == streamscan::select_strategy::hybrid || s == streamscan::select_strategy::warp_atomic;
}

// The predicate of select_if / partition: values below the threshold are kept.
struct below {
  std::int32_t threshold;
  template <class T>
  STREAMSCAN_HOST_DEVICE bool operator()(const T& x) const {
    return x < threshold;
  }
};

// Expected output of one request: out (int64 values, or indices), heads_out, num.
struct select_expectation {
  std::vector<std::int64_t> out;
  std::vector<unsigned char> heads_out;
  std::int64_t num = 0;
};

inline select_expectation oracle_select(select_kind kind, const std::vector<std::int32_t>& in,
                                        const std::vector<unsigned char>& keep,
                                        const std::vector<unsigned char>& heads) {
  select_expectation e;
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  std::vector<std::int64_t> kept, rejected;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = kind == select_kind::select_indices ? i : in[i];
    (keep[i] ? kept : rejected).push_back(v);
  }
  switch (kind) {
    case select_kind::split:  // falses first
      e.out = rejected;
      e.out.insert(e.out.end(), kept.begin(), kept.end());
      e.num = static_cast<std::int64_t>(rejected.size());
      break;
    case select_kind::partition:  // CUB's convention: the rejected in reverse
    case select_kind::partition_pairs:
      e.out = kept;
      e.out.insert(e.out.end(), rejected.rbegin(), rejected.rend());
      e.num = static_cast<std::int64_t>(kept.size());
      break;
    case select_kind::stable_partition:
    case select_kind::stable_partition_pairs:
      e.out = kept;
      e.out.insert(e.out.end(), rejected.begin(), rejected.end());
      e.num = static_cast<std::int64_t>(kept.size());
      break;
    case select_kind::split_and_segment: {
      e.heads_out.assign(in.size(), 0);
      std::int64_t s = 0;
      while (s < n) {
        std::int64_t t = s + 1;
        while (t < n && !heads[t]) ++t;
        std::vector<std::int64_t> f, tr;
        for (std::int64_t i = s; i < t; ++i) (keep[i] ? tr : f).push_back(in[i]);
        if (!f.empty()) e.heads_out[s] = 1;
        if (!tr.empty()) e.heads_out[s + static_cast<std::int64_t>(f.size())] = 1;
        e.out.insert(e.out.end(), f.begin(), f.end());
        e.out.insert(e.out.end(), tr.begin(), tr.end());
        s = t;
      }
      break;
    }
    default:
      e.out = kept;
      e.num = static_cast<std::int64_t>(kept.size());
  }
  return e;
}

}  // namespace streamscan_test
