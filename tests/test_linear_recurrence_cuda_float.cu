// The linear recurrence and its gradient on the GPU, float values (one type a
// translation unit: test_cuda_linear_recurrence compiles them in parallel).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "linear_recurrence_cuda_backend.cuh"

STREAMSCAN_RECURRENCE_TESTS(linear_recurrence_cuda_float, streamscan_test::cuda_recurrence_backend, float)

// Past 2^31 elements (64-bit offsets in every kernel): one sequence of
// 2^31 + 37 float steps (rows), 4096 float sequences of 2^19 + 4 steps (one
// warp a sequence) and [1, 2^21 + 3, 1100] bfloat16 channels last (lanes),
// filled on the device from a formula whose values are exact in both types
// (common/linear_recurrence_large.hpp), checked on the host against the
// double oracle on the values as stored: rows every element, the others a
// sample of whole sequences (every tile edge along time of each) and every
// sequence over its first 4096 steps; h carries a poisoned guard the call
// must leave alone. About 26, 26 and 15 GB of GPU memory; run only with
// STREAMSCAN_TEST_SWEEP=1 (as test_nccl's SizesPastTwoToThe32: the default
// round stays short), skipped under STREAMSCAN_TEST_MAX_N (compute-sanitizer).
#include <string>

#include "common/linear_recurrence_large.hpp"

namespace {

template <class T>
__global__ void fill_large_recurrence(T* a, T* b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    a[i] = static_cast<T>(streamscan_test::large_recurrence_gate(i));
    b[i] = static_cast<T>(streamscan_test::large_recurrence_input(i));
  }
}

template <class T>
void check_large_recurrence(const streamscan::recurrence_layout& l, double storage_eps) {
  using streamscan_test::gpu_present;
  if (const char* sweep = std::getenv("STREAMSCAN_TEST_SWEEP"); !sweep || std::string(sweep) != "1")
    GTEST_SKIP() << "sizes past 2^31 take 15-26 GB and ~a minute: set STREAMSCAN_TEST_SWEEP=1 to run them";
  if (!gpu_present()) GTEST_SKIP() << "no GPU";
  if (std::getenv("STREAMSCAN_TEST_MAX_N") != nullptr) GTEST_SKIP() << "STREAMSCAN_TEST_MAX_N set";
  const std::int64_t n = streamscan_test::layout_extent(l);
  std::size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<std::size_t>(n) * sizeof(T) * 3 + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << (3 * n * sizeof(T) >> 30) + 1 << " GiB of free GPU memory";
  // h has a poisoned guard past its n elements, which the call must leave alone.
  constexpr std::int64_t guard = 64;
  std::vector<T> got;
  {
    streamscan_test::device_buffer<T> a(n), b(n), h(n + guard);
    fill_large_recurrence<<<4096, 256>>>(a.get(), b.get(), n);
    STREAMSCAN_TEST_CUDA(cudaMemset(h.get(), 0xA5, static_cast<std::size_t>(n + guard) * sizeof(T)));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    streamscan::cuda::linear_recurrence(l, a.get(), b.get(), h.get());
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    h.download(got);
  }
  const auto* tail = reinterpret_cast<const unsigned char*>(got.data() + n);
  EXPECT_EQ(std::count(tail, tail + guard * sizeof(T), static_cast<unsigned char>(0xA5)),
            static_cast<std::ptrdiff_t>(guard * sizeof(T)))
      << "the call wrote past h's last element";
  const double tol = 5.960464477539063e-08 * (64 + 8 * std::log2(double(l.length) + 1)) + storage_eps;
  const auto r = streamscan_test::check_large_recurrence_host(
      l, tol, 4096, [](float v) { return static_cast<double>(static_cast<float>(static_cast<T>(v))); },
      [&](std::int64_t i) { return static_cast<double>(static_cast<float>(got[static_cast<std::size_t>(i)])); });
  EXPECT_EQ(r.bad, 0) << r.bad << " of " << r.checked << " checked elements past the bound; first at element "
                      << r.first_bad;
  EXPECT_LE(r.worst, 1.0) << "worst error (in bounds) at element " << r.at << " of " << r.checked << " checked";
}

}  // namespace

TEST(large_linear_recurrence_cuda, rows_past_two_to_the_31) {
  check_large_recurrence<float>(streamscan::time_last_layout(1, 1, (std::int64_t{1} << 31) + 37), 0.0);
}

// Many sequences of whole vectors: one warp a sequence (the staged forward),
// each row starting past 2^31 elements for most of them.
TEST(large_linear_recurrence_cuda, warp_rows_past_two_to_the_31) {
  check_large_recurrence<float>(streamscan::time_last_layout(1, 4096, (std::int64_t{1} << 19) + 4), 0.0);
}

// storage_eps: half an ulp of the bfloat16 output (unit roundoff 2^-8).
TEST(large_linear_recurrence_cuda, lanes_past_two_to_the_31_bfloat16) {
  check_large_recurrence<__nv_bfloat16>(streamscan::channels_last_layout(1, (std::int64_t{1} << 21) + 3, 1100),
                                        3.90625e-03);
}
