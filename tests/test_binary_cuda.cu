// Warp and block binary prefix operations (seed 004), each at its own level:
// full and partial warps, odd block sizes, all four lane masks, segmented
// warp counts with random heads; against naive host loops.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <streamscan/cuda/block/block_binary.cuh>
#include <streamscan/cuda/warp/warp_binary.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"

namespace {
using namespace streamscan_test;
using streamscan::cuda::binary_scan;

#define SKIP_WITHOUT_GPU() \
  if (!gpu_present()) GTEST_SKIP() << "no CUDA device"

const binary_scan kinds[] = {binary_scan::inclusive_forward, binary_scan::exclusive_forward,
                             binary_scan::inclusive_reverse, binary_scan::exclusive_reverse};

bool includes(binary_scan k, int j, int i) {  // does the prefix of i count j?
  switch (k) {
    case binary_scan::inclusive_forward: return j <= i;
    case binary_scan::exclusive_forward: return j < i;
    case binary_scan::inclusive_reverse: return j >= i;
    default: return j > i;
  }
}

// One warp of `lanes` threads: count, prefix counts and segmented counts.
__global__ void warp_probe(const int* pred, const int* head, int lanes, binary_scan kind, int* count, int* prefix,
                           int* segmented) {
  const int l = threadIdx.x;
  if (l >= lanes) return;
  const streamscan::cuda::warp_binary w(lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u);
  count[l] = w.count(pred[l] != 0);
  prefix[l] = w.prefix_count(pred[l] != 0, kind);
  segmented[l] = w.segmented_prefix_count(pred[l] != 0, head[l] != 0, kind);
}

TEST(warp_binary, CountsPrefixesAndSegmentsAtEveryWidth) {
  SKIP_WITHOUT_GPU();
  auto rng = make_rng("warp_binary");
  for (int lanes : {1, 2, 7, 31, 32}) {
    for (const binary_scan kind : kinds) {
      for (int trial = 0; trial < 8; ++trial) {
        std::vector<int> pred(32), head(32);
        const double density = trial / 7.0;  // all false ... all true
        for (int i = 0; i < 32; ++i) {
          pred[i] = std::bernoulli_distribution(density)(rng);
          head[i] = std::bernoulli_distribution(0.2)(rng);
        }
        device_buffer<int> d_pred(32), d_head(32), d_count(32), d_prefix(32), d_seg(32);
        d_pred.upload(pred);
        d_head.upload(head);
        warp_probe<<<1, 32>>>(d_pred.get(), d_head.get(), lanes, kind, d_count.get(), d_prefix.get(), d_seg.get());
        STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
        std::vector<int> count, prefix, seg;
        d_count.download(count);
        d_prefix.download(prefix);
        d_seg.download(seg);
        int total = 0;
        for (int i = 0; i < lanes; ++i) total += pred[i];
        for (int i = 0; i < lanes; ++i) {
          int expect = 0, expect_seg = 0;
          // Segment of i: from the nearest head at or below i (lane 0 always) to before the next head.
          int start = i;
          while (start > 0 && !head[start]) --start;
          int end = i + 1;
          while (end < lanes && !head[end]) ++end;
          for (int j = 0; j < lanes; ++j) {
            if (!pred[j] || !includes(kind, j, i)) continue;
            ++expect;
            if (j >= start && j < end) ++expect_seg;
          }
          ASSERT_EQ(count[i], total) << "lanes " << lanes << " lane " << i;
          ASSERT_EQ(prefix[i], expect) << "lanes " << lanes << " lane " << i << " kind " << static_cast<int>(kind);
          ASSERT_EQ(seg[i], expect_seg) << "segmented: lanes " << lanes << " lane " << i << " kind "
                                        << static_cast<int>(kind) << " seed " << global_seed();
        }
      }
    }
  }
}

template <int Threads>
__global__ void block_probe(const int* pred, binary_scan kind, int* count, int* prefix, int* total) {
  using bb = streamscan::cuda::block_binary<Threads>;
  __shared__ typename bb::temp_storage storage;
  const int t = threadIdx.x;
  count[t] = bb::count(pred[t] != 0);
  int all = -1;
  prefix[t] = bb(storage).prefix_count(pred[t] != 0, kind, &all);
  total[t] = all;
}

template <int Threads>
void check_block(std::mt19937_64& rng) {
  for (const binary_scan kind : kinds) {
    for (const double density : {0.0, 0.1, 0.5, 1.0}) {
      std::vector<int> pred(Threads);
      for (auto& p : pred) p = std::bernoulli_distribution(density)(rng);
      device_buffer<int> d_pred(Threads), d_count(Threads), d_prefix(Threads), d_total(Threads);
      d_pred.upload(pred);
      block_probe<Threads><<<1, Threads>>>(d_pred.get(), kind, d_count.get(), d_prefix.get(), d_total.get());
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      std::vector<int> count, prefix, total;
      d_count.download(count);
      d_prefix.download(prefix);
      d_total.download(total);
      int all = 0;
      for (int p : pred) all += p;
      for (int i = 0; i < Threads; ++i) {
        int expect = 0;
        for (int j = 0; j < Threads; ++j) expect += pred[j] && includes(kind, j, i);
        ASSERT_EQ(count[i], all) << Threads << " threads";
        ASSERT_EQ(total[i], all) << Threads << " threads";
        ASSERT_EQ(prefix[i], expect) << Threads << " threads, thread " << i << " kind " << static_cast<int>(kind);
      }
    }
  }
}

TEST(block_binary, PrefixCountsAtOddAndFullBlockSizes) {
  SKIP_WITHOUT_GPU();
  auto rng = make_rng("block_binary");
  check_block<1>(rng);
  check_block<7>(rng);
  check_block<32>(rng);
  check_block<33>(rng);
  check_block<100>(rng);
  check_block<256>(rng);
  check_block<1000>(rng);
  check_block<1024>(rng);
}

}  // namespace
