// The typed-test fixture of the shared test bodies: skips every test of a
// back end that cannot run here (the CUDA one without a GPU).
#pragma once

#include <gtest/gtest.h>

namespace streamscan_test {

template <class Backend, class Case>
class backend_typed_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available()) GTEST_SKIP() << Backend::name << " back end unavailable: no GPU";
  }
};

}  // namespace streamscan_test
