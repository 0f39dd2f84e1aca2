// Sizes past 2^31 on the GPU: 64-bit offsets end to end. The input is an
// iterator that computes a pseudo-random byte from its index (no input
// memory); the output is 2 GiB of uint8, so the sums wrap modulo 256, which
// is still an exact, checkable scan.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
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

// Raw uint32 pointers past 2^31 values take the default vectorised path (on
// sm_90+ the pipelined kernel): in place, values hashed from the index, the
// result checked on the device against a second scan of the same values by
// the matrix kernel (an iterator input), so no host copy of 8 GiB.
__global__ void fill_hashed_u32(std::uint32_t* p, std::int64_t n, std::uint64_t salt) {
  const hashed_bytes h{salt, 0};
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    p[i] = h[i];
}
__global__ void count_differences(const std::uint32_t* a, const std::uint32_t* b, std::int64_t n,
                                  unsigned long long* differ) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    if (a[i] != b[i]) atomicAdd(differ, 1ull);
}

struct add_u32 {  // sums the bytes as uint32, wrapping like the raw scan
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a + b; }
};

TEST(large_cuda, raw_pointers_past_two_to_the_31_in_place) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng("large_cuda_raw");
  const std::int64_t n = (std::int64_t{1} << 31) + 4097 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) * 8 + (size_t{1} << 30)) GTEST_SKIP() << "needs 17 GiB of free GPU memory";
  const std::uint64_t salt = rng();
  st::device_buffer<std::uint32_t> data(static_cast<std::size_t>(n)), expect(static_cast<std::size_t>(n));
  st::device_buffer<unsigned long long> differ(1);
  fill_hashed_u32<<<4096, 256>>>(data.get(), n, salt);
  // The reference: the matrix kernel reading the bytes through the iterator.
  const hashed_bytes h{salt, 0};
  ss::cuda::inclusive_scan(h, expect.get(), n, add_u32{});
  // The default (automatic: the pipelined kernel), the one-tile kernel (its
  // L2 hint for the block's own tile, its tile ids past 2^31 / tile) and
  // chained's default (StreamScan's 3D scan).
  const ss::scan_options runs[] = {{ss::scan_strategy::automatic},
                                   {ss::scan_strategy::decoupled_lookback, "t128x16"},
                                   {ss::scan_strategy::chained}};
  bool first = true;
  for (const ss::scan_options& options : runs) {
    if (!first) fill_hashed_u32<<<4096, 256>>>(data.get(), n, salt);
    first = false;
    ss::cuda::scan_plan plan;
    ASSERT_TRUE(ss::cuda::describe_scan<std::uint32_t>(n, options, plan).is_ok());
    SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " n=" + std::to_string(n) + " " +
                 ss::to_string(plan.strategy) + " policy " + plan.policy);
    ss::cuda::inclusive_scan(static_cast<const std::uint32_t*>(data.get()), data.get(), n, ss::plus{}, nullptr,
                             options);
    STREAMSCAN_TEST_CUDA(cudaMemset(differ.get(), 0, sizeof(unsigned long long)));
    count_differences<<<4096, 256>>>(data.get(), expect.get(), n, differ.get());
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned long long> host;
    differ.download(host);
    EXPECT_EQ(host[0], 0ull);
  }
}

