// GoogleTest main shared by the test binaries: prints the random seed first.
#include <gtest/gtest.h>

#include <cstdio>

#include "common/random.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("streamscan tests: random seed %llu (set STREAMSCAN_TEST_SEED=%llu to replay)\n",
              static_cast<unsigned long long>(streamscan_test::global_seed()),
              static_cast<unsigned long long>(streamscan_test::global_seed()));
  return RUN_ALL_TESTS();
}
