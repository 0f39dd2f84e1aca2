// The same program as test_same_program_cpu.cpp, against the CUDA back end,
// on managed memory (read and written by the host between calls).
#include <cuda_runtime.h>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"

#define STREAMSCAN_SAME_PROGRAM_API streamscan::cuda
#include "same_program_body.hpp"

namespace {

struct managed_memory {
  template <class T>
  static T* alloc(std::size_t n) {
    void* p = nullptr;
    STREAMSCAN_TEST_CUDA(cudaMallocManaged(&p, n * sizeof(T) + 1));
    return static_cast<T*>(p);
  }
  static void release(void* p) { cudaFree(p); }
  static void wait() { STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize()); }
};

TEST(same_program, cuda) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  streamscan_test::same_program::run_same_program<managed_memory>();
}

}  // namespace
