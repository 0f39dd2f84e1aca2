// The single-pass strategies under stress: one temp allocation reused across
// many calls of random size (stale tile statuses would corrupt results),
// concurrent scans on several streams, and the chained scan's run-to-run
// determinism for floating point.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <streamscan/cuda.cuh>

#include "common/compare.hpp"
#include "common/cuda_helpers.cuh"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace {
namespace ss = streamscan;
namespace st = streamscan_test;

constexpr ss::scan_strategy single_pass[] = {ss::scan_strategy::chained, ss::scan_strategy::decoupled_lookback};

class single_pass_cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  }
};

template <class T, class Op>
void check_reused_temp(ss::scan_strategy strategy, Op op, const char* name) {
  auto rng = st::make_rng(std::string("reuse_") + name + ss::to_string(strategy));
  const std::int64_t max_n = std::int64_t{1} << 22;
  std::size_t max_bytes = 0;
  ASSERT_TRUE(ss::cuda::inclusive_scan(nullptr, max_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                       max_n, op, st::test_stream(), {strategy}).is_ok());
  st::device_buffer<unsigned char> temp(max_bytes);
  st::device_buffer<T> d_in(max_n), d_out(max_n);
  std::uniform_int_distribution<std::int64_t> size(1, max_n);
  for (int call = 0; call < 40; ++call) {
    const std::int64_t n = call % 4 == 0 ? size(rng) : size(rng) % 20000 + 1;  // mostly short: few tiles, reused words
    SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " call " + std::to_string(call) + " n=" +
                 std::to_string(n) + " " + ss::to_string(strategy));
    const auto in = st::random_vector<T>(rng, n);
    STREAMSCAN_TEST_CUDA(cudaMemcpy(d_in.get(), in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // the pageable copy's DMA, before the non-blocking stream reads it
    std::size_t bytes = max_bytes;  // more than this n needs: allowed
    const ss::status s = ss::cuda::inclusive_scan(temp.get(), bytes, static_cast<const T*>(d_in.get()), d_out.get(), n,
                                                  op, st::test_stream(), {strategy});
    ASSERT_TRUE(s.is_ok()) << s.message();
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(st::test_stream()));
    std::vector<T> out(n);
    STREAMSCAN_TEST_CUDA(cudaMemcpy(out.data(), d_out.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
    ASSERT_TRUE(st::compare_exact(out, st::oracle_scan<T>(in, op, st::scan_kind::inclusive, T{})));
  }
}

TEST_F(single_pass_cuda, temp_storage_reused_across_calls) {
  for (const auto strategy : single_pass) {
    check_reused_temp<std::int32_t>(strategy, ss::plus{}, "int32");   // packed status words
    check_reused_temp<st::mat2u>(strategy, st::mat2u_product{}, "mat2u");  // split status words
  }
}

TEST_F(single_pass_cuda, concurrent_streams) {
  constexpr int streams = 6;
  auto rng = st::make_rng("concurrent_streams");
  for (const auto strategy : single_pass) {
    SCOPED_TRACE(std::string("seed ") + std::to_string(st::global_seed()) + " " + ss::to_string(strategy));
    std::vector<cudaStream_t> s(streams);
    std::vector<std::vector<st::mat2u>> in(streams), expected(streams);
    std::vector<std::unique_ptr<st::device_buffer<st::mat2u>>> d_in, d_out;
    std::vector<std::unique_ptr<st::device_buffer<unsigned char>>> temp;
    for (int i = 0; i < streams; ++i) {
      STREAMSCAN_TEST_CUDA(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
      const std::int64_t n = (std::int64_t{1} << 20) + static_cast<std::int64_t>(rng() % 100000);
      in[i] = st::random_vector<st::mat2u>(rng, n);
      expected[i] = st::oracle_scan<st::mat2u>(in[i], st::mat2u_product{}, st::scan_kind::inclusive, {});
      d_in.push_back(std::make_unique<st::device_buffer<st::mat2u>>(n));
      d_out.push_back(std::make_unique<st::device_buffer<st::mat2u>>(n));
      d_in[i]->upload(in[i]);
      std::size_t bytes = 0;
      ASSERT_TRUE(ss::cuda::inclusive_scan(nullptr, bytes, static_cast<const st::mat2u*>(d_in[i]->get()),
                                           d_out[i]->get(), n, st::mat2u_product{}, s[i], {strategy}).is_ok());
      temp.push_back(std::make_unique<st::device_buffer<unsigned char>>(bytes));
    }
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < streams; ++i) {  // all queued before any is waited for
      std::size_t bytes = temp[i]->size();
      const ss::status r = ss::cuda::inclusive_scan(temp[i]->get(), bytes, static_cast<const st::mat2u*>(d_in[i]->get()),
                                                    d_out[i]->get(), static_cast<std::int64_t>(in[i].size()),
                                                    st::mat2u_product{}, s[i], {strategy});
      ASSERT_TRUE(r.is_ok()) << r.message();
    }
    for (int i = 0; i < streams; ++i) {
      STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(s[i]));
      std::vector<st::mat2u> out;
      d_out[i]->download(out);
      EXPECT_TRUE(st::compare_exact(out, expected[i])) << "stream " << i;
      cudaStreamDestroy(s[i]);
    }
  }
}

// Both single-pass scans form every prefix as the same left-to-right fold of
// tile totals (the chain by construction, the look-back by folding in order),
// so float results must be bit-for-bit the same on every run, whatever the
// timing: alone, or sharing the GPU with other work on another stream.
void check_float_determinism(ss::scan_strategy strategy, const char* policy = nullptr) {
  SCOPED_TRACE(std::string("seed ") + std::to_string(st::global_seed()) + " " + ss::to_string(strategy) + " policy " +
               (policy ? policy : "default"));
  auto rng = st::make_rng(std::string("determinism_") + ss::to_string(strategy));
  const std::int64_t n = (std::int64_t{1} << 24) + 12345;
  const auto in = st::random_vector<float>(rng, n);
  st::device_buffer<float> d_in(n), d_out(n), d_noise_in(n), d_noise_out(n);
  d_in.upload(in);
  d_noise_in.upload(in);
  cudaStream_t noise;
  STREAMSCAN_TEST_CUDA(cudaStreamCreateWithFlags(&noise, cudaStreamNonBlocking));
  std::vector<float> first, again;
  for (int run = 0; run < 20; ++run) {
    if (run % 2 == 1) {  // other scans compete for the SMs and change the schedule
      for (int k = 0; k < 3; ++k)
        ss::cuda::inclusive_scan(static_cast<const float*>(d_noise_in.get()), d_noise_out.get(), n, ss::plus{},
                                 noise, {ss::scan_strategy::reduce_then_scan});
    }
    STREAMSCAN_TEST_CUDA(cudaMemsetAsync(d_out.get(), 0xA7, n * sizeof(float), st::test_stream()));
    ss::cuda::inclusive_scan(static_cast<const float*>(d_in.get()), d_out.get(), n, ss::plus{}, st::test_stream(),
                             {strategy, policy});
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    d_out.download(run == 0 ? first : again);
    if (run > 0) {
      ASSERT_EQ(0, std::memcmp(first.data(), again.data(), n * sizeof(float))) << "run " << run << " differs";
    }
  }
  cudaStreamDestroy(noise);
  // And the result is a correct scan.
  const std::vector<double> in_d(in.begin(), in.end());
  const auto exact = st::oracle_scan<double>(in_d, ss::plus{}, st::scan_kind::inclusive, 0.0);
  EXPECT_TRUE(st::compare_float(first, exact, st::float_error_scale(in, exact, 0.0)));
}

TEST_F(single_pass_cuda, float_results_are_deterministic) {
  for (const auto strategy : single_pass) check_float_determinism(strategy);
}

// The chained guarantee holds for every launch configuration it has: each of
// its candidate shapes (2D matrix scan, StreamScan's 3D scans) is bit-for-bit
// repeatable on its own (different shapes group the sums differently).
TEST_F(single_pass_cuda, chained_float_results_are_deterministic_in_every_shape) {
  const auto list = ss::tuning::candidates_for(ss::tuning::algorithm::chained, sizeof(float));
  for (int i = 0; i < list.count; ++i) {
    const std::string name = ss::tuning::candidate_name(ss::tuning::algorithm::chained, sizeof(float), i);
    check_float_determinism(ss::scan_strategy::chained, name.c_str());
  }
}

}  // namespace