// Segmented scans past 2^31: offsets with segments that straddle 2^31, both
// directions, single pass and reduce_then_scan; uint8 sums wrap (exact).
TEST(large_cuda, segmented_past_two_to_the_31) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng("large_cuda_segmented");
  const std::int64_t n = (std::int64_t{1} << 31) + 1000 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) * 2 + (size_t{1} << 30)) GTEST_SKIP() << "needs 5 GiB of free GPU memory";
  const hashed_bytes in{rng(), 0};
  const std::vector<std::int64_t> offsets = {0, (std::int64_t{1} << 30) + 5, (std::int64_t{1} << 31) - 3,
                                             (std::int64_t{1} << 31) + 999, n};
  st::device_buffer<std::int64_t> d_offsets(offsets.size());
  d_offsets.upload(offsets);
  st::device_buffer<std::uint8_t> out(static_cast<std::size_t>(n));
  const std::uint8_t init = 3;
  for (const auto strategy : {ss::scan_strategy::reduce_then_scan, ss::scan_strategy::decoupled_lookback}) {
    for (const auto dir : {ss::scan_direction::forward, ss::scan_direction::backward}) {
      SCOPED_TRACE(std::string("seed ") + std::to_string(st::global_seed()) + " n=" + std::to_string(n) + " " +
                   ss::to_string(strategy) + " " + ss::to_string(dir));
      STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), st::poison_byte, static_cast<std::size_t>(n)));
      ss::cuda::segmented_inclusive_scan_init(
          in, out.get(), n, ss::segment_offsets{static_cast<const std::int64_t*>(d_offsets.get()), 4}, ss::plus{},
          init, nullptr, ss::segmented_options{dir, {strategy}});
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      std::vector<std::uint8_t> host;
      out.download(host);
      std::int64_t mismatches = 0, first = -1;
      for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
        const std::int64_t b = offsets[k], e = offsets[k + 1];
        std::uint8_t acc = init;
        for (std::int64_t j = 0; j < e - b; ++j) {
          const std::int64_t i = dir == ss::scan_direction::forward ? b + j : e - 1 - j;
          acc = static_cast<std::uint8_t>(acc + in[i]);
          if (host[static_cast<std::size_t>(i)] != acc && mismatches++ == 0) first = i;
        }
      }
      EXPECT_EQ(mismatches, 0) << "first mismatch at " << first;
    }
  }
}

}  // namespace

namespace {
struct byte_below {
  std::uint8_t limit;
  __host__ __device__ bool operator()(std::uint8_t x) const { return x < limit; }
};
}  // namespace

// Compaction past 2^32 elements (the 64-bit count and its split status words)
// and partition past 2^31 (32-bit counts, 64-bit positions): uint8 values from
// the index hash, every output byte checked on the host.
TEST(large_cuda, select_past_two_to_the_32) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng("large_cuda_select");
  const std::int64_t n = (std::int64_t{1} << 32) + 777 + static_cast<std::int64_t>(rng() % 100000);
  const std::int64_t m = (std::int64_t{1} << 31) + 333 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) + (size_t{2} << 30)) GTEST_SKIP() << "needs 7 GiB of free GPU memory";
  const hashed_bytes in{rng(), 0};
  const byte_below pred{64};  // about a quarter
  st::device_buffer<std::uint8_t> out(static_cast<std::size_t>(n));
  {
    SCOPED_TRACE("select_if seed " + std::to_string(st::global_seed()) + " n=" + std::to_string(n));
    STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), st::poison_byte, static_cast<std::size_t>(n)));
    const std::int64_t k = ss::cuda::select_if(in, out.get(), n, n, pred);
    std::vector<std::uint8_t> host;
    out.download(host);
    std::int64_t want = 0, mismatches = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (pred(in[i]) && host[static_cast<std::size_t>(want++)] != in[i]) ++mismatches;
    EXPECT_EQ(k, want);
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(host[static_cast<std::size_t>(want)], st::poison_byte) << "written past the selected";
  }
  {
    SCOPED_TRACE("partition seed " + std::to_string(st::global_seed()) + " m=" + std::to_string(m));
    const std::int64_t k = ss::cuda::partition(in, out.get(), m, pred);
    std::vector<std::uint8_t> host;
    out.download(host);
    std::int64_t selected = 0, rejected = 0, mismatches = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      const std::size_t at = static_cast<std::size_t>(pred(in[i]) ? selected++ : m - 1 - rejected++);
      if (host[at] != in[i]) ++mismatches;
    }
    EXPECT_EQ(k, selected);
    EXPECT_EQ(mismatches, 0);
  }
}

namespace {
struct u32_below {
  std::uint32_t limit;
  __host__ __device__ bool operator()(std::uint32_t x) const { return x < limit; }
};
}  // namespace

