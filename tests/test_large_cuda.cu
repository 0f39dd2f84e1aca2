// Sizes past 2^31 on the GPU: 64-bit offsets end to end. The input is an
// iterator that computes a pseudo-random byte from its index (no input
// memory); the output is 2 GiB of uint8, so the sums wrap modulo 256, which
// is still an exact, checkable scan.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"

namespace streamscan_test {
struct hashed_bytes {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = std::uint8_t;
  using difference_type = std::int64_t;
  using pointer = void;
  using reference = std::uint8_t;

  std::uint64_t salt;
  std::int64_t offset;

  __host__ __device__ std::uint8_t operator[](std::int64_t i) const {
    std::uint64_t x = static_cast<std::uint64_t>(offset + i) * 0x9E3779B97F4A7C15ull ^ salt;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return static_cast<std::uint8_t>(x >> 56);
  }
  __host__ __device__ std::uint8_t operator*() const { return (*this)[0]; }
  __host__ __device__ hashed_bytes operator+(std::int64_t i) const { return {salt, offset + i}; }
};
}  // namespace streamscan_test

namespace {
namespace ss = streamscan;
namespace st = streamscan_test;
using st::hashed_bytes;

TEST(large_cuda, past_two_to_the_31) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng("large_cuda");
  const std::int64_t n = (std::int64_t{1} << 31) + 4097 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) + (size_t{1} << 30)) GTEST_SKIP() << "needs 3 GiB of free GPU memory";
  const hashed_bytes in{rng(), 0};
  st::device_buffer<std::uint8_t> out(static_cast<std::size_t>(n));
  for (const auto strategy : {ss::scan_strategy::reduce_then_scan, ss::scan_strategy::scan_then_add,
                              ss::scan_strategy::chained, ss::scan_strategy::decoupled_lookback}) {
    SCOPED_TRACE(std::string("seed ") + std::to_string(st::global_seed()) + " n=" + std::to_string(n) + " " +
                 ss::to_string(strategy));
    STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), st::poison_byte, static_cast<std::size_t>(n)));
    ss::cuda::exclusive_scan(in, out.get(), n, std::uint8_t{7}, ss::plus{}, nullptr, ss::scan_options{strategy});
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint8_t> host;
    out.download(host);
    std::uint8_t acc = 7;
    std::int64_t mismatches = 0, first = -1;
    for (std::int64_t i = 0; i < n; ++i) {
      if (host[static_cast<std::size_t>(i)] != acc && mismatches++ == 0) first = i;
      acc = static_cast<std::uint8_t>(acc + in[i]);
    }
    EXPECT_EQ(mismatches, 0) << "first mismatch at " << first;
  }
}

}  // namespace
