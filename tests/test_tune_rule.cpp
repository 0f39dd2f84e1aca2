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
};

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TuneRule, MinimumGainIsLargerBelowTwoToTheTwenty) {
  EXPECT_DOUBLE_EQ(min_gain(std::int64_t{1} << 18), 0.05);
  EXPECT_DOUBLE_EQ(min_gain(std::int64_t{1} << 20), 0.02);
  EXPECT_DOUBLE_EQ(min_gain(std::int64_t{1} << 28), 0.02);
}

TEST(TuneRule, KeepsAClearWinBeyondTheNoise) {
  const rounds r(30, 1.0, {0.92, 0.93, 0.94});
  const keep_decision d = decide_keep(r.default_ms, r.winner_ms, 0.02);
  EXPECT_TRUE(d.keep);
  EXPECT_NEAR(d.ratio, 0.93, 1e-9);
  EXPECT_GT(d.noise, 0.0);
  EXPECT_LT(d.noise, 0.02);
  EXPECT_DOUBLE_EQ(d.needed, 0.02);
  EXPECT_DOUBLE_EQ(d.default_ms, 1.0);
  EXPECT_NEAR(d.winner_ms, 0.93, 1e-9);
  const std::string why = describe(d, "t256x12");
  EXPECT_TRUE(says(why, "kept t256x12: 0.930x the default's time")) << why;
  EXPECT_TRUE(says(why, "beyond the noise")) << why;
}

TEST(TuneRule, DropsAWinWithinTheNoise) {
  // Median 0.95 (a 5% gain) but the rounds swing by about 15%.
  const rounds r(30, 1.0, {0.80, 0.95, 1.10});
  const keep_decision d = decide_keep(r.default_ms, r.winner_ms, 0.02);
  EXPECT_FALSE(d.keep);
  EXPECT_NEAR(d.ratio, 0.95, 1e-9);
  EXPECT_GT(d.noise, 0.05);
  EXPECT_DOUBLE_EQ(d.needed, d.noise);
  const std::string why = describe(d, "p256x8s6");
  EXPECT_TRUE(says(why, "dropped p256x8s6: 0.950x")) << why;
  EXPECT_TRUE(says(why, "within the noise")) << why;
}

TEST(TuneRule, DropsAQuietWinBelowTheMinimum) {
  const rounds r(30, 2.0, {0.985, 0.99, 0.995});
  const keep_decision d = decide_keep(r.default_ms, r.winner_ms, 0.02);
  EXPECT_FALSE(d.keep);
  EXPECT_LT(d.noise, 0.02);
  EXPECT_TRUE(says(describe(d, "t128x8"), "below the minimum of 2%")) << describe(d, "t128x8");
  // The same rounds clear a 0.5% minimum.
  EXPECT_TRUE(decide_keep(r.default_ms, r.winner_ms, 0.005).keep);
}

TEST(TuneRule, DropsAWinnerThatIsNotFaster) {
  const rounds r(20, 1.0, {1.002, 1.004, 1.006});
  const keep_decision d = decide_keep(r.default_ms, r.winner_ms, 0.02);
  EXPECT_FALSE(d.keep);
  EXPECT_TRUE(says(describe(d, "t256x8"), "1.004x the default's time, not faster")) << describe(d, "t256x8");
}

TEST(TuneRule, AGainEqualToTheThresholdIsNotEnough) {
  const rounds r(9, 1.0, {0.98});  // no spread: the threshold is the minimum gain exactly
  const keep_decision d = decide_keep(r.default_ms, r.winner_ms, 1.0 - 0.98);
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
  EXPECT_TRUE(says(describe(none, "t128x16"), "dropped t128x16: no valid re-timing"));
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