// Raw uint32 input past 2^32 elements (hashed values, about 40% of them below
// 100), through `call(src, out, n, pred, options)` with the default policy
// and with the one-tile kernel t512x8, whose 64-bit path the byte tests above
// check on the host; the outputs compared on the device: all n of them
// (`whole`), else the k selected and the poisoned slot after them. 48 GiB on
// the device, no host copy.
template <class Call>
void check_against_one_tile(const char* name, Call call, bool whole) {
  auto rng = st::make_rng(name);
  const std::int64_t n = (std::int64_t{1} << 32) + 4321 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) * 12 + (size_t{2} << 30)) GTEST_SKIP() << "needs 50 GiB of free GPU memory";
  const std::uint64_t salt = rng();
  st::device_buffer<std::uint32_t> in(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n)),
      expect(static_cast<std::size_t>(n));
  st::device_buffer<unsigned long long> differ(1);
  fill_hashed_u32<<<4096, 256>>>(in.get(), n, salt);
  const auto* src = static_cast<const std::uint32_t*>(in.get());
  const u32_below pred{100};
  SCOPED_TRACE(std::string(name) + " seed " + std::to_string(st::global_seed()) + " n=" + std::to_string(n));
  STREAMSCAN_TEST_CUDA(cudaMemset(got.get(), st::poison_byte, static_cast<std::size_t>(n) * 4));
  const std::int64_t k = call(src, got.get(), n, pred, ss::select_options{});
  ss::select_options one_tile;
  one_tile.policy = "t512x8";
  const std::int64_t want = call(src, expect.get(), n, pred, one_tile);
  EXPECT_EQ(k, want);
  EXPECT_GT(want, std::int64_t{1} << 30);
  const std::int64_t compared = whole ? n : want;
  STREAMSCAN_TEST_CUDA(cudaMemset(differ.get(), 0, sizeof(unsigned long long)));
  count_differences<<<4096, 256>>>(got.get(), expect.get(), compared, differ.get());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned long long> host;
  differ.download(host);
  EXPECT_EQ(host[0], 0ull);
  if (compared < n) {
    std::uint32_t after = 0, poison = 0;
    STREAMSCAN_TEST_CUDA(cudaMemcpy(&after, got.get() + compared, 4, cudaMemcpyDeviceToHost));
    std::memset(&poison, st::poison_byte, 4);
    EXPECT_EQ(after, poison) << "written past the selected";
  }
}

// Partition: the default for raw uint32 on sm_90+ is the pipelined kernel,
// here with 64-bit counts in its 128-bit status words.
TEST(large_cuda, pipelined_partition_past_two_to_the_32) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  check_against_one_tile("large_cuda_pipelined_partition", [](auto src, auto out, std::int64_t n, auto pred,
                                                             ss::select_options opt) {
    return ss::cuda::partition(src, out, n, pred, nullptr, opt);
  }, true);
}

// Compaction: the default is the outbox kernel (4-byte values from 2^26),
// 64-bit counts through its look-back and records.
TEST(large_cuda, outbox_compaction_past_two_to_the_32) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  check_against_one_tile("large_cuda_outbox_compaction", [](auto src, auto out, std::int64_t n, auto pred,
                                                           ss::select_options opt) {
    return ss::cuda::select_if(src, out, n, n, pred, nullptr, opt);
  }, false);
}

namespace {
// Sparse head bits: about one head per 2048 elements, so segments straddle
// tiles and the look-back carries (value, head) pairs across many of them.
__global__ void fill_sparse_heads(std::uint32_t* words, std::int64_t count, std::uint64_t salt) {
  const hashed_bytes h{salt, 0};
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    words[i] = h[i] < 4 ? 1u << (h[i + count] & 31u) : 0u;
}
}  // namespace

