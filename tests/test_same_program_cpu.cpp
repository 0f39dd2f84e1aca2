// The same program as test_same_program_cuda.cu, against the CPU back end.
#include <streamscan/cpu.hpp>

#include <cstdlib>

#define STREAMSCAN_SAME_PROGRAM_API streamscan::cpu
#include "same_program_body.hpp"

namespace {

struct host_memory {
  template <class T>
  static T* alloc(std::size_t n) {
    return static_cast<T*>(std::malloc(n * sizeof(T) + 1));
  }
  static void release(void* p) { std::free(p); }
  static void wait() {}
};

TEST(same_program, cpu) { streamscan_test::same_program::run_same_program<host_memory>(); }

}  // namespace
