// The CPU back end's convenience forms of compaction, partition and split:
// the same names and arguments as the GPU's (less the stream), results from
// the two-phase forms underneath, errors thrown as streamscan::error.
#include <gtest/gtest.h>

#include <streamscan/cpu.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "sort_test_body.hpp"

namespace {
namespace ss = streamscan;

struct is_odd {
  bool operator()(std::int32_t x) const { return (x & 1) != 0; }
};

TEST(cpu_convenience, compaction_partition_split) {
  auto rng = streamscan_test::make_rng("cpu_convenience");
  const std::int64_t n = 100000 + static_cast<std::int64_t>(rng() % 1000);
  std::vector<std::int32_t> in(n);
  std::vector<unsigned char> flags(n);
  for (std::int64_t i = 0; i < n; ++i) {
    in[i] = static_cast<std::int32_t>(rng() % 1000);
    flags[i] = static_cast<unsigned char>(rng() % 3 == 0);
  }
  std::vector<std::int32_t> odd, even, flagged, unflagged;
  for (std::int64_t i = 0; i < n; ++i) {
    (is_odd{}(in[i]) ? odd : even).push_back(in[i]);
    (flags[i] ? flagged : unflagged).push_back(in[i]);
  }
  std::vector<std::int32_t> out(n, -1);

  EXPECT_EQ(ss::cpu::select_if(in.data(), out.data(), n, n, is_odd{}), static_cast<std::int64_t>(odd.size()));
  EXPECT_TRUE(std::equal(odd.begin(), odd.end(), out.begin()));

  // A short capacity: the count is still the whole, only `capacity` are written.
  std::fill(out.begin(), out.end(), -1);
  EXPECT_EQ(ss::cpu::select_if(in.data(), out.data(), n, 10, is_odd{}), static_cast<std::int64_t>(odd.size()));
  EXPECT_EQ(out[10], -1);

  EXPECT_EQ(ss::cpu::select_flagged(in.data(), flags.data(), out.data(), n, n),
            static_cast<std::int64_t>(flagged.size()));
  EXPECT_TRUE(std::equal(flagged.begin(), flagged.end(), out.begin()));

  EXPECT_EQ(ss::cpu::stable_partition(in.data(), out.data(), n, is_odd{}), static_cast<std::int64_t>(odd.size()));
  EXPECT_TRUE(std::equal(odd.begin(), odd.end(), out.begin()));
  EXPECT_TRUE(std::equal(even.begin(), even.end(), out.begin() + static_cast<std::int64_t>(odd.size())));

  EXPECT_EQ(ss::cpu::partition(in.data(), out.data(), n, is_odd{}), static_cast<std::int64_t>(odd.size()));
  EXPECT_TRUE(std::equal(odd.begin(), odd.end(), out.begin()));
  EXPECT_TRUE(std::equal(even.rbegin(), even.rend(), out.begin() + static_cast<std::int64_t>(odd.size())));

  EXPECT_EQ(ss::cpu::split(in.data(), flags.data(), out.data(), n), static_cast<std::int64_t>(unflagged.size()));
  EXPECT_TRUE(std::equal(unflagged.begin(), unflagged.end(), out.begin()));
  EXPECT_TRUE(std::equal(flagged.begin(), flagged.end(), out.begin() + static_cast<std::int64_t>(unflagged.size())));
}

TEST(cpu_convenience, errors_are_thrown_and_name_the_argument) {
  std::vector<std::int32_t> in(10, 1), out(10, 7);
  try {
    (void)ss::cpu::split(in.data(), static_cast<const unsigned char*>(nullptr), out.data(), 10);
    FAIL() << "no error";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.code(), ss::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'flags'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, std::vector<std::int32_t>(10, 7));
  EXPECT_THROW((void)ss::cpu::select_if(in.data(), out.data(), -1, 10, is_odd{}), ss::error);
}

}  // namespace

namespace {

// A segmented scan's offsets must start at 0, never decrease and end at n
// (segmented.hpp): the CPU back end reads them and names the first entry that
// does not. (segmented_reduce's offsets may reach past n: detail/segmented_reduce.hpp.)
TEST(cpu_segment_offsets, broken_offsets_are_named_and_nothing_is_written) {
  std::vector<std::int32_t> in(8, 1), out(8, 7);
  auto run = [&](std::vector<std::int64_t> o) {
    try {
      ss::cpu::segmented_inclusive_scan(in.data(), out.data(), 8,
                                        ss::segment_offsets<const std::int64_t*>{o.data(), static_cast<std::int64_t>(o.size()) - 1});
      return std::string();
    } catch (const ss::error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(run({0, 5, 3, 8}).find("decreases at 2 (5 then 3)"), std::string::npos);
  EXPECT_NE(run({0, 3, 7}).find("is 7, not n = 8"), std::string::npos);
  EXPECT_NE(run({1, 3, 8}).find("offsets[0] is 1"), std::string::npos);
  EXPECT_EQ(out, std::vector<std::int32_t>(8, 7));
  EXPECT_EQ(run({0, 3, 3, 8}), "");  // an empty segment is fine
}

// segmented_reduce's offsets may reach past n (clamped) but must not decrease.
TEST(cpu_segment_offsets, segmented_reduce_names_decreasing_offsets_and_writes_nothing) {
  std::vector<std::int32_t> in(8, 1), out(3, 7);
  std::vector<std::int64_t> o = {0, 6, 3, 8};
  try {
    ss::cpu::segmented_reduce(in.data(), out.data(), 8, ss::segment_offsets<const std::int64_t*>{o.data(), 3}, 0);
    ADD_FAILURE() << "no error";
  } catch (const ss::error& e) {
    EXPECT_NE(std::string(e.what()).find("segments.offsets decreases at 2 (6 then 3)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, std::vector<std::int32_t>(3, 7));
  o = {0, 3, 20};  // past n: clamped, fine
  ss::cpu::segmented_reduce(in.data(), out.data(), 8, ss::segment_offsets<const std::int64_t*>{o.data(), 2}, 0);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 5);
}

}  // namespace

namespace {

TEST(cpu_sort_buffers, overlaps_are_refused_and_nothing_is_written) {
  std::vector<std::uint32_t> m(64, 5);
  unsigned char temp[1];
  std::size_t bytes = 0;
  streamscan_test::expect_sort_overlaps_refused(
      m.data(),
      [&](std::uint32_t* a, std::uint32_t* b) {
        ss::double_buffer<std::uint32_t> db(a, b);
        return ss::cpu::radix_sort_keys(temp, bytes, db, 32).message();
      },
      [&](std::uint32_t* ki, std::uint32_t* ko, std::uint32_t* vi, std::uint32_t* vo) {
        return ss::cpu::radix_sort_pairs(temp, bytes, ki, ko, vi, vo, 32).message();
      });
  EXPECT_EQ(m, std::vector<std::uint32_t>(64, 5));
}

}  // namespace
