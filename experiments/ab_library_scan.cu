// Times the library's default inclusive_scan (public API) for int32 and
// uint64 against memcpy and CUB; compiled against two include trees it
// compares two versions of the library in one device call:
//   nvcc ... -I<tree> experiments/ab_library_scan.cu -o ab && ./ab
// Mode "large": one uint32 scan of 2^31 + 12345 values through the default
// (pipelined on sm_90) path, checked on the device against a closed form.
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>
#include <streamscan/cuda/device/device_segmented_scan.cuh>

#include "../tools/cuda_timing.cuh"

using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;

template <class A>
__global__ void fill_mod7(A* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<A>(i % 7);
}

// out[i] must be sum_{j <= i} (j mod 7), mod 2^32.
__global__ void check_mod7(const std::uint32_t* out, std::int64_t n, unsigned long long* wrong) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t q = (i + 1) / 7, r = (i + 1) % 7;
    const std::uint32_t expect = static_cast<std::uint32_t>(static_cast<std::uint64_t>(21 * q + r * (r - 1) / 2));
    if (out[i] != expect) atomicAdd(wrong, 1ull);
  }
}

template <class A>
void time_type(const char* name, int log2n) {
  const std::int64_t n = std::int64_t{1} << log2n;
  A *in, *out;
  cuda_check(cudaMalloc(&in, n * sizeof(A)), "malloc");
  cuda_check(cudaMalloc(&out, n * sizeof(A)), "malloc");
  fill_mod7<<<1024, 256>>>(in, n);
  std::size_t tb = 0, cb = 0;
  (void)streamscan::cuda::inclusive_scan(nullptr, tb, static_cast<const A*>(in), out, n);
  cub::DeviceScan::InclusiveSum(nullptr, cb, in, out, n);
  void* temp;
  cuda_check(cudaMalloc(&temp, tb > cb ? tb : cb), "malloc");
  for (int i = 0; i < 20; ++i) cudaMemcpyAsync(out, in, n * sizeof(A), cudaMemcpyDeviceToDevice);
  const double copy = median_ms(20, [&](int) { cudaMemcpyAsync(out, in, n * sizeof(A), cudaMemcpyDeviceToDevice); });
  const double cub = median_ms(20, [&](int) { std::size_t b = cb; cub::DeviceScan::InclusiveSum(temp, b, in, out, n); });
  const double ours = median_ms(20, [&](int) {
    std::size_t b = tb;
    (void)streamscan::cuda::inclusive_scan(temp, b, static_cast<const A*>(in), out, n);
  });
  std::printf("%s 2^%d: memcpy %.4f ms, CUB %.4f, library %.4f ms (%.1f%% of memcpy, %.2fx CUB)\n", name, log2n, copy,
              cub, ours, 100 * copy / ours, cub / ours);
  cudaFree(in);
  cudaFree(out);
  cudaFree(temp);
}

// Segmented int32 sums, head bits, a head every `length` values.
void time_segmented(int log2n, int length, streamscan::scan_direction direction) {
  const std::int64_t n = std::int64_t{1} << log2n;
  std::int32_t *in, *out;
  std::uint32_t* words;
  cuda_check(cudaMalloc(&in, n * 4), "malloc");
  cuda_check(cudaMalloc(&out, n * 4), "malloc");
  cuda_check(cudaMalloc(&words, n / 8), "malloc");
  fill_mod7<<<1024, 256>>>(in, n);
  std::vector<std::uint32_t> h(n / 32, 0);
  for (std::int64_t i = 0; i < n; i += length) h[i / 32] |= 1u << (i % 32);
  cuda_check(cudaMemcpy(words, h.data(), n / 8, cudaMemcpyHostToDevice), "copy");
  const streamscan::head_bits heads(words);
  streamscan::segmented_options opt;
  opt.direction = direction;
  std::size_t tb = 0;
  (void)streamscan::cuda::segmented_inclusive_scan(nullptr, tb, static_cast<const std::int32_t*>(in), out, n, heads,
                                                   streamscan::plus{}, nullptr, opt);
  void* temp;
  cuda_check(cudaMalloc(&temp, tb), "malloc");
  const double ms = median_ms(20, [&](int) {
    std::size_t b = tb;
    (void)streamscan::cuda::segmented_inclusive_scan(temp, b, static_cast<const std::int32_t*>(in), out, n, heads,
                                                     streamscan::plus{}, nullptr, opt);
  });
  std::printf("segmented head bits int32 2^%d, length %d, %s: %.4f ms\n", log2n, length,
              streamscan::to_string(direction), ms);
  cudaFree(in);
  cudaFree(out);
  cudaFree(words);
  cudaFree(temp);
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1 && std::strcmp(argv[1], "segmented") == 0) {
    for (auto direction : {streamscan::scan_direction::forward, streamscan::scan_direction::backward})
      for (int length : {64, 1 << 20}) time_segmented(28, length, direction);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "large") == 0) {
    const std::int64_t n = (std::int64_t{1} << 31) + 12345;
    std::uint32_t *in, *out;
    unsigned long long* wrong;
    cuda_check(cudaMalloc(&in, n * 4), "malloc");
    cuda_check(cudaMalloc(&out, n * 4), "malloc");
    cuda_check(cudaMalloc(&wrong, 8), "malloc");
    cuda_check(cudaMemset(wrong, 0, 8), "memset");
    cuda_check(cudaMemset(out, 0xab, n * 4), "poison");
    fill_mod7<<<4096, 256>>>(in, n);
    streamscan::cuda::scan_plan plan;
    streamscan::throw_if_error(streamscan::cuda::describe_scan<std::uint32_t>(n, {}, plan));
    streamscan::cuda::inclusive_scan(static_cast<const std::uint32_t*>(in), out, n);
    check_mod7<<<4096, 256>>>(out, n, wrong);
    unsigned long long h = 0;
    cuda_check(cudaMemcpy(&h, wrong, 8, cudaMemcpyDeviceToHost), "copy");
    std::printf("uint32 n = 2^31 + 12345, policy %s (%s): %llu wrong\n", plan.policy.c_str(), plan.source.c_str(), h);
    return h == 0 ? 0 : 1;
  }
  time_type<std::int32_t>("int32", 28);
  time_type<std::uint64_t>("uint64", 28);
  time_type<std::uint64_t>("uint64", 24);
  return 0;
}
