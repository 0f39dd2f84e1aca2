// Warp and block building blocks, each tested alone: every block scan
// algorithm at block sizes that are and are not multiples of 32, with a
// commutative and a non-commutative operator, against the host oracle.
#include <gtest/gtest.h>

#include <streamscan/cuda/block/block_reduce.cuh>
#include <streamscan/cuda/block/block_scan.cuh>
#include <streamscan/cuda/warp/warp_scan.cuh>

#include "common/compare.hpp"
#include "common/cuda_helpers.cuh"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace {
namespace st = streamscan_test;
using streamscan::cuda::block_scan_algorithm;

template <block_scan_algorithm Algo, int Threads, class T, class Op>
__global__ void block_scan_probe(const T* in, T* inclusive, T* exclusive, T* aggregate, Op op) {
  using scan_t = streamscan::cuda::block_scan<T, Threads, Algo>;
  __shared__ typename scan_t::temp_storage storage;
  const int t = threadIdx.x;
  T incl, excl, agg;
  scan_t(storage).scan(in[t], op, incl, excl, agg);
  inclusive[t] = incl;
  if (t > 0) exclusive[t] = excl;  // thread 0's exclusive is unspecified
  aggregate[t] = agg;
}

template <int Threads, class T, class Op>
__global__ void block_reduce_probe(const T* in, T* out, Op op) {
  using reduce_t = streamscan::cuda::block_reduce<T, Threads>;
  __shared__ typename reduce_t::temp_storage storage;
  const T total = reduce_t(storage).reduce(in[threadIdx.x], op);
  if (threadIdx.x == 0) *out = total;
}

template <class T, class Op>
__global__ void warp_scan_probe(const T* in, T* inclusive, T* exclusive, T* reduced, int lanes, Op op) {
  const int lane = threadIdx.x;
  T incl, excl;
  streamscan::cuda::warp_scan::scan(in[lane], op, lane, lanes, incl, excl);
  const T red = streamscan::cuda::warp_scan::reduce(in[lane], op, lane, lanes);
  inclusive[lane] = incl;
  if (lane > 0) exclusive[lane] = excl;
  if (lane == 0) *reduced = red;
}

template <class T>
std::vector<T> without_first(const std::vector<T>& v) {
  return std::vector<T>(v.begin() + (v.empty() ? 0 : 1), v.end());
}

template <class T, class Op>
void expect_scan_results(const std::vector<T>& in, const std::vector<T>& incl, const std::vector<T>& excl,
                         Op op) {
  const auto ref_incl = st::oracle_scan<T>(in, op, st::scan_kind::inclusive, T{});
  EXPECT_TRUE(st::compare_exact(incl, ref_incl)) << "inclusive";
  // exclusive[t] = inclusive[t-1] for t >= 1
  EXPECT_TRUE(st::compare_exact(without_first(excl),
                                std::vector<T>(ref_incl.begin(), ref_incl.end() - (ref_incl.empty() ? 0 : 1))))
      << "exclusive";
}

template <block_scan_algorithm Algo, int Threads, class T, class Op>
void check_block_scan() {
  SCOPED_TRACE("block threads " + std::to_string(Threads) + ", seed " + std::to_string(st::global_seed()));
  auto rng = st::make_rng("block_scan" + std::to_string(Threads) + std::to_string(int(Algo)) + typeid(T).name());
  for (int rep = 0; rep < 3; ++rep) {
    const auto in = st::random_vector<T>(rng, Threads);
    std::vector<T> poisoned(Threads);
    st::poison(poisoned);
    st::device_buffer<T> d_in(Threads), d_incl(Threads), d_excl(Threads), d_agg(Threads);
    d_in.upload(in);
    d_incl.upload(poisoned);
    d_excl.upload(poisoned);
    d_agg.upload(poisoned);
    block_scan_probe<Algo, Threads><<<1, Threads>>>(d_in.get(), d_incl.get(), d_excl.get(), d_agg.get(), Op{});
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<T> incl, excl, agg;
    d_incl.download(incl);
    d_excl.download(excl);
    d_agg.download(agg);
    expect_scan_results(in, incl, excl, Op{});
    EXPECT_TRUE(st::compare_exact(agg, std::vector<T>(Threads, incl.back()))) << "aggregate in every thread";
  }
}

