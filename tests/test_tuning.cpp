// The tuning file (streamscan/tuning.hpp): round trip, lookup, and every way a
// file can be corrupt or stale, each reported (file:line: reason) and never
// trusted.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <streamscan/tuning.hpp>
#include <streamscan/tuning/spmv.hpp>

namespace {
namespace st = streamscan::tuning;
using alg = streamscan::tuning::algorithm;

st::entry make_entry(std::int64_t lo, std::int64_t hi, const char* policy = "t256x8") {
  return st::entry{"NVIDIA Test GPU 80GB", 90, alg::decoupled_lookback, 4, "builtin", lo, hi, policy, 0.5,
                   0.25};
}

std::string written(const st::table& t) {
  std::ostringstream os;
  st::write(os, t);
  return os.str();
}

st::table sample() {
  st::table t;
  t.entries.push_back(make_entry(0, 1 << 20, "t128x8"));
  t.entries.push_back(make_entry(1 << 20, std::numeric_limits<std::int64_t>::max()));
  t.entries.push_back(st::entry{"Other GPU", 80, alg::chained, 16, "custom", 0, 100, "t512-raking", 1, 1});
  t.entries.push_back(st::entry{"Other GPU", 80, alg::scan_then_add, 8, "builtin", 5, 100, "p32", 1, 1});
  t.entries.push_back(st::entry{"Other GPU", 80, alg::segmented_scan, 4, "custom", 0, 100, "p512x4s6r6", 1, 1});
  t.entries.push_back(st::entry{"Other GPU", 80, alg::split, 4, "any", 0, 100, "p512x2s10", 1, 1});
  return t;
}

TEST(TuningFile, RoundTrip) {
  const st::table t = sample();
  std::istringstream in(written(t));
  st::table back;
  const streamscan::status s = st::parse(in, "mem", back);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(back.entries.size(), t.entries.size());
  EXPECT_EQ(back.library, STREAMSCAN_VERSION_STRING);
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    const st::entry &a = t.entries[i], &b = back.entries[i];
    EXPECT_EQ(a.gpu, b.gpu);
    EXPECT_EQ(a.cc, b.cc);
    EXPECT_EQ(a.algorithm, b.algorithm);
    EXPECT_EQ(a.value_bytes, b.value_bytes);
    EXPECT_EQ(a.op_class, b.op_class);
    EXPECT_EQ(a.min_n, b.min_n);
    EXPECT_EQ(a.max_n, b.max_n);
    EXPECT_EQ(a.policy, b.policy);
    EXPECT_DOUBLE_EQ(a.default_ms, b.default_ms);
    EXPECT_DOUBLE_EQ(a.tuned_ms, b.tuned_ms);
  }
  EXPECT_EQ(written(back), written(t));
}

TEST(TuningFile, FindMatchesEveryKeyAndTheRange) {
  const st::table t = sample();
  const std::string gpu = "NVIDIA Test GPU 80GB";
  const auto d = alg::decoupled_lookback;
  ASSERT_NE(st::find(t, gpu, 90, d, 4, "builtin", 0), nullptr);
  EXPECT_EQ(st::find(t, gpu, 90, d, 4, "builtin", 0)->policy, "t128x8");
  EXPECT_EQ(st::find(t, gpu, 90, d, 4, "builtin", (1 << 20) - 1)->policy, "t128x8");
  EXPECT_EQ(st::find(t, gpu, 90, d, 4, "builtin", 1 << 20)->policy, "t256x8");
  EXPECT_EQ(st::find(t, gpu, 90, d, 4, "builtin", std::int64_t{1} << 40)->policy, "t256x8");
  EXPECT_EQ(st::find(t, gpu, 89, d, 4, "builtin", 0), nullptr);                       // compute capability
  EXPECT_EQ(st::find(t, "NVIDIA Test GPU", 90, d, 4, "builtin", 0), nullptr);         // name
  EXPECT_EQ(st::find(t, gpu, 90, alg::chained, 4, "builtin", 0), nullptr);            // algorithm
  EXPECT_EQ(st::find(t, gpu, 90, d, 8, "builtin", 0), nullptr);                       // value size
  EXPECT_EQ(st::find(t, gpu, 90, d, 4, "custom", 0), nullptr);                        // operator class
}