// The pipelined segmented kernel in both shapes (p512x4s6r6, p512x2s12r4;
// sm_90+) on raw uint32 values past 2^31, both directions, checked on the host against a naive loop (wrapping
// uint32 sums): 64-bit tile ids, mirrored tiles and the pair look-back.
TEST(large_cuda, pipelined_segmented_past_two_to_the_31) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng("large_cuda_pipelined_segmented");
  const std::int64_t n = (std::int64_t{1} << 31) + 777 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) * 9 + (size_t{2} << 30)) GTEST_SKIP() << "needs 21 GiB of free GPU memory";
  const std::uint64_t salt = rng();
  const std::int64_t words = (n + 31) / 32;
  st::device_buffer<std::uint32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n)),
      bits(static_cast<std::size_t>(words));
  fill_hashed_u32<<<4096, 256>>>(in.get(), n, salt);
  fill_sparse_heads<<<4096, 256>>>(bits.get(), words, salt ^ 0x5bd1e995u);
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint32_t> values, heads, got;
  in.download(values);
  bits.download(heads);
  auto head = [&](std::int64_t i) { return ((heads[static_cast<std::size_t>(i >> 5)] >> (i & 31)) & 1u) != 0; };
  for (const char* policy : {"p512x4s6r6", "p512x2s12r4"})
  for (const auto dir : {ss::scan_direction::forward, ss::scan_direction::backward}) {
    SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " n=" + std::to_string(n) + " " + ss::to_string(dir) +
                 " " + policy);
    STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), st::poison_byte, static_cast<std::size_t>(n) * 4));
    ss::cuda::segmented_inclusive_scan(static_cast<const std::uint32_t*>(in.get()), out.get(), n,
                                       ss::head_bits{static_cast<const std::uint32_t*>(bits.get())}, add_u32{},
                                       nullptr, ss::segmented_options{dir, {ss::scan_strategy::automatic, policy}});
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    out.download(got);
    const bool forward = dir == ss::scan_direction::forward;
    std::uint32_t acc = 0;
    std::int64_t mismatches = 0, first = -1;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t i = forward ? j : n - 1 - j;
      // Backward, element i restarts where element i + 1 starts a segment.
      const bool restart = j == 0 || (forward ? head(i) : head(i + 1));
      acc = restart ? values[static_cast<std::size_t>(i)] : acc + values[static_cast<std::size_t>(i)];
      if (got[static_cast<std::size_t>(i)] != acc && mismatches++ == 0) first = i;
    }
    EXPECT_EQ(mismatches, 0) << "first mismatch at " << first;
  }
}

// Radix sort past 2^31 keys: the onesweep passes run as several portions
// (each look-back counts 30 bits). uint8 keys hashed from the index, values
// the input index, sorted in place; checked on the host: keys in order, each
// value names an input of its key, and equal keys keep input order (stable),
// which with n distinct values makes the output a permutation.
namespace {
__global__ void fill_sort_input(std::uint8_t* keys, std::uint32_t* values, std::int64_t n, std::uint64_t salt) {
  const hashed_bytes h{salt, 0};
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    keys[i] = h[i];
    values[i] = static_cast<std::uint32_t>(i);
  }
}
}  // namespace

TEST(large_cuda, radix_sort_pairs_past_two_to_the_31_in_place) {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng("large_cuda_sort");
  const std::int64_t n = (std::int64_t{1} << 31) + 4099 + static_cast<std::int64_t>(rng() % 100000);
  size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<size_t>(n) * 12 + (size_t{1} << 30)) GTEST_SKIP() << "needs 26 GiB of free GPU memory";
  const std::uint64_t salt = rng();
  SCOPED_TRACE(std::string("seed ") + std::to_string(st::global_seed()) + " n=" + std::to_string(n));
  st::device_buffer<std::uint8_t> keys(static_cast<std::size_t>(n));
  st::device_buffer<std::uint32_t> values(static_cast<std::size_t>(n));
  fill_sort_input<<<1024, 256>>>(keys.get(), values.get(), n, salt);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  ss::cuda::radix_sort_pairs(keys.get(), keys.get(), values.get(), values.get(), n);
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint8_t> k;
  std::vector<std::uint32_t> v;
  keys.download(k);
  values.download(v);
  const hashed_bytes h{salt, 0};
  std::int64_t bad_order = 0, bad_value = 0, unstable = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto at = static_cast<std::size_t>(i);
    if (i > 0 && k[at] < k[at - 1]) ++bad_order;
    if (static_cast<std::int64_t>(v[at]) >= n || h[v[at]] != k[at]) ++bad_value;
    if (i > 0 && k[at] == k[at - 1] && v[at] <= v[at - 1]) ++unstable;
  }
  EXPECT_EQ(bad_order, 0);
  EXPECT_EQ(bad_value, 0);
  EXPECT_EQ(unstable, 0);
}
