#include "tune_rule.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "report.hpp"

namespace streamscan_tool {

keep_decision decide_keep(const std::vector<double>& default_ms, const std::vector<double>& winner_ms,
                          double min_gain) {
  if (default_ms.size() != winner_ms.size())
    throw std::invalid_argument("decide_keep: default_ms has " + std::to_string(default_ms.size()) +
                                " rounds, winner_ms " + std::to_string(winner_ms.size()));
  keep_decision d;
  d.min_gain = min_gain;
  d.needed = min_gain;
  const bool valid = !default_ms.empty() &&
                     std::all_of(default_ms.begin(), default_ms.end(), [](double x) { return x > 0; }) &&
                     std::all_of(winner_ms.begin(), winner_ms.end(), [](double x) { return x > 0; });
  if (!valid) return d;
  std::vector<double> ratios(default_ms.size());
  for (std::size_t i = 0; i < ratios.size(); ++i) ratios[i] = winner_ms[i] / default_ms[i];
  const timing r = timing::of(ratios);  // the bench's median and noise, of ratios instead of times
  d.ratio = r.median_ms;
  d.noise = r.noise_pct / 100.0;
  d.needed = std::max(d.noise, min_gain);
  d.default_ms = timing::of(default_ms).median_ms;
  d.winner_ms = timing::of(winner_ms).median_ms;
  d.keep = 1.0 - d.ratio > d.needed;
  return d;
}

std::string describe(const keep_decision& d, const std::string& winner) {
  char text[256];
  const double gain = 100.0 * (1.0 - d.ratio), noise = 100.0 * d.noise, minimum = 100.0 * d.min_gain;
  if (d.default_ms <= 0)
    std::snprintf(text, sizeof text, "dropped %s: no valid re-timing", winner.c_str());
  else if (d.keep)
    std::snprintf(text, sizeof text, "kept %s: %.3fx the default's time, a gain of %.1f%% beyond the noise of %.1f%% "
                  "(minimum %.0f%%)", winner.c_str(), d.ratio, gain, noise, minimum);
  else if (d.ratio >= 1.0)
    std::snprintf(text, sizeof text, "dropped %s: %.3fx the default's time, not faster (noise %.1f%%)",
                  winner.c_str(), d.ratio, noise);
  else if (d.noise >= d.min_gain)
    std::snprintf(text, sizeof text, "dropped %s: %.3fx the default's time, a gain of %.1f%% within the noise of %.1f%%",
                  winner.c_str(), d.ratio, gain, noise);
  else
    std::snprintf(text, sizeof text, "dropped %s: %.3fx the default's time, a gain of %.1f%% below the minimum of "
                  "%.0f%% (noise %.1f%%)", winner.c_str(), d.ratio, gain, minimum, noise);
  return text;
}

}  // namespace streamscan_tool
