// memset_cost: what a stream-ordered memset costs by its length, alone and
// before a one-thread kernel (the way a single-pass scan resets its status
// words), with cudaMemsetAsync and with cuMemsetD32Async. Median of 200,
// event to event, in us. tuning::short_memset_bytes comes from this.
//   build/experiments/memset_cost
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "../tools/cuda_timing.cuh"

namespace {

__global__ void touch(int* p) {
  if (threadIdx.x == 0) p[0] += 1;
}

}  // namespace

int main() {
  using streamscan_tool::cuda_check;
  using streamscan_tool::median_ms;
  void* buf = nullptr;
  int* word = nullptr;
  cuda_check(cudaMalloc(&buf, 1 << 20), "cudaMalloc");
  cuda_check(cudaMalloc(&word, sizeof(int)), "cudaMalloc");
  const std::size_t sizes[] = {8, 256, 1024, 2048, 3072, 3584, 4000, 4096, 4104, 4352, 6144, 8192, 16640, 65536};
  const char* names[] = {"cudaMemsetAsync then the kernel", "cuMemsetD32Async then the kernel",
                         "cudaMemsetAsync alone"};
  for (int mode = 0; mode < 3; ++mode) {
    std::printf("%s (us), by bytes:", names[mode]);
    for (const std::size_t s : sizes) {
      const double ms = median_ms(200, [&](int) {
                          if (mode == 1)
                            cuda_check(static_cast<cudaError_t>(cuMemsetD32Async(
                                           reinterpret_cast<CUdeviceptr>(buf), 0, s / 4, nullptr)),
                                       "cuMemsetD32Async");
                          else
                            cuda_check(cudaMemsetAsync(buf, 0, s), "cudaMemsetAsync");
                          if (mode != 2) touch<<<1, 32>>>(word);
                        }).median_ms;
      std::printf(" %zu: %.2f |", s, 1e3 * ms);
    }
    std::printf("\n");
  }
  std::printf("the kernel alone: %.2f\n", 1e3 * median_ms(200, [&](int) { touch<<<1, 32>>>(word); }).median_ms);
  cudaFree(buf);
  cudaFree(word);
  return 0;
}
