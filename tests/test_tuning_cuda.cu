// Every compiled-in candidate policy computes the same scan (the tuner may
// pick any of them), options.policy is validated, and the dispatch follows
// the tuning file for this GPU and ignores a stale one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/tuning.hpp>

#include "common/compare.hpp"
#include "common/cuda_helpers.cuh"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace {
using namespace streamscan_test;

struct is_odd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
namespace st = streamscan::tuning;
using streamscan::scan_strategy;

#define SKIP_WITHOUT_GPU() \
  if (!gpu_present()) GTEST_SKIP() << "no CUDA device"

const scan_strategy tunable[] = {scan_strategy::decoupled_lookback, scan_strategy::chained,
                                 scan_strategy::reduce_then_scan, scan_strategy::scan_then_add};

template <class A>
std::int64_t candidate_tile(scan_strategy s, int i) {
  return st::candidate_tile_items(st::algorithm_of(s), sizeof(A), i);
}

// The tile sizes the tests and `verify` aim at are the ones the kernels use.
template <class A>
void expect_default_tiles_agree() {
  for (const scan_strategy s : tunable)
    EXPECT_EQ(candidate_tile<A>(s, st::default_for(st::algorithm_of(s), sizeof(A), 0, 0)),
              streamscan::cuda::scan_tile_items<A>(s))
        << to_string(s) << " " << sizeof(A) << "-byte";
}
TEST(TuningCandidates, TileSizesAgreeWithThePolicies) {
  expect_default_tiles_agree<char>();
  expect_default_tiles_agree<short>();
  expect_default_tiles_agree<int>();
  expect_default_tiles_agree<double>();
  expect_default_tiles_agree<vec4i>();
  struct twelve {
    int a, b, c;
  };
  expect_default_tiles_agree<twelve>();
  struct thirty_two {
    double a[4];
  };
  expect_default_tiles_agree<thirty_two>();
}

// One scan of `in` (in place: the output buffer holds the input) with `opt`,
// compared with the oracle; `what` names the case in a failure.
template <class A, class Op>
void scan_and_compare(const std::vector<A>& in, Op op, scan_kind kind, const A& init,
                      const streamscan::scan_options& opt, bool in_place, const std::string& what) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  std::vector<A> out(in.size());
  poison(out);
  device_buffer<A> d_in(in.size()), d_out(out.size());
  d_in.upload(in);
  d_out.upload(in_place ? in : out);
  const A* src = in_place ? d_out.get() : d_in.get();
  std::size_t bytes = 0;
  auto call = [&](void* temp) {
    return kind == scan_kind::inclusive
               ? streamscan::cuda::inclusive_scan(temp, bytes, src, d_out.get(), n, op, test_stream(), opt)
               : streamscan::cuda::exclusive_scan(temp, bytes, src, d_out.get(), n, init, op, test_stream(), opt);
  };
  ASSERT_TRUE(call(nullptr).is_ok());
  device_buffer<unsigned char> temp(bytes);
  const streamscan::status st = call(temp.get());
  ASSERT_TRUE(st.is_ok()) << st.message();
  STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
  d_out.download(out);
  EXPECT_TRUE(compare_exact(out, oracle_scan<A>(in, op, kind, init)))
      << what << " " << to_string(kind) << (in_place ? " in place" : "") << " n=" << n << " seed=" << global_seed();
}

template <class A, class Op>
void check_every_candidate(Op op, const char* test) {
  auto rng = make_rng(test);
  for (const scan_strategy s : tunable) {
    const st::candidate_list list = st::candidates_for(st::algorithm_of(s), sizeof(A));
    ASSERT_GT(list.count, 0) << to_string(s);
    for (int i = 0; i < list.count; ++i) {
      const std::string name = st::candidate_name(st::algorithm_of(s), sizeof(A), i);
      const std::int64_t tile = candidate_tile<A>(s, i);
      const std::int64_t many = std::uniform_int_distribution<std::int64_t>(40 * tile, 60 * tile)(rng);
      for (const std::int64_t n : {std::int64_t{1}, tile - 1, tile + 1, 5 * tile, many}) {
        for (const scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
          const std::vector<A> in = random_vector<A>(rng, n);
          const A init = random_init<A>(rng);
          scan_and_compare(in, op, kind, init, streamscan::scan_options{s, name.c_str()}, false,
                           std::string(to_string(s)) + " policy " + name);
        }
      }
    }
  }
}

