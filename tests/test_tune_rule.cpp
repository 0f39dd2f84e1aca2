// The tuner's keep rule (tools/tune_rule.hpp): a winner replaces the built-in
// default only when faster by more than the re-timing's noise and the minimum
// gain; the message says which, and drift that falls on both alike cancels.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tune_rule.hpp"

namespace {
using namespace streamscan_tool;

// Rounds of a default at `base` ms and a winner at base * ratio[i % size].
struct rounds {
  std::vector<double> default_ms, winner_ms;
  rounds(int count, double base, std::vector<double> ratio) {
    for (int i = 0; i < count; ++i) {
      default_ms.push_back(base);
      winner_ms.push_back(base * ratio[i % ratio.size()]);
    }
  }
  keep_decision decide(double min_gain) const { return decide_keep(default_ms, winner_ms, min_gain); }
};

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Whether what tune prints for decision d about `winner` holds every part.
testing::AssertionResult describes(const keep_decision& d, const std::string& winner,
                                   const std::vector<std::string>& parts) {
  const std::string text = describe(d, winner);
  for (const std::string& part : parts)
    if (!says(text, part)) return testing::AssertionFailure() << "'" << text << "' lacks '" << part << "'";
  return testing::AssertionSuccess();
}

TEST(TuneRule, MinimumGainIsLargerBelowTwoToTheTwenty) {
  EXPECT_DOUBLE_EQ(min_gain(std::int64_t{1} << 18), 0.05);
  EXPECT_DOUBLE_EQ(min_gain(std::int64_t{1} << 20), 0.02);
  EXPECT_DOUBLE_EQ(min_gain(std::int64_t{1} << 28), 0.02);
}

TEST(TuneRule, KeepsAClearWinBeyondTheNoise) {
  const keep_decision d = rounds(30, 1.0, {0.92, 0.93, 0.94}).decide(0.02);
  EXPECT_TRUE(d.keep);
  EXPECT_NEAR(d.ratio, 0.93, 1e-9);
  EXPECT_GT(d.noise, 0.0);
  EXPECT_LT(d.noise, 0.02);
  EXPECT_DOUBLE_EQ(d.needed, 0.02);
  EXPECT_DOUBLE_EQ(d.default_ms, 1.0);
  EXPECT_NEAR(d.winner_ms, 0.93, 1e-9);
  EXPECT_TRUE(describes(d, "t256x12", {"kept t256x12: 0.930x the default's time", "beyond the noise"}));
}

TEST(TuneRule, DropsAWinWithinTheNoise) {
  // Median 0.95 (a 5% gain) but the rounds swing by about 15%.
  const keep_decision d = rounds(30, 1.0, {0.80, 0.95, 1.10}).decide(0.02);
  EXPECT_FALSE(d.keep);
  EXPECT_NEAR(d.ratio, 0.95, 1e-9);
  EXPECT_GT(d.noise, 0.05);
  EXPECT_DOUBLE_EQ(d.needed, d.noise);
  EXPECT_TRUE(describes(d, "p256x8s6", {"dropped p256x8s6: 0.950x", "within the noise"}));
}

TEST(TuneRule, DropsAQuietWinBelowTheMinimum) {
  const rounds r(30, 2.0, {0.985, 0.99, 0.995});
  const keep_decision d = r.decide(0.02);
  EXPECT_FALSE(d.keep);
  EXPECT_LT(d.noise, 0.02);
  EXPECT_TRUE(describes(d, "t128x8", {"below the minimum of 2%"}));
  EXPECT_TRUE(r.decide(0.005).keep);  // the same rounds clear a 0.5% minimum
}

TEST(TuneRule, DropsAWinnerThatIsNotFaster) {
  const keep_decision d = rounds(20, 1.0, {1.002, 1.004, 1.006}).decide(0.02);
  EXPECT_FALSE(d.keep);
  EXPECT_TRUE(describes(d, "t256x8", {"1.004x the default's time, not faster"}));
}

TEST(TuneRule, AGainEqualToTheThresholdIsNotEnough) {
  // No spread: the threshold is the minimum gain exactly.
  const keep_decision d = rounds(9, 1.0, {0.98}).decide(1.0 - 0.98);
  EXPECT_LT(d.noise, 1e-12);
  EXPECT_FALSE(d.keep);
}

TEST(TuneRule, DriftOnBothAlikeCancels) {
  // The GPU slows by half over the rounds; each round the winner takes 0.9x
  // the default's time. Unpaired, the times spread by far more than 10%.
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    const double base = 1.0 + i / 60.0;
    a.push_back(base);
    b.push_back(0.9 * base);
  }
  const keep_decision d = decide_keep(a, b, 0.02);
  EXPECT_TRUE(d.keep);
  EXPECT_NEAR(d.ratio, 0.9, 1e-9);
  EXPECT_LT(d.noise, 1e-9);
}

TEST(TuneRule, NoValidRoundsKeepNothing) {
  const keep_decision none = decide_keep({}, {}, 0.02);
  EXPECT_FALSE(none.keep);
  EXPECT_TRUE(describes(none, "t128x16", {"dropped t128x16: no valid re-timing"}));
  EXPECT_FALSE(decide_keep({1.0, 1.0, 0.0}, {0.5, 0.5, 0.5}, 0.02).keep);
  EXPECT_FALSE(decide_keep({1.0, 1.0, 1.0}, {0.5, -1.0, 0.5}, 0.02).keep);
}

TEST(TuneRule, RoundsOfDifferentLengthsNameTheArgument) {
  try {
    decide_keep({1.0, 1.0}, {1.0}, 0.02);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(says(e.what(), "default_ms")) << e.what();
    EXPECT_TRUE(says(e.what(), "winner_ms")) << e.what();
  }
}

}  // namespace
