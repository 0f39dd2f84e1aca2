// Experiment: seed 002's compaction strategies (hybrid, multi_level) through
// streamscan::cuda::select_if, at 2^28 int32 kept by x < t at 5 / 50 / 95%,
// against memcpy of the same bytes. Built once per source tree, so two
// versions of the kernels can be compared by running their binaries in turn
// on one GPU:
//
//   git archive REV include | tar -x -C /tmp/rev
//   nvcc -std=c++17 -O3 -arch=sm_90 -I/tmp/rev/include experiments/seed002_ab.cu -o seed002_rev
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude experiments/seed002_ab.cu -o seed002_now
//   for r in 1 2 3; do ./seed002_rev; ./seed002_now; done
//
// Each output is checked by its count and the sum of the kept values against
// the host (hybrid writes in no particular order). Results:
// docs/results/seed002_ab_2026-11-25_h100.txt.
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include <streamscan/cuda.cuh>

#include "../tools/cuda_timing.cuh"

using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;

struct below {
  int threshold;
  __host__ __device__ bool operator()(int x) const { return x < threshold; }
};

__global__ void sum_kept(const int* out, std::int64_t k, unsigned long long* sum) {
  unsigned long long s = 0;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < k; i += std::int64_t{gridDim.x} * blockDim.x)
    s += static_cast<unsigned>(out[i]);
  atomicAdd(sum, s);
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  const std::int64_t n = std::int64_t{1} << log2n;
  std::vector<int> host(static_cast<std::size_t>(n));
  std::mt19937 rng(12345);
  for (auto& x : host) x = static_cast<int>(rng() % 1000000);
  int *in = nullptr, *out = nullptr, *copy = nullptr;
  unsigned long long* counter = nullptr;  // the kept values' sum
  cuda_check(cudaMalloc(&in, n * 4), "cudaMalloc");
  cuda_check(cudaMalloc(&out, n * 4), "cudaMalloc");
  cuda_check(cudaMalloc(&copy, n * 4), "cudaMalloc");
  cuda_check(cudaMalloc(&counter, 8), "cudaMalloc");
  cuda_check(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice), "upload");
  const double copy_ms = median_ms(20, [&](int) { cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice); });
  std::int64_t* num = nullptr;
  cuda_check(cudaMalloc(&num, 8), "cudaMalloc");
  for (const auto strategy : {streamscan::select_strategy::hybrid, streamscan::select_strategy::multi_level})
    for (const int per_mille : {50, 500, 950}) {
      const below pred{per_mille * 1000};
      const streamscan::select_options opt{strategy};
      std::size_t bytes = 0;
      if (!streamscan::cuda::select_if(nullptr, bytes, static_cast<const int*>(in), out, n, n, num, pred, nullptr, opt))
        throw std::runtime_error("size query");
      void* temp = nullptr;
      cuda_check(cudaMalloc(&temp, bytes), "cudaMalloc");
      auto run = [&](int) {
        (void)streamscan::cuda::select_if(temp, bytes, static_cast<const int*>(in), out, n, n, num, pred, nullptr, opt);
      };
      const double ms = median_ms(20, run);
      run(0);
      std::int64_t k = 0;
      unsigned long long sum = 0;
      cuda_check(cudaMemcpy(&k, num, 8, cudaMemcpyDeviceToHost), "count");
      cuda_check(cudaMemset(counter, 0, 8), "memset");
      sum_kept<<<1024, 256>>>(out, k, counter);
      cuda_check(cudaMemcpy(&sum, counter, 8, cudaMemcpyDeviceToHost), "sum");
      cudaFree(temp);
      std::int64_t want_k = 0;
      unsigned long long want_sum = 0;
      for (const int x : host)
        if (x < per_mille * 1000) ++want_k, want_sum += static_cast<unsigned>(x);
      const double moved = 4.0 * n + 4.0 * static_cast<double>(k);
      std::printf("2^%d keep %.2f  %-11s %.4f ms  %.1f%% of memcpy's rate (memcpy %.4f ms for 8n)  %s\n", log2n,
                  per_mille / 1000.0, streamscan::to_string(strategy), ms, 100.0 * (copy_ms * moved / (8.0 * n)) / ms,
                  copy_ms, k == want_k && sum == want_sum ? "ok" : "WRONG");
    }
  return 0;
}