template <int Threads, class T, class Op>
void check_block_reduce() {
  auto rng = st::make_rng("block_reduce" + std::to_string(Threads));
  const auto in = st::random_vector<T>(rng, Threads);
  st::device_buffer<T> d_in(Threads), d_out(1);
  d_in.upload(in);
  block_reduce_probe<Threads><<<1, Threads>>>(d_in.get(), d_out.get(), Op{});
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  std::vector<T> out;
  d_out.download(out);
  EXPECT_TRUE(st::compare_exact(out, std::vector<T>{st::oracle_scan<T>(in, Op{}, st::scan_kind::inclusive, T{}).back()}))
      << "block threads " << Threads;
}

template <block_scan_algorithm Algo, class T, class Op>
void check_all_block_sizes() {
  check_block_scan<Algo, 1, T, Op>();
  check_block_scan<Algo, 7, T, Op>();
  check_block_scan<Algo, 32, T, Op>();
  check_block_scan<Algo, 33, T, Op>();
  check_block_scan<Algo, 100, T, Op>();
  check_block_scan<Algo, 256, T, Op>();
  check_block_scan<Algo, 1000, T, Op>();
  check_block_scan<Algo, 1024, T, Op>();
}

class block_level : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  }
};

TEST_F(block_level, kogge_stone_int) {
  check_all_block_sizes<block_scan_algorithm::kogge_stone, std::int32_t, streamscan::plus>();
}
TEST_F(block_level, kogge_stone_noncommutative) {
  check_all_block_sizes<block_scan_algorithm::kogge_stone, st::mat2u, st::mat2u_product>();
}
TEST_F(block_level, brent_kung_int) {
  check_all_block_sizes<block_scan_algorithm::brent_kung, std::int32_t, streamscan::plus>();
}
TEST_F(block_level, brent_kung_noncommutative) {
  check_all_block_sizes<block_scan_algorithm::brent_kung, st::mat2u, st::mat2u_product>();
}
TEST_F(block_level, raking_int) {
  check_all_block_sizes<block_scan_algorithm::raking, std::int32_t, streamscan::plus>();
}
TEST_F(block_level, raking_noncommutative) {
  check_all_block_sizes<block_scan_algorithm::raking, st::mat2u, st::mat2u_product>();
}

TEST_F(block_level, block_reduce_noncommutative) {
  check_block_reduce<1, st::mat2u, st::mat2u_product>();
  check_block_reduce<33, st::mat2u, st::mat2u_product>();
  check_block_reduce<256, st::mat2u, st::mat2u_product>();
  check_block_reduce<1000, st::mat2u, st::mat2u_product>();
}

TEST_F(block_level, warp_scan_partial_warps) {
  auto rng = st::make_rng("warp_scan");
  for (int lanes = 1; lanes <= 32; ++lanes) {
    SCOPED_TRACE("lanes " + std::to_string(lanes) + ", seed " + std::to_string(st::global_seed()));
    const auto in = st::random_vector<st::mat2u>(rng, lanes);
    std::vector<st::mat2u> poisoned(lanes);
    st::poison(poisoned);
    st::device_buffer<st::mat2u> d_in(lanes), d_incl(lanes), d_excl(lanes), d_red(1);
    d_in.upload(in);
    d_incl.upload(poisoned);
    d_excl.upload(poisoned);
    warp_scan_probe<<<1, lanes>>>(d_in.get(), d_incl.get(), d_excl.get(), d_red.get(), lanes, st::mat2u_product{});
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    std::vector<st::mat2u> incl, excl, red;
    d_incl.download(incl);
    d_excl.download(excl);
    d_red.download(red);
    expect_scan_results(in, incl, excl, st::mat2u_product{});
    EXPECT_TRUE(st::compare_exact(red, std::vector<st::mat2u>{incl.back()})) << "warp reduce";
  }
}

}  // namespace
