// The tuner's keep rule, apart from any GPU code so that tests check it
// without a device: a searched winner replaces the built-in default only when,
// re-timed against it in the same process and interleaved, it is faster by
// more than the noise of that re-timing and by at least a fixed minimum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamscan_tool {

// The least gain a winner must show, however quiet the GPU: run to run noise
// of a median is about 1% from 2^20 up; below, where a call takes 10-20 us,
// re-measurements moved by up to 5%.
constexpr double min_gain(std::int64_t n) { return n < (std::int64_t{1} << 20) ? 0.05 : 0.02; }

struct keep_decision {
  bool keep = false;
  double ratio = 1;       // the winner's time / the default's: the median of the rounds' ratios
  double noise = 0;       // the rounds' ratios' standard deviation / their mean (the bench's noise)
  double needed = 0;      // the gain (1 - ratio) it had to exceed: the larger of noise and min_gain
  double min_gain = 0;
  double default_ms = 0;  // medians of the rounds
  double winner_ms = 0;
};

// default_ms[i] and winner_ms[i] are round i of an interleaved re-timing of
// the built-in default and the winner. Pairing by round cancels drift that
// falls on both alike; what remains in the per-round ratios is the noise.
// Throws std::invalid_argument (naming the argument) when the two differ in
// length; no rounds or a time that is not positive keeps nothing.
keep_decision decide_keep(const std::vector<double>& default_ms, const std::vector<double>& winner_ms,
                          double min_gain);

// What was decided and why, e.g. "kept t256x12: 0.930x the default's time,
// a gain of 7.0% beyond the noise of 0.6%" or "dropped p256x8s6: 1.004x the
// default's time, not faster (noise 0.8%)".
std::string describe(const keep_decision& d, const std::string& winner);

}  // namespace streamscan_tool
