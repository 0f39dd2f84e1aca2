// Segmented and backward scans, enumerate and distribute on the CPU back end.
#include "cpu_backend.hpp"

STREAMSCAN_SEGMENTED_TESTS(segmented_cpu, streamscan_test::cpu_backend)

namespace {
namespace ss = streamscan;

TEST(segmented_cpu_errors, BadArgumentsAreNamedBeforeAnyWork) {
  std::vector<int> in(16, 1), out(16, -7);
  std::vector<unsigned char> temp(1 << 16);
  streamscan_test::expect_segmented_argument_errors([&](auto segments, std::int64_t n, ss::segmented_options opt) {
    std::size_t bytes = temp.size();
    return ss::cpu::segmented_inclusive_scan(temp.data(), bytes, in.data(), out.data(), n, segments, ss::plus{}, opt);
  });
  EXPECT_EQ(out, std::vector<int>(16, -7));
}

TEST(segmented_cpu_errors, BadSegmentsAreNamedAndNothingIsWritten) {
  std::vector<int> in(100, 1), out(100, -7);
  std::vector<std::int64_t> offsets = {0, 50, 100};
  std::vector<unsigned char> scratch(1 << 16);  // a call with temp: the description is checked
  std::size_t bytes = scratch.size();
  ss::status s = ss::cpu::segmented_inclusive_scan(scratch.data(), bytes, in.data(), out.data(), 100,
                                                   ss::head_flags(static_cast<const unsigned char*>(nullptr)));
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  EXPECT_NE(s.message().find("argument 'segments' (head_flags) is a null pointer"), std::string::npos) << s.message();
  s = ss::cpu::segmented_inclusive_scan(scratch.data(), bytes, in.data(), out.data(), 100,
                                        ss::head_bits(static_cast<const std::uint32_t*>(nullptr)));
  EXPECT_NE(s.message().find("head_bits"), std::string::npos) << s.message();
  s = ss::cpu::segmented_inclusive_scan(scratch.data(), bytes, in.data(), out.data(), 100,
                                        ss::segment_offsets<const std::int64_t*>{nullptr, 2});
  EXPECT_NE(s.message().find("null offsets pointer"), std::string::npos) << s.message();
  // A size query may come before the data and the description exist.
  for (const ss::status q :
       {ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 100,
                                          ss::head_flags(static_cast<const unsigned char*>(nullptr))),
        ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 100,
                                          ss::head_bits(static_cast<const std::uint32_t*>(nullptr))),
        ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 100,
                                          ss::segment_offsets<const std::int64_t*>{nullptr, 2})})
    EXPECT_TRUE(q.is_ok()) << q.message();
  bytes = 0;
  s = ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 100,
                                        ss::segment_offsets{offsets.data(), -1});
  EXPECT_NE(s.message().find("argument 'segments.num_segments' is negative (-1)"), std::string::npos) << s.message();
  s = ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 100,
                                        ss::segment_offsets{offsets.data(), 2}, ss::plus{},
                                        {ss::scan_direction::forward, {ss::scan_strategy::scan_then_add}});
  EXPECT_NE(s.message().find("do not offer scan_then_add"), std::string::npos) << s.message();
  s = ss::cpu::segmented_exclusive_scan(nullptr, bytes, in.data(), out.data(), -3, ss::no_segments{}, 0);
  EXPECT_NE(s.message().find("argument 'n' is negative"), std::string::npos) << s.message();
  // A temp buffer smaller than the query said.
  ASSERT_TRUE(ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 100,
                                                ss::segment_offsets{offsets.data(), 2})
                  .is_ok());
  std::vector<unsigned char> temp(bytes);
  std::size_t small = bytes - 1;
  s = ss::cpu::segmented_inclusive_scan(temp.data(), small, in.data(), out.data(), 100,
                                        ss::segment_offsets{offsets.data(), 2});
  EXPECT_EQ(s.code(), ss::errc::temp_storage_too_small) << s.message();
  EXPECT_EQ(out, std::vector<int>(100, -7));
  // Null pointers are fine for n == 0.
  EXPECT_TRUE(ss::cpu::segmented_inclusive_scan(nullptr, bytes, in.data(), out.data(), 0,
                                                ss::head_flags(static_cast<const unsigned char*>(nullptr)))
                  .is_ok());
}

TEST(segmented_cpu_examples, SeedExamples) {
  // seed 003 2.3.1: enumerate([t f f t f t t]) = [0 1 1 1 2 2 3]
  const std::vector<int> flags = {1, 0, 0, 1, 0, 1, 1};
  std::vector<int> counts(7);
  ss::cpu::enumerate(flags.data(), counts.data(), 7);
  EXPECT_EQ(counts, (std::vector<int>{0, 1, 1, 1, 2, 2, 3}));
  // seed 003 2.3.2: distribute([a b c][d e]) = [a a a][d d]; backward takes the tails.
  const std::vector<char> v = {'a', 'b', 'c', 'd', 'e'};
  const std::vector<unsigned char> heads = {1, 0, 0, 1, 0};
  std::vector<char> d(5);
  ss::cpu::distribute(v.data(), d.data(), 5, ss::head_flags(heads.data()));
  EXPECT_EQ(d, (std::vector<char>{'a', 'a', 'a', 'd', 'd'}));
  ss::cpu::distribute(v.data(), d.data(), 5, ss::head_flags(heads.data()), {ss::scan_direction::backward});
  EXPECT_EQ(d, (std::vector<char>{'c', 'c', 'c', 'e', 'e'}));
  // seed 003 2.2.2: backward segmented sum of 1..8 with a flag on 4: [6 5 3 | 26 22 17 11 ... ]
  const std::vector<int> data = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<unsigned char> f = {0, 0, 0, 1, 0, 0, 0, 0};
  std::vector<int> out(8);
  ss::cpu::segmented_inclusive_scan(data.data(), out.data(), 8, ss::head_flags(f.data()), ss::plus{},
                                    {ss::scan_direction::backward});
  EXPECT_EQ(out, (std::vector<int>{6, 5, 3, 30, 26, 21, 15, 8}));
  // Empty segments in the offsets form; in place.
  std::vector<int> x = {1, 1, 1, 1, 1};
  const std::vector<std::int64_t> off = {0, 0, 2, 2, 5};
  ss::cpu::segmented_exclusive_scan(x.data(), x.data(), 5, ss::segment_offsets{off.data(), 4}, 10);
  EXPECT_EQ(x, (std::vector<int>{10, 11, 10, 11, 12}));
}

}  // namespace
