// sort_histogram: the onesweep sort's digit histogram (every pass's 8-bit
// digits counted in one read of the keys) alone, uint32 keys 2^28 uniform:
// the library's kernel at several block shapes and grids, and a variant that
// loads the next step's keys before it counts the current ones (so that a
// block's loads overlap its shared-memory atomics); and the default shape
// counting 1 to 4 passes' digits. Every 4-pass result is checked against the
// first. Median ms of 20, with the read's rate.
//   build/experiments/sort_histogram [log2 n]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <streamscan/cuda/kernels/radix_sort_kernels.cuh>

#include "../tools/cuda_timing.cuh"

namespace {

const auto check = streamscan_tool::cuda_check;
namespace sd = streamscan::cuda::detail;

__global__ void fill(std::uint32_t* keys, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    keys[i] = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
}

// The variant: whole steps only (n a multiple of the step, keys 16-byte
// aligned), the next step's four 16-byte loads issued before the current
// step's 64 atomics.
template <int THREADS>
__global__ void __launch_bounds__(THREADS) prefetch_histogram(const std::uint32_t* keys, std::int64_t n,
                                                               unsigned* hist) {
  constexpr int items = 16, bins = 256, passes = 4;
  __shared__ unsigned counts[passes][bins];
  for (int i = threadIdx.x; i < passes * bins; i += THREADS) (&counts[0][0])[i] = 0;
  __syncthreads();
  const std::int64_t steps = n / (std::int64_t{THREADS} * items);
  auto load = [&](std::int64_t step, uint4 (&v)[items / 4]) {
    const uint4* p = reinterpret_cast<const uint4*>(keys + step * THREADS * items) + threadIdx.x * (items / 4);
#pragma unroll
    for (int j = 0; j < items / 4; ++j) v[j] = p[j];
  };
  uint4 cur[items / 4], next[items / 4];
  std::int64_t step = blockIdx.x;
  if (step < steps) load(step, cur);
  for (; step < steps; step += gridDim.x) {
    if (step + gridDim.x < steps) load(step + gridDim.x, next);
#pragma unroll
    for (int j = 0; j < items / 4; ++j) {
      const unsigned k[4] = {cur[j].x, cur[j].y, cur[j].z, cur[j].w};
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int p = 0; p < passes; ++p) atomicAdd(&counts[p][(k[e] >> (8 * p)) & 0xffu], 1u);
    }
#pragma unroll
    for (int j = 0; j < items / 4; ++j) cur[j] = next[j];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < passes * bins; i += THREADS) {
    const unsigned c = (&counts[0][0])[i];
    if (c != 0) atomicAdd(hist + i, c);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int log_n = argc > 1 ? std::atoi(argv[1]) : 28;
  const std::int64_t n = std::int64_t{1} << log_n;
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "device");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SMs");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, device), "properties");
  std::uint32_t* keys = nullptr;
  unsigned* hist = nullptr;
  check(cudaMalloc(&keys, n * 4), "malloc");
  check(cudaMalloc(&hist, 4 * 256 * 4), "malloc");
  fill<<<4096, 256>>>(keys, n);
  check(cudaDeviceSynchronize(), "fill");
  sd::radix_passes rp;
  rp.count = 4;
  for (int p = 0; p < 4; ++p) {
    rp.shift[p] = 8 * p;
    rp.mask[p] = 0xffu;
  }
  std::printf("# %s, %d SMs; uint32 keys 2^%d, 4 passes of 8 bits; ms (GB/s of the read)\n", prop.name, sms, log_n);
  std::vector<unsigned> expect, got(1024);
  auto report = [&](const char* what, int threads, int items, int per_sm, double ms) {
    check(cudaMemcpy(got.data(), hist, 4096, cudaMemcpyDeviceToHost), "copy");
    if (expect.empty()) expect = got;
    std::printf("%-9s %4d x %2d, %2d blocks/SM: %.4f ms (%6.0f GB/s) %s\n", what, threads, items, per_sm, ms,
                4.0 * n / ms / 1e6, got == expect ? "ok" : "DIFFERS");
  };
  auto library = [&](auto threads_c, auto items_c) {
    constexpr int T = decltype(threads_c)::value, I = decltype(items_c)::value;
    for (const int per_sm : {2, 4, 8, 16}) {
      const std::int64_t steps = (n + std::int64_t{T} * I - 1) / (std::int64_t{T} * I);
      const std::int64_t grid = steps < std::int64_t{sms} * per_sm ? steps : std::int64_t{sms} * per_sm;
      if (per_sm * T > 2048) continue;
      auto run = [&](int) {
        cudaMemsetAsync(hist, 0, 4096);
        sd::radix_histogram_kernel<std::uint32_t, T, I, 8>
            <<<static_cast<unsigned>(grid), T>>>(keys, n, rp, std::uint32_t{0}, hist);
      };
      const double ms = streamscan_tool::median_ms(20, run).median_ms;
      check(cudaGetLastError(), "launch");
      report("library", T, I, per_sm, ms);
    }
  };
  using std::integral_constant;
  library(integral_constant<int, 256>{}, integral_constant<int, 16>{});
  library(integral_constant<int, 128>{}, integral_constant<int, 16>{});
  library(integral_constant<int, 512>{}, integral_constant<int, 16>{});
  library(integral_constant<int, 256>{}, integral_constant<int, 8>{});
  library(integral_constant<int, 256>{}, integral_constant<int, 32>{});
  for (const int per_sm : {2, 4, 8}) {
    auto run = [&](int) {
      cudaMemsetAsync(hist, 0, 4096);
      prefetch_histogram<256><<<sms * per_sm, 256>>>(keys, n, hist);
    };
    const double ms = streamscan_tool::median_ms(20, run).median_ms;
    check(cudaGetLastError(), "launch");
    report("prefetch", 256, 16, per_sm, ms);
  }
  // The default shape counting the digits of fewer passes (1: what a histogram
  // pass would cost if the passes counted the later digits themselves).
  for (int count = 1; count <= 4; ++count) {
    sd::radix_passes fewer = rp;
    fewer.count = count;
    const std::int64_t grid = std::int64_t{sms} * 4;
    auto run = [&](int) {
      cudaMemsetAsync(hist, 0, 4096);
      sd::radix_histogram_kernel<std::uint32_t, 256, 8, 8>
          <<<static_cast<unsigned>(grid), 256>>>(keys, n, fewer, std::uint32_t{0}, hist);
    };
    const double ms = streamscan_tool::median_ms(20, run).median_ms;
    check(cudaGetLastError(), "launch");
    std::printf("passes %d  256 x  8,  4 blocks/SM: %.4f ms (%6.0f GB/s)\n", count, ms, 4.0 * n / ms / 1e6);
  }
  return 0;
}