TEST(TuningFile, OperatorClass) {
  EXPECT_STREQ((st::op_class<int, streamscan::plus>()), "builtin");
  EXPECT_STREQ((st::op_class<double, streamscan::maximum>()), "builtin");
  struct user_op {
    int operator()(int a, int b) const { return a + b; }
  };
  struct pod {
    int x;
  };
  EXPECT_STREQ((st::op_class<int, user_op>()), "custom");
  EXPECT_STREQ((st::op_class<pod, streamscan::plus>()), "custom");
}

// parse() of `text` must fail with a message holding `why` and leave the table empty.
void expect_rejected(const std::string& text, const std::string& why) {
  std::istringstream in(text);
  st::table t;
  t.entries.push_back(make_entry(0, 1));  // must be cleared
  const streamscan::status s = st::parse(in, "tuning.txt", t);
  EXPECT_FALSE(s.is_ok()) << "accepted:\n" << text;
  EXPECT_NE(s.message().find(why), std::string::npos) << "message: " << s.message() << "\nexpected: " << why;
  EXPECT_NE(s.message().find("tuning.txt:"), std::string::npos) << s.message();
  EXPECT_TRUE(t.entries.empty());
}

const std::string header = "streamscan-tuning 2\nlibrary " STREAMSCAN_VERSION_STRING "\n";
const std::string good_fields =
    "gpu=\"G 1\" cc=90 algorithm=decoupled_lookback value_bytes=4 op=builtin min_n=0 max_n=100 policy=t256x8 "
    "default_ms=1 tuned_ms=0.5";

std::string with(const std::string& key, const std::string& value) {
  std::string f = good_fields;
  const std::size_t at = f.find(key + "=");
  std::size_t end = f.find(' ', at);
  if (f[at + key.size() + 1] == '"') end = f.find(' ', f.find('"', at + key.size() + 2));
  return f.substr(0, at) + key + "=" + value + (end == std::string::npos ? "" : f.substr(end));
}

TEST(TuningFile, TheGoodSampleParses) {  // so that each rejection below is about its one change
  std::istringstream in(header + "# comment\n\n  entry " + good_fields + "   # trailing\n");
  st::table t;
  const streamscan::status s = st::parse(in, "tuning.txt", t);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0].gpu, "G 1");
  EXPECT_EQ(with("cc", "75"), "gpu=\"G 1\" cc=75 algorithm=decoupled_lookback value_bytes=4 op=builtin min_n=0 "
                              "max_n=100 policy=t256x8 default_ms=1 tuned_ms=0.5");
}

TEST(TuningFile, CorruptFilesAreRejected) {
  expect_rejected("", "empty file");
  expect_rejected("hello\n", "not a streamscan tuning file");
  expect_rejected("streamscan-tuning 3\n", "format version '3'");
  expect_rejected("streamscan-tuning 2\nentry " + good_fields + "\n", "entry before the 'library' line");
  expect_rejected("streamscan-tuning 2\n", "no 'library' line");
  expect_rejected(header + "library " STREAMSCAN_VERSION_STRING "\n", "'library' given twice");
  expect_rejected(header + "bogus 1\n", "unknown record 'bogus'");
  expect_rejected(header + "entry gpu=\"G cc=90\n", "unterminated quote");
  expect_rejected(header + "entry gpu=G cc=90 cc=90\n", "given twice");
  expect_rejected(header + "entry " + good_fields + " colour=blue\n", "unknown key 'colour'");
  expect_rejected(header + "entry " + good_fields + " stray\n", "expected key=value");
  expect_rejected(header + "entry gpu=G\n", "entry lacks 'cc'");
  expect_rejected(header + "entry " + with("gpu", "\"\"") + "\n", "empty gpu name");
  expect_rejected(header + "entry " + with("cc", "nine") + "\n", "bad cc");
  expect_rejected(header + "entry " + with("algorithm", "quantum") + "\n", "unknown algorithm 'quantum'");
  expect_rejected(header + "entry " + with("algorithm", "automatic") + "\n", "unknown algorithm 'automatic'");
  // A format-1 file (keyed by strategy) is refused by its version line.
  expect_rejected("streamscan-tuning 1\nlibrary " STREAMSCAN_VERSION_STRING "\n", "format version '1', this library reads 2");
  // The select calls take no operator: their class is "any", and only theirs.
  expect_rejected(header + "entry " + with("op", "any") + "\n", "op must be builtin or custom for decoupled_lookback");
  expect_rejected(header + "entry gpu=\"G 1\" cc=90 algorithm=select_if value_bytes=4 op=builtin min_n=0 max_n=100 "
                           "policy=t512x8 default_ms=1 tuned_ms=0.5\n",
                  "op must be any for select_if");
  expect_rejected(header + "entry " + with("value_bytes", "0") + "\n", "bad value_bytes");
  expect_rejected(header + "entry " + with("op", "fancy") + "\n", "op must be builtin or custom");
  expect_rejected(header + "entry " + with("min_n", "-1") + "\n", "bad size range");
  expect_rejected(header + "entry " + with("max_n", "0") + "\n", "bad size range");
  expect_rejected(header + "entry " + with("max_n", "99999999999999999999") + "\n", "bad size range");
  expect_rejected(header + "entry " + with("policy", "t999x1") + "\n", "policy 't999x1' is not a candidate");
  // A name of another algorithm is not a candidate of this one.
  expect_rejected(header + "entry " + with("policy", "p8") + "\n", "policy 'p8' is not a candidate");
  expect_rejected(header + "entry " + with("tuned_ms", "fast") + "\n", "bad default_ms or tuned_ms");
  expect_rejected(header + "entry " + good_fields + "\nentry " + with("min_n", "50") + "\n", "overlaps");
}

