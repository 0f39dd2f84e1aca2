// The linear recurrence and its gradient on the GPU, float values (one type a
// translation unit: test_cuda_linear_recurrence compiles them in parallel).
#include <cmath>
#include <cstdlib>

#include "linear_recurrence_cuda_backend.cuh"

STREAMSCAN_RECURRENCE_TESTS(linear_recurrence_cuda_float, streamscan_test::cuda_recurrence_backend, float)

// Past 2^31 elements (64-bit offsets in both kernels): one sequence of
// 2^31 + 37 float steps (rows), and [1, 2^21 + 3, 1100] bfloat16 channels last
// (lanes), filled on the device from a formula whose values are exact in both
// types, checked on the host against the double oracle. About 26 and 15 GB of
// GPU memory; skipped under STREAMSCAN_TEST_MAX_N (compute-sanitizer runs).
namespace {

__host__ __device__ inline unsigned recurrence_hash(std::int64_t i, unsigned salt) {
  std::uint64_t h = (static_cast<std::uint64_t>(i) + salt) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return static_cast<unsigned>(h >> 56);  // 8 bits
}
__host__ __device__ inline float large_gate(std::int64_t i) { return 0.5f + recurrence_hash(i, 1) * (1.0f / 512); }
__host__ __device__ inline float large_input(std::int64_t i) {
  return (static_cast<float>(recurrence_hash(i, 2)) - 128.0f) * (1.0f / 256);
}

template <class T>
__global__ void fill_large_recurrence(T* a, T* b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    a[i] = static_cast<T>(large_gate(i));
    b[i] = static_cast<T>(large_input(i));
  }
}

template <class T>
void check_large_recurrence(const streamscan::recurrence_layout& l, double storage_eps) {
  using streamscan_test::gpu_present;
  if (!gpu_present()) GTEST_SKIP() << "no GPU";
  if (std::getenv("STREAMSCAN_TEST_MAX_N") != nullptr) GTEST_SKIP() << "STREAMSCAN_TEST_MAX_N set";
  const std::int64_t n = streamscan_test::layout_extent(l);
  std::size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<std::size_t>(n) * sizeof(T) * 3 + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << (3 * n * sizeof(T) >> 30) + 1 << " GiB of free GPU memory";
  streamscan_test::device_buffer<T> a(n), b(n), h(n);
  fill_large_recurrence<<<4096, 256>>>(a.get(), b.get(), n);
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  streamscan::cuda::linear_recurrence(l, a.get(), b.get(), h.get());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<T> got;
  h.download(got);
  const double tol = 5.960464477539063e-08 * (64 + 8 * std::log2(double(l.length) + 1)) + storage_eps;
  double worst = 0;
  std::int64_t at_worst = -1;
  for (std::int64_t s = 0; s < l.sequences(); ++s) {
    double x = 0, m = 0;
    for (std::int64_t t = 0; t < l.length; ++t) {
      const std::int64_t i = streamscan_test::layout_at(l, s, t);
      x = large_gate(i) * x + large_input(i);
      m = large_gate(i) * m + std::fabs(large_input(i));
      const double r = std::fabs(static_cast<double>(static_cast<float>(got[static_cast<std::size_t>(i)])) - x) / (tol * m);
      if (!(r <= worst)) {
        worst = r;
        at_worst = i;
      }
    }
  }
  EXPECT_LE(worst, 1.0) << "worst error (in bounds) at element " << at_worst;
}

}  // namespace

TEST(large_linear_recurrence_cuda, rows_past_two_to_the_31) {
  check_large_recurrence<float>(streamscan::time_last_layout(1, 1, (std::int64_t{1} << 31) + 37), 0.0);
}

TEST(large_linear_recurrence_cuda, lanes_past_two_to_the_31_bfloat16) {
  check_large_recurrence<__nv_bfloat16>(streamscan::channels_last_layout(1, (std::int64_t{1} << 21) + 3, 1100),
                                        3.90625e-03);
}