TEST(TuningCandidates, Int32Sum) {
  SKIP_WITHOUT_GPU();
  check_every_candidate<std::int32_t>(streamscan::plus{}, "cand_int32");
}
TEST(TuningCandidates, Uint64Sum) {
  SKIP_WITHOUT_GPU();
  check_every_candidate<std::uint64_t>(streamscan::plus{}, "cand_uint64");
}
TEST(TuningCandidates, Mat2uProductNonCommutative) {
  SKIP_WITHOUT_GPU();
  check_every_candidate<mat2u>(mat2u_product{}, "cand_mat2u");
}

// The pipelined shape (bulk copies into shared memory, specialised warps) at
// its own edges, in place as well: a partial tile shorter than one 16-byte
// vector, partial tiles with and without a vector tail, many tiles.
template <class A, class Op>
void check_pipelined_edges(Op op, const char* test) {
  auto rng = make_rng(test);
  const scan_strategy s = scan_strategy::decoupled_lookback;
  const int index = st::pipelined_decoupled_shape;
  const std::string name = st::candidate_name(st::algorithm_of(s), sizeof(A), index);
  ASSERT_EQ(name[0], 'p');
  const std::int64_t tile = candidate_tile<A>(s, index);
  for (const std::int64_t n : capped({1, 3, tile - 1, tile, tile + 5, 7 * tile + 3, 300 * tile})) {
    for (const bool in_place : {false, true}) {
      for (const scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        const std::vector<A> in = random_vector<A>(rng, n);
        const A init = random_init<A>(rng);
        scan_and_compare(in, op, kind, init, streamscan::scan_options{s, name.c_str()}, in_place, "policy " + name);
      }
    }
  }
}

TEST(PipelinedScan, Int32EdgesAndInPlace) {
  SKIP_WITHOUT_GPU();
  check_pipelined_edges<std::int32_t>(streamscan::plus{}, "pipe_int32");
}
TEST(PipelinedScan, Mat2uProductEdgesAndInPlace) {
  SKIP_WITHOUT_GPU();
  check_pipelined_edges<mat2u>(mat2u_product{}, "pipe_mat2u");
}