TEST(TuningFile, StaleLibraryVersionIsRejected) {
  expect_rejected("streamscan-tuning 2\nlibrary 0.0.1\nentry " + good_fields + "\n",
                  "stale: written by streamscan 0.0.1");
}

TEST(TuningFile, LoadReportsPathAndState) {
  const std::string dir = ::testing::TempDir();
  const std::string missing = dir + "/streamscan_no_such_file.txt";
  std::remove(missing.c_str());
  EXPECT_EQ(st::load(missing).state, st::load_result::absent);
  EXPECT_EQ(st::load("").state, st::load_result::absent);

  const std::string good = dir + "/streamscan_tuning_good.txt";
  {
    std::ofstream f(good);
    st::write(f, sample());
  }
  const st::load_result g = st::load(good);
  EXPECT_EQ(g.state, st::load_result::loaded);
  EXPECT_EQ(g.contents.entries.size(), sample().entries.size());
  EXPECT_TRUE(g.message.empty());

  const std::string bad = dir + "/streamscan_tuning_bad.txt";
  {
    std::ofstream f(bad);
    f << header << "entry " << with("policy", "nope") << "\n";
  }
  const st::load_result b = st::load(bad);
  EXPECT_EQ(b.state, st::load_result::ignored);
  EXPECT_TRUE(b.contents.entries.empty());
  EXPECT_NE(b.message.find(bad + ":3: policy 'nope'"), std::string::npos) << b.message;
}

// Sets an environment variable for one scope.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~scoped_env() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(TuningFile, DefaultPath) {
  {
    scoped_env f("STREAMSCAN_TUNING_FILE", "/x/y.txt");
    EXPECT_EQ(st::default_path(), "/x/y.txt");
  }
  {
    scoped_env f("STREAMSCAN_TUNING_FILE", "none");
    EXPECT_EQ(st::default_path(), "");
  }
  scoped_env f("STREAMSCAN_TUNING_FILE", nullptr);
  {
    scoped_env x("XDG_CACHE_HOME", "/cache");
    EXPECT_EQ(st::default_path(), "/cache/streamscan/tuning-v2.txt");
  }
  scoped_env x("XDG_CACHE_HOME", nullptr);
  {
    scoped_env h("HOME", "/home/u");
    EXPECT_EQ(st::default_path(), "/home/u/.cache/streamscan/tuning-v2.txt");
  }
  scoped_env h("HOME", nullptr);
  EXPECT_EQ(st::default_path(), "");
}

TEST(TuningFile, ReloadFollowsTheEnvironment) {
  const std::string bad = ::testing::TempDir() + "/streamscan_tuning_reload.txt";
  {
    std::ofstream f(bad);
    f << "streamscan-tuning 2\nlibrary 9.9.9\n";
  }
  {
    scoped_env e("STREAMSCAN_TUNING_FILE", bad.c_str());
    const auto r = st::reload();
    EXPECT_EQ(r->state, st::load_result::ignored);
    EXPECT_NE(st::load_report().find("stale"), std::string::npos) << st::load_report();
  }
  scoped_env e("STREAMSCAN_TUNING_FILE", "none");
  EXPECT_EQ(st::reload()->state, st::load_result::absent);
  EXPECT_EQ(st::load_report(), "");
}

}  // namespace

