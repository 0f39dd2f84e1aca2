// Timing helpers shared by the streamscan command and the benchmark: CUDA
// events around each call, one warm-up, the repeats' median and spread.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "report.hpp"

namespace streamscan_tool {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// f(r) runs repetition r (r lets callers rotate buffers); returns the timing of
// the repeats.
// setup(r), when given, runs before each f(r) (the warm-up too) and outside
// its timing: e.g. to restore an input that f sorts in place.
template <class F, class Setup>
timing median_ms(int repeats, F f, cudaStream_t stream, Setup setup) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  setup(0);
  f(0);  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    setup(r + 1);
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
  return timing::of(std::move(times));
}

template <class F>
timing median_ms(int repeats, F f, cudaStream_t stream = nullptr) {
  return median_ms(repeats, f, stream, [](int) {});
}

// Times fa and fb alternately, `repeats` times each after one warm-up of
// both, so that drift (clocks, temperature, other work) falls on both alike.
// Which goes first alternates, and each call gets its own rotation index
// (2r, 2r + 1): the second of a pair must not find the first's input in L2.
// Returns their times in ms, element r of each from round r.
template <class FA, class FB>
std::pair<std::vector<double>, std::vector<double>> interleaved_rounds_ms(int repeats, FA fa, FB fb,
                                                                          cudaStream_t stream = nullptr) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ta, tb;
  auto time_one = [&](auto& f, int r) {
    cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
    f(r);
    cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  };
  fa(0);
  fb(1);
  for (int r = 1; r <= repeats; ++r) {
    if (r % 2) {
      ta.push_back(time_one(fa, 2 * r));
      tb.push_back(time_one(fb, 2 * r + 1));
    } else {
      tb.push_back(time_one(fb, 2 * r));
      ta.push_back(time_one(fa, 2 * r + 1));
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {std::move(ta), std::move(tb)};
}

// The same, as the two timings.
template <class FA, class FB>
std::pair<timing, timing> interleaved_median_ms(int repeats, FA fa, FB fb, cudaStream_t stream = nullptr) {
  auto [ta, tb] = interleaved_rounds_ms(repeats, fa, fb, stream);
  return {timing::of(std::move(ta)), timing::of(std::move(tb))};
}

}  // namespace streamscan_tool
