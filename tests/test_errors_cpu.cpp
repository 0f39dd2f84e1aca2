// Bad input on the CPU back end: a clear error naming the argument, and the
// output left untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <streamscan/cpu.hpp>

#include "common/wrapped_iterator.hpp"

namespace {
namespace ss = streamscan;

constexpr std::int32_t sentinel = 0x5eed;

TEST(errors_cpu, negative_size) {
  std::vector<std::int32_t> in(8, 1), out(8, sentinel);
  std::size_t bytes = 0;
  const ss::status s = ss::cpu::inclusive_scan(nullptr, bytes, in.data(), out.data(), -5);
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  EXPECT_NE(s.message().find("'n'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("-5"), std::string::npos) << s.message();
  try {
    ss::cpu::exclusive_scan(in.data(), out.data(), -1, 0);
    FAIL() << "no exception";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.code(), ss::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, std::vector<std::int32_t>(8, sentinel));
}

TEST(errors_cpu, null_pointers) {
  std::vector<std::int32_t> in(8, 1), out(8, sentinel);
  std::size_t bytes = 0;
  // A size query may pass null data pointers; the run itself may not.
  ASSERT_TRUE(ss::cpu::inclusive_scan(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                      static_cast<std::int32_t*>(nullptr), 8).is_ok());
  std::vector<unsigned char> temp(bytes);
  const ss::status s1 = ss::cpu::inclusive_scan(temp.data(), bytes, static_cast<const std::int32_t*>(nullptr),
                                                out.data(), 8);
  EXPECT_EQ(s1.code(), ss::errc::invalid_argument);
  EXPECT_NE(s1.message().find("'in'"), std::string::npos) << s1.message();
  const ss::status s2 = ss::cpu::inclusive_scan(temp.data(), bytes, in.data(), static_cast<std::int32_t*>(nullptr), 8);
  EXPECT_EQ(s2.code(), ss::errc::invalid_argument);
  EXPECT_NE(s2.message().find("'out'"), std::string::npos) << s2.message();
  EXPECT_THROW(ss::cpu::inclusive_scan(static_cast<const std::int32_t*>(nullptr), out.data(), 8), ss::error);
  EXPECT_EQ(out, std::vector<std::int32_t>(8, sentinel));
  // Null pointers with n == 0 are fine: there is nothing to read or write.
  std::size_t zero_bytes = 0;
  EXPECT_TRUE(ss::cpu::inclusive_scan(nullptr, zero_bytes, static_cast<const int*>(nullptr),
                                      static_cast<int*>(nullptr), 0).is_ok());
}

TEST(errors_cpu, temp_storage_too_small) {
  const std::int64_t n = 1 << 20;
  std::vector<std::int32_t> in(n, 1), out(n, sentinel);
  std::size_t bytes = 0;
  ASSERT_TRUE(ss::cpu::inclusive_scan(nullptr, bytes, in.data(), out.data(), n).is_ok());
  std::vector<unsigned char> temp(bytes);
  std::size_t too_few = bytes - 1;
  const ss::status s = ss::cpu::inclusive_scan(temp.data(), too_few, in.data(), out.data(), n);
  EXPECT_EQ(s.code(), ss::errc::temp_storage_too_small);
  EXPECT_NE(s.message().find("'temp_bytes'"), std::string::npos) << s.message();
  EXPECT_EQ(out, std::vector<std::int32_t>(n, sentinel));
}

// select_indices refuses an index type that cannot hold n - 1, whatever is
// selected (one flag at the start would fit; the type still cannot hold them).
TEST(errors_cpu, select_indices_type_too_narrow) {
  const std::int64_t n = 300;
  std::vector<unsigned char> flags(n, 0);
  flags[0] = 1;
  std::vector<std::int8_t> out(n, 42);
  std::int64_t num = -1;
  std::size_t bytes = 0;
  const ss::status q = ss::cpu::select_indices(nullptr, bytes, flags.data(), out.data(), n, n, &num);
  EXPECT_EQ(q.code(), ss::errc::invalid_argument);
  EXPECT_NE(q.message().find("'out'"), std::string::npos) << q.message();
  std::vector<unsigned char> temp(4096);
  bytes = temp.size();
  const ss::status s = ss::cpu::select_indices(temp.data(), bytes, flags.data(), out.data(), n, n, &num);
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  EXPECT_EQ(out, std::vector<std::int8_t>(n, 42));
  EXPECT_EQ(num, -1);
  // 128 elements: indices up to 127 fit int8.
  bytes = 0;
  EXPECT_TRUE(ss::cpu::select_indices(nullptr, bytes, flags.data(), out.data(), 128, 128, &num).is_ok());
}

TEST(errors_cpu, scan_then_add_needs_a_readable_output) {
  std::vector<std::int32_t> in(1000, 1), out(1000, sentinel);
  try {
    ss::cpu::exclusive_scan(in.data(), streamscan_test::write_only_iterator<std::int32_t>(out.data()), 1000, 0,
                            ss::plus{}, {ss::scan_strategy::scan_then_add});
    FAIL() << "no exception";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.code(), ss::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'out'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, std::vector<std::int32_t>(1000, sentinel));
}

TEST(errors_cpu, exception_carries_status) {
  try {
    ss::cpu::inclusive_scan_init(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), -3, ss::plus{}, 0);
    FAIL() << "no exception";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.get_status().code(), ss::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("streamscan::cpu::inclusive_scan_init"), std::string::npos);
  }
}

}  // namespace