// chained's candidates: the 2D matrix shapes, then StreamScan's 3D shapes,
// one tile a link (the default before sm_90) and one cluster a link (the
// default from sm_90); every name is unique and found again by
// candidate_index. The 3D shapes' tiles follow their pieces for values whose
// size divides 16; other values run the 2D default, whose tile they then report.
TEST(TuningCandidates, ChainedNamesAndTiles) {
  for (const std::size_t bytes : {1, 2, 4, 8, 12, 16, 32}) {
    const st::candidate_list list = st::candidates_for(alg::chained, bytes);
    ASSERT_EQ(list.count, 9);
    EXPECT_EQ(st::candidate_name(alg::chained, bytes, st::default_for(alg::chained, bytes, 1 << 20, 80)), "c512r8s8");
    EXPECT_EQ(st::candidate_name(alg::chained, bytes, st::default_for(alg::chained, bytes, 1 << 20, 90)),
              "c512r8s8k8");
    EXPECT_EQ(st::candidate_name(alg::chained, bytes, list.count - 1), "c512r8s8k16");
    for (int i = 0; i < list.count; ++i) {
      const std::string name = st::candidate_name(alg::chained, bytes, i);
      EXPECT_EQ(st::candidate_index(alg::chained, bytes, name), i) << name;
      EXPECT_EQ(name[0] == 't', i < st::matrix_shape_count) << name;
    }
  }
  EXPECT_EQ(st::candidate_name(alg::chained, 4, 0), "t256-kogge_stone");
  // 512 threads x 16 pieces x 32 bytes of values a row.
  EXPECT_EQ(st::candidate_tile_items(alg::chained, 4, st::default_chained_shape), 512 * 16 * 8);
  EXPECT_EQ(st::candidate_tile_items(alg::chained, 16, st::default_chained_shape), 512 * 16 * 2);
  EXPECT_EQ(st::candidate_tile_items(alg::chained, 4, st::default_chained_shape + 2), 512 * 8 * 8);
  EXPECT_EQ(st::candidate_tile_items(alg::chained, 4, st::default_cluster_chained_shape), 512 * 16 * 8);  // a block's
  EXPECT_EQ(st::candidate_tile_items(alg::chained, 12, st::default_chained_shape),
            st::candidate_tile_items(alg::chained, 12, st::default_matrix_shape(true)));
}

// One name grammar for every algorithm: the names users and tuning files
// already use, each unique within its algorithm and found again.
TEST(TuningCandidates, EveryAlgorithmsNamesRoundTrip) {
  for (const alg a : st::all_algorithms)
    for (const std::size_t bytes : {1, 2, 4, 8, 16}) {
      const st::candidate_list list = st::candidates_for(a, bytes);
      for (int i = 0; i < list.count; ++i) {
        const std::string name = st::candidate_name(a, bytes, i);
        ASSERT_FALSE(name.empty());
        EXPECT_EQ(st::candidate_index(a, bytes, name), i) << st::to_string(a) << " " << name;
      }
      EXPECT_EQ(st::candidate_index(a, bytes, "t1x1"), -1);
    }
  EXPECT_EQ(st::candidate_names(alg::decoupled_lookback, 4), "t128x16, t128x8, t256x8, t256x12, t256x16, p256x8s6");
  EXPECT_EQ(st::candidate_names(alg::segmented_scan, 4), "s128x8, s256x8, p512x4s6r6, p512x2s12r4");
  EXPECT_EQ(st::candidate_names(alg::select_if, 4),
            "t512x8, t256x8, t256x16, t128x16, p512x4s6r3, p512x4s4, p512x2s12r4, p512x2s10, o512x4s3b128, "
            "o512x4s4b64");
  EXPECT_EQ(st::candidate_names(alg::reduce_then_scan, 4), "p8, p4, p16, p32");
  EXPECT_EQ(st::candidates_for(alg::decoupled_lookback, 2).count, 0);  // one fixed shape
}

