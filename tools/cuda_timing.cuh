// Timing helpers shared by the streamscan command and the benchmark: CUDA
// events around each call, one warm-up, median of the repeats.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace streamscan_tool {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// f(r) runs repetition r (r lets callers rotate buffers); returns the median ms.
template <class F>
double median_ms(int repeats, F f, cudaStream_t stream = nullptr) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  f(0);  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
    f(r + 1);
    cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace streamscan_tool