// int32 from 2^25 values (uint64 from 2^23) takes the pipelined shape by
// default on sm_90+, and describe_scan says so; below, the one-tile kernel.
TEST(PipelinedScan, DefaultFromItsThreshold) {
  SKIP_WITHOUT_GPU();
  int major = 0;
  STREAMSCAN_TEST_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  const std::int64_t from = st::pipelined_default_from(sizeof(std::int32_t));
  ASSERT_EQ(from, std::int64_t{1} << 25);
  streamscan::cuda::scan_plan plan;
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::int32_t>(from - 1, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t128x16");
  // The middle range runs the wider one-tile shape (default_vector_shape_for).
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::int32_t>(std::int64_t{1} << 22, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t256x16");
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::int32_t>((std::int64_t{1} << 22) - 1, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t128x16");
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::uint64_t>(std::int64_t{1} << 21, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t256x16");
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::int32_t>(from, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, major >= 9 ? std::string("p256x8s6") : std::string("t128x16"));
  const std::int64_t wide_from = st::pipelined_default_from(sizeof(std::uint64_t));
  ASSERT_EQ(wide_from, std::int64_t{1} << 23);
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::uint64_t>(wide_from - 1, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t256x8");
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::uint64_t>(wide_from, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, major >= 9 ? std::string("p256x8s6") : std::string("t256x8"));
}

// automatic runs the pipelined look-back for 16-byte values from its
// threshold on sm_90+ (raw aligned pointers), unless the caller names another
// policy; the scan is right and takes the pipelined kernel; an iterator input
// runs the one-tile kernel.
struct same_mat {
  STREAMSCAN_HOST_DEVICE mat2u operator()(const mat2u& m) const { return m; }
};

TEST(AutomaticStrategy, SixteenByteValuesTakeThePipelineFromItsThreshold) {
  SKIP_WITHOUT_GPU();
  int major = 0;
  STREAMSCAN_TEST_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  const std::int64_t from = st::pipelined_default_from(sizeof(mat2u));
  ASSERT_EQ(from, std::int64_t{1} << 25);
  streamscan::cuda::scan_plan plan;
  ASSERT_TRUE(streamscan::cuda::describe_scan<mat2u>(from - 1, {}, plan, mat2u_product{}).is_ok());
  EXPECT_EQ(plan.strategy, scan_strategy::decoupled_lookback);
  EXPECT_EQ(plan.policy, "t256x16");
  ASSERT_TRUE(streamscan::cuda::describe_scan<mat2u>(from, {}, plan, mat2u_product{}).is_ok());
  EXPECT_EQ(plan.strategy, scan_strategy::decoupled_lookback);
  EXPECT_EQ(plan.policy, major >= 9 ? std::string("p256x8s6") : std::string("t256x16"));
  ASSERT_TRUE(
      streamscan::cuda::describe_scan<mat2u>(from, {scan_strategy::automatic, "t256x16"}, plan, mat2u_product{}).is_ok());
  EXPECT_EQ(plan.strategy, scan_strategy::decoupled_lookback);
  EXPECT_EQ(plan.policy, "t256x16");
  EXPECT_EQ(plan.source, "options.policy");

  auto rng = make_rng("automatic_16");
  const std::int64_t n = from + 4099;
  const std::vector<mat2u> in = random_vector<mat2u>(rng, n + 1);
  const auto expect = oracle_scan<mat2u>(std::vector<mat2u>(in.begin(), in.begin() + n), mat2u_product{},
                                         scan_kind::inclusive, mat2u{});
  device_buffer<mat2u> d_in(n + 1), d_out(n + 1);
  d_in.upload(in);
  const mat2u* src = d_in.get();
  const auto run = [&](auto input, const std::string& kernel, const char* what) {
    STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), poison_byte, (n + 1) * sizeof(mat2u)));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    streamscan::cuda::testing::last_launched_kernel().store(nullptr);
    streamscan::cuda::inclusive_scan(input, d_out.get(), n, mat2u_product{}, test_stream());
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    std::vector<mat2u> out;
    d_out.download(out);
    out.resize(static_cast<std::size_t>(n));
    EXPECT_TRUE(compare_exact(out, expect)) << what << " seed " << global_seed();
    const char* ran = streamscan::cuda::testing::last_launched_kernel().load();
    EXPECT_EQ(std::string(ran ? ran : "none"), kernel) << what;
  };
  run(src, major >= 9 ? "pipelined_scan_kernel" : "single_pass_vector_scan_kernel<decoupled>", "raw pointer");
  run(streamscan::transform_iterator<const mat2u*, same_mat>(src, same_mat{}),
      "single_pass_vector_scan_kernel<decoupled>", "iterator");
}

TEST(TuningPolicyOption, UnknownNamesAreRejectedAndNothingIsWritten) {
  SKIP_WITHOUT_GPU();
  const std::int64_t n = 1000;
  device_buffer<int> d_in(n), d_out(n);
  std::vector<int> poisoned(n);
  poison(poisoned);
  d_out.upload(poisoned);
  for (const char* bad : {"t999x1", "p8-not", ""}) {
    std::size_t bytes = 0;
    const streamscan::status st = streamscan::cuda::inclusive_scan(
        nullptr, bytes, static_cast<const int*>(d_in.get()), d_out.get(), n, streamscan::plus{}, nullptr,
        {scan_strategy::decoupled_lookback, bad});
    EXPECT_EQ(st.code(), streamscan::errc::invalid_argument) << bad;
    EXPECT_NE(st.message().find("argument 'options.policy'"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("t128x16"), std::string::npos) << "lists the candidates: " << st.message();
  }
  // A policy of another strategy is not one of this strategy's.
  std::size_t bytes = 0;
  EXPECT_FALSE(streamscan::cuda::inclusive_scan(nullptr, bytes, static_cast<const int*>(d_in.get()), d_out.get(), n,
                                                streamscan::plus{}, nullptr, {scan_strategy::chained, "p8"})
                   .is_ok());
  // Value sizes without candidates accept only "default".
  device_buffer<char> c_in(n), c_out(n);
  EXPECT_FALSE(streamscan::cuda::inclusive_scan(nullptr, bytes, static_cast<const char*>(c_in.get()), c_out.get(), n,
                                                streamscan::plus{}, nullptr,
                                                {scan_strategy::decoupled_lookback, "t128x16"})
                   .is_ok());
  EXPECT_TRUE(streamscan::cuda::inclusive_scan(nullptr, bytes, static_cast<const char*>(c_in.get()), c_out.get(), n,
                                               streamscan::plus{}, nullptr,
                                               {scan_strategy::decoupled_lookback, "default"})
                  .is_ok());
  std::vector<int> after;
  d_out.download(after);
  EXPECT_TRUE(compare_exact(after, poisoned));
}

// Points STREAMSCAN_TUNING_FILE at `path` and reloads; restores both after.
class tuning_file_scope {
 public:
  explicit tuning_file_scope(const std::string& path) {
    if (const char* old = std::getenv("STREAMSCAN_TUNING_FILE")) old_ = old, had_ = true;
    setenv("STREAMSCAN_TUNING_FILE", path.c_str(), 1);
    streamscan::tuning::reload();
  }
  ~tuning_file_scope() {
    if (had_) setenv("STREAMSCAN_TUNING_FILE", old_.c_str(), 1);
    else unsetenv("STREAMSCAN_TUNING_FILE");
    streamscan::tuning::reload();
  }

 private:
  std::string old_;
  bool had_ = false;
};

std::string this_gpu(int& cc) {
  int device = 0;
  STREAMSCAN_TEST_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  STREAMSCAN_TEST_CUDA(cudaGetDeviceProperties(&prop, device));
  cc = prop.major * 10 + prop.minor;
  return prop.name;
}

TEST(TuningFileOnGpu, DispatchFollowsTheFileForThisGpuOnly) {
  SKIP_WITHOUT_GPU();
  int cc = 0;
  const std::string gpu = this_gpu(cc);
  st::table t;
  const auto big = std::numeric_limits<std::int64_t>::max();
  using alg = st::algorithm;
  t.entries.push_back({gpu, cc, alg::decoupled_lookback, 4, "builtin", 0, 1 << 20, "t256x8", 1, 1});
  t.entries.push_back({gpu, cc, alg::decoupled_lookback, 4, "builtin", 1 << 20, big, "t128x8", 1, 1});
  t.entries.push_back({gpu, cc, alg::reduce_then_scan, 8, "builtin", 0, big, "p32", 1, 1});
  t.entries.push_back({gpu + " (another)", cc, alg::chained, 4, "builtin", 0, big, "t128-kogge_stone", 1, 1});
  // The segmented scan and compaction read the same file.
  t.entries.push_back({gpu, cc, alg::segmented_scan, 4, "builtin", 0, big, "s256x8", 1, 1});
  t.entries.push_back({gpu, cc, alg::select_if, 4, "any", 0, big, "t128x16", 1, 1});
  const std::string path = ::testing::TempDir() + "/streamscan_tuning_gpu_test.txt";
  {
    std::ofstream f(path);
    st::write(f, t);
  }
  tuning_file_scope scope(path);
  ASSERT_EQ(st::active()->state, st::load_result::loaded) << st::load_report();

  streamscan::cuda::scan_plan plan;
  ASSERT_TRUE(streamscan::cuda::describe_scan<int>(1000, {}, plan).is_ok());
  EXPECT_EQ(plan.strategy, scan_strategy::decoupled_lookback);  // automatic resolved
  EXPECT_EQ(plan.policy, "t256x8");
  EXPECT_EQ(plan.source, "tuning file");
  ASSERT_TRUE(streamscan::cuda::describe_scan<float>(1 << 22, {}, plan).is_ok());  // float shares int32's key
  EXPECT_EQ(plan.policy, "t128x8");
  ASSERT_TRUE(streamscan::cuda::describe_scan<std::uint64_t>(5, {scan_strategy::reduce_then_scan}, plan).is_ok());
  EXPECT_EQ(plan.policy, "p32");
  // No entry: the default. Another GPU's entry does not apply here.
  ASSERT_TRUE(streamscan::cuda::describe_scan<int>(1000, {scan_strategy::chained}, plan).is_ok());
  // chained's default: StreamScan's 3D shape, one cluster a link from sm_90.
  EXPECT_EQ(plan.policy, cc >= 90 ? "c512r8s8k8" : "c512r8s8");
  EXPECT_EQ(plan.source, "default");
  // A user operator is another class.
  ASSERT_TRUE(streamscan::cuda::describe_scan<int>(1000, {}, plan, take_right{}).is_ok());
  EXPECT_EQ(plan.policy, "t128x16");
  // The caller's choice wins over the file.
  ASSERT_TRUE(streamscan::cuda::describe_scan<int>(1000, {scan_strategy::automatic, "default"}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t128x16");
  ASSERT_TRUE(streamscan::cuda::describe_scan<int>(1000, {scan_strategy::automatic, "t256x16"}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t256x16");
  EXPECT_EQ(plan.source, "options.policy");

  // And a scan under the file is right (the tuned candidate runs, sized from the same query).
  auto rng = make_rng("tuned_file_scan");
  for (const std::int64_t n : {std::int64_t{777}, std::int64_t{3} << 20}) {
    const std::vector<int> in = random_vector<int>(rng, n);
    device_buffer<int> d(in.size());
    d.upload(in);
    streamscan::cuda::inclusive_scan(d.get(), d.get(), n, streamscan::plus{}, test_stream());
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    std::vector<int> out;
    d.download(out);
    EXPECT_TRUE(compare_exact(out, oracle_scan<int>(in, streamscan::plus{}, scan_kind::inclusive, 0))) << n;
  }
  // Segmented scans and compaction under their entries are right too.
  for (const std::int64_t n : {std::int64_t{777}, std::int64_t{3} << 20}) {
    const std::vector<int> in = random_vector<int>(rng, n);
    std::vector<std::uint32_t> words(static_cast<std::size_t>((n + 31) / 32));
    for (auto& w : words) w = static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());
    device_buffer<int> d(in.size()), d_out(in.size());
    device_buffer<std::uint32_t> d_words(words.size());
    d.upload(in);
    d_words.upload(words);
    streamscan::cuda::segmented_inclusive_scan(static_cast<const int*>(d.get()), d_out.get(), n,
                                               streamscan::head_bits(d_words.get()), streamscan::plus{},
                                               test_stream());
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    std::vector<int> out;
    d_out.download(out);
    std::vector<int> expect(in.size());
    for (std::int64_t i = 0; i < n; ++i)
      expect[i] = (i == 0 || ((words[i / 32] >> (i % 32)) & 1u)) ? in[i] : expect[i - 1] + in[i];
    EXPECT_TRUE(compare_exact(out, expect)) << "segmented n=" << n;
    const std::int64_t k = streamscan::cuda::select_if(static_cast<const int*>(d.get()), d_out.get(), n, n,
                                                       is_odd{}, test_stream());
    std::vector<int> kept;
    for (const int x : in)
      if (is_odd{}(x)) kept.push_back(x);
    ASSERT_EQ(k, static_cast<std::int64_t>(kept.size())) << n;
    d_out.download(out);
    out.resize(kept.size());
    EXPECT_TRUE(compare_exact(out, kept)) << "select_if n=" << n;
  }
}

TEST(TuningFileOnGpu, StaleFileIsIgnored) {
  SKIP_WITHOUT_GPU();
  int cc = 0;
  const std::string gpu = this_gpu(cc);
  const std::string path = ::testing::TempDir() + "/streamscan_tuning_gpu_stale.txt";
  {
    std::ofstream f(path);
    f << "streamscan-tuning 2\nlibrary 0.0.0\nentry gpu=\"" << gpu << "\" cc=" << cc
      << " algorithm=decoupled_lookback value_bytes=4 op=builtin min_n=0 max_n=999999999 policy=t256x8 "
         "default_ms=1 tuned_ms=1\n";
  }
  tuning_file_scope scope(path);
  EXPECT_EQ(streamscan::tuning::active()->state, streamscan::tuning::load_result::ignored);
  EXPECT_NE(streamscan::tuning::load_report().find("stale"), std::string::npos);
  streamscan::cuda::scan_plan plan;
  ASSERT_TRUE(streamscan::cuda::describe_scan<int>(1000, {}, plan).is_ok());
  EXPECT_EQ(plan.policy, "t128x16");
  EXPECT_EQ(plan.source, "default");
}

}  // namespace