// The built-in defaults, by value size, n and compute capability: pipelined
// shapes only from their thresholds and only with the copy engine (sm_90+).
TEST(TuningCandidates, DefaultsFollowSizeAndArchitecture) {
  auto name_of = [](alg a, std::size_t bytes, std::int64_t n, int cc) {
    return st::candidate_name(a, bytes, st::default_for(a, bytes, n, cc));
  };
  const std::int64_t big = std::int64_t{1} << 28, small = std::int64_t{1} << 20;
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, big, 90), "p256x8s6");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, big, 80), "t128x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, small, 90), "t128x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, big, 90), "p256x8s6");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, big, 80), "t256x8");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, small - 1, 90), "t256x8");
  // The middle ranges: t256x16 (default_vector_shape_for), on every GPU.
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, small, 90), "t256x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, 4 * small - 1, 80), "t256x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, 4 * small, 90), "t256x8");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, 4 * small - 1, 90), "t128x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, 4 * small, 90), "t256x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, 16 * small - 1, 80), "t256x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, 16 * small, 90), "t128x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, std::int64_t{1} << 25, 90), "p256x8s6");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 4, (std::int64_t{1} << 25) - 1, 90), "t128x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, std::int64_t{1} << 23, 90), "p256x8s6");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 8, (std::int64_t{1} << 23) - 1, 90), "t256x8");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 16, big, 90), "p256x8s6");
  EXPECT_EQ(name_of(alg::segmented_scan, 4, big, 90), "p512x2s12r4");
  EXPECT_EQ(name_of(alg::segmented_scan, 4, big, 86), "s128x8");
  EXPECT_EQ(name_of(alg::segmented_scan, 8, big, 90), "s128x8");
  EXPECT_EQ(name_of(alg::select_if, 4, big, 90), "o512x4s3b128");
  EXPECT_EQ(name_of(alg::select_if, 4, std::int64_t{1} << 25, 90), "t512x8");
  EXPECT_EQ(name_of(alg::select_if, 4, big, 80), "t512x8");
  EXPECT_EQ(name_of(alg::select_flagged, 4, big, 90), "o512x4s4b64");
  EXPECT_EQ(name_of(alg::select_flagged, 4, std::int64_t{1} << 25, 90), "p512x2s10");
  EXPECT_EQ(name_of(alg::select_flagged, 8, big, 90), "t512x8");
  EXPECT_EQ(name_of(alg::partition, 4, std::int64_t{1} << 24, 90), "p512x2s12r4");
  EXPECT_EQ(name_of(alg::partition, 8, std::int64_t{1} << 24, 90), "p512x2s12r4");
  EXPECT_EQ(name_of(alg::split, 4, std::int64_t{1} << 24, 90), "p512x2s10");
  EXPECT_EQ(name_of(alg::split, 4, (std::int64_t{1} << 24) - 1, 90), "t512x8");
  EXPECT_EQ(name_of(alg::select_if, 8, std::int64_t{1} << 25, 90), "o512x4s3b128");
  EXPECT_EQ(name_of(alg::select_if, 8, std::int64_t{1} << 24, 90), "t512x8");
  EXPECT_EQ(name_of(alg::chained, 4, big, 90), "c512r8s8k8");
  EXPECT_EQ(name_of(alg::chained, 4, big, 80), "c512r8s8");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 16, std::int64_t{1} << 25, 90), "p256x8s6");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 16, (std::int64_t{1} << 25) - 1, 90), "t256x16");
  EXPECT_EQ(name_of(alg::decoupled_lookback, 16, big, 80), "t256x16");
  EXPECT_EQ(name_of(alg::scan_then_add, 4, big, 90), "p8");
}

// SpMV's default: row groups of two lanes for rows shorter than 4 on average,
// one lane from 4 to 8, merge path from 8; an explicit row_groups widens the
// groups with the mean.
TEST(SpmvTuning, RowGroupLanesFollowTheMeanRowLength) {
  namespace st = streamscan::tuning;
  EXPECT_EQ(st::spmv_group_lanes(0), 2);
  EXPECT_EQ(st::spmv_group_lanes(3.9), 2);
  EXPECT_EQ(st::spmv_group_lanes(4), 1);
  EXPECT_EQ(st::spmv_group_lanes(7.9), 1);
  EXPECT_EQ(st::spmv_group_lanes(8), 8);
  EXPECT_EQ(st::spmv_group_lanes(16), 16);
  EXPECT_EQ(st::spmv_group_lanes(32), 32);
  EXPECT_EQ(st::spmv_group_lanes(1e6), 32);
  EXPECT_LE(st::spmv_row_groups_below, 8.0) << "the default's row groups have at most two lanes";
  constexpr st::spmv_row_groups shape = st::spmv_row_groups_shape();
  EXPECT_GE(shape.chunk, shape.spill_steps * 32) << "a spilled row takes at most len / spill + 1 chunk slots";
}
