// Compaction, partition, split and split-and-segment on the CPU back end.
#include "cpu_backend.hpp"

STREAMSCAN_SELECT_TESTS(select_cpu, streamscan_test::cpu_backend)

namespace {
namespace ss = streamscan;

TEST(select_cpu_errors, BadArgumentsAreNamedAndNothingIsWritten) {
  std::vector<int> in(10, 1), out(10, -7);
  std::int64_t num = -1;
  std::size_t bytes = 0;
  ASSERT_TRUE(ss::cpu::select_if(nullptr, bytes, in.data(), out.data(), 10, 10, &num, [](int) { return true; }).is_ok());
  std::vector<unsigned char> temp(bytes);
  ss::status s = ss::cpu::select_if(temp.data(), bytes, in.data(), out.data(), 10, -1, &num, [](int) { return true; });
  EXPECT_NE(s.message().find("argument 'capacity' is negative (-1)"), std::string::npos) << s.message();
  s = ss::cpu::select_if(temp.data(), bytes, in.data(), out.data(), 10, 10, nullptr, [](int) { return true; });
  EXPECT_NE(s.message().find("argument 'num_selected' is a null pointer"), std::string::npos) << s.message();
  s = ss::cpu::select_flagged(temp.data(), bytes, in.data(), static_cast<const bool*>(nullptr), out.data(), 10, 10, &num);
  EXPECT_NE(s.message().find("argument 'flags' is a null pointer"), std::string::npos) << s.message();
  // split and split_and_segment once dereferenced a null flags / heads_out pointer (a crash).
  std::size_t split_bytes = 0;
  ASSERT_TRUE(ss::cpu::split(nullptr, split_bytes, in.data(), static_cast<const bool*>(nullptr), out.data(), 10, &num)
                  .is_ok());
  std::vector<unsigned char> split_temp(split_bytes);
  s = ss::cpu::split(split_temp.data(), split_bytes, in.data(), static_cast<const bool*>(nullptr), out.data(), 10, &num);
  EXPECT_NE(s.message().find("streamscan::cpu::split: argument 'flags' is a null pointer"), std::string::npos)
      << s.message();
  const std::vector<unsigned char> flags(10, 1), heads(10, 0);
  std::vector<unsigned char> heads_out(10, 7);
  s = ss::cpu::split_and_segment(split_temp.data(), split_bytes, in.data(), static_cast<const bool*>(nullptr),
                                 ss::head_flags(heads.data()), out.data(), heads_out.data(), 10);
  EXPECT_NE(s.message().find("argument 'flags' is a null pointer"), std::string::npos) << s.message();
  s = ss::cpu::split_and_segment(split_temp.data(), split_bytes, in.data(), flags.data(), ss::head_flags(heads.data()),
                                 out.data(), static_cast<unsigned char*>(nullptr), 10);
  EXPECT_NE(s.message().find("argument 'heads_out' is a null pointer"), std::string::npos) << s.message();
  EXPECT_EQ(heads_out, std::vector<unsigned char>(10, 7));
  s = ss::cpu::partition(temp.data(), bytes, out.data(), out.data(), 10, &num, [](int) { return true; });
  EXPECT_NE(s.message().find("cannot run in place"), std::string::npos) << s.message();
  // Strategies as the GPU takes them: compaction ones only for compaction, known values only.
  s = ss::cpu::partition(temp.data(), bytes, in.data(), out.data(), 10, &num, [](int) { return true; },
                         ss::select_options{ss::select_strategy::hybrid});
  EXPECT_NE(s.message().find("argument 'options.strategy': hybrid is a compaction strategy"), std::string::npos)
      << s.message();
  s = ss::cpu::split_and_segment(split_temp.data(), split_bytes, in.data(), flags.data(), ss::head_flags(heads.data()),
                                 out.data(), heads_out.data(), 10, ss::select_options{ss::select_strategy::warp_atomic});
  EXPECT_NE(s.message().find("warp_atomic is a compaction strategy"), std::string::npos) << s.message();
  s = ss::cpu::select_if(temp.data(), bytes, in.data(), out.data(), 10, 10, &num, [](int) { return true; },
                         ss::select_options{static_cast<ss::select_strategy>(99)});
  EXPECT_NE(s.message().find("argument 'options.strategy' is not a strategy"), std::string::npos) << s.message();
  s = ss::cpu::select_indices(temp.data(), bytes, static_cast<const bool*>(nullptr), out.data(), 10, 10, &num);
  EXPECT_NE(s.message().find("select_indices: argument 'flags' is a null pointer"), std::string::npos) << s.message();
  std::size_t small = bytes - 1;
  s = ss::cpu::select_if(temp.data(), small, in.data(), out.data(), 10, 10, &num, [](int) { return true; });
  EXPECT_EQ(s.code(), ss::errc::temp_storage_too_small) << s.message();
  EXPECT_EQ(out, std::vector<int>(10, -7));
  EXPECT_EQ(num, -1);
}

TEST(select_cpu_examples, SeedExamples) {
  // seed 003 2.3.3: split-and-segment([at bf ct][df et ff]) = [bf][at ct][df ff][et]
  const std::vector<char> v = {'a', 'b', 'c', 'd', 'e', 'f'};
  const std::vector<unsigned char> t = {1, 0, 1, 0, 1, 0}, heads = {1, 0, 0, 1, 0, 0};
  std::vector<char> out(6);
  std::vector<unsigned char> heads_out(6);
  std::size_t bytes = 0;
  ASSERT_TRUE(ss::cpu::split_and_segment(nullptr, bytes, v.data(), t.data(), ss::head_flags(heads.data()), out.data(),
                                         heads_out.data(), 6)
                  .is_ok());
  std::vector<unsigned char> temp(bytes);
  ASSERT_TRUE(ss::cpu::split_and_segment(temp.data(), bytes, v.data(), t.data(), ss::head_flags(heads.data()),
                                         out.data(), heads_out.data(), 6)
                  .is_ok());
  EXPECT_EQ(out, (std::vector<char>{'b', 'a', 'c', 'd', 'f', 'e'}));
  EXPECT_EQ(heads_out, (std::vector<unsigned char>{1, 1, 0, 1, 0, 1}));
}

}  // namespace
