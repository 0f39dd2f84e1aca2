// The single-pass strategies under stress: one temp allocation reused across
// many calls of random size (stale tile statuses would corrupt results),
// concurrent scans on several streams, and the chained scan's run-to-run
// determinism for floating point. And the inputs the vectorised kernels read
// besides raw pointers of the scan's type: raw pointers of a narrower type,
// transform and counting iterators, in plain and segmented scans.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/iterators.hpp>

#include "common/compare.hpp"
#include "common/cuda_helpers.cuh"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/segmented_oracle.hpp"
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

// `two_memsets_n`: a size whose tile counter and status words the default
// shape resets in two memsets (dispatch_scan.cuh: reset_tiles); the first
// calls run it twice and one less, so that each finds the last one's flags.
// The fourth runs the largest size (for 8- and 16-byte values past 4096
// bytes of words, which a zeroing kernel resets on sm_90: reset_tiles_for),
// the fifth two_memsets_n less one again.
template <class T, class Op>
void check_reused_temp(ss::scan_strategy strategy, Op op, const char* name, std::int64_t two_memsets_n = 0) {
  auto rng = st::make_rng(std::string("reuse_") + name + ss::to_string(strategy));
  const std::int64_t max_n = std::min(std::int64_t{1} << 22, st::test_size_cap());
  std::size_t max_bytes = 0;
  ASSERT_TRUE(ss::cuda::inclusive_scan(nullptr, max_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                       max_n, op, st::test_stream(), {strategy}).is_ok());
  st::device_buffer<unsigned char> temp(max_bytes);
  st::device_buffer<T> d_in(max_n), d_out(max_n);
  std::uniform_int_distribution<std::int64_t> size(1, max_n);
  for (int call = 0; call < 40; ++call) {
    std::int64_t n = call % 4 == 0 ? size(rng) : size(rng) % 20000 + 1;  // mostly short: few tiles, reused words
    if (two_memsets_n > 0 && two_memsets_n <= max_n && call < 3) n = two_memsets_n - (call == 2);
    if (call == 3) n = max_n;
    if (two_memsets_n > 0 && two_memsets_n <= max_n && call == 4) n = two_memsets_n - 1;
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
  static_assert(streamscan::cuda::detail::status_layout_for<st::affine3u>() ==
                streamscan::cuda::detail::status_layout::paired);
  for (const auto strategy : single_pass) {
    // Packed status words; 512 tiles of 8192 int32 (t128x16, below 2^22)
    // and 256 of 4096 uint64 (t256x8, below 2^20) are 4096 bytes of words.
    check_reused_temp<std::int32_t>(strategy, ss::plus{}, "int32", (std::int64_t{1} << 22) - 1);
    check_reused_temp<std::uint64_t>(strategy, ss::plus{}, "uint64", (std::int64_t{1} << 20) - 1);
    // Paired status words: 128 tiles of 4096 mat2u are 4096 bytes of words.
    check_reused_temp<st::mat2u>(strategy, st::mat2u_product{}, "mat2u", std::int64_t{1} << 19);
    // 12 bytes: paired status words in the general kernel (no 16-byte vectors).
    check_reused_temp<st::affine3u>(strategy, st::affine3u_compose{}, "affine3u");
  }
}

// The paired status words of 16-byte values, written as a publication would
// leave them and as a reader may catch them between two (A, then P): each
// tile's flag and value as peek reads them.
__global__ void peek_paired(const void* words, int tiles, unsigned* flags, st::mat2u* values) {
  const streamscan::cuda::detail::tile_status<st::mat2u> status(const_cast<void*>(words), tiles);
  const int t = static_cast<int>(threadIdx.x);
  if (t < tiles) flags[t] = status.peek(t, values[t]);
}
__global__ void publish_paired(void* words, int tile, unsigned flag, st::mat2u value) {
  const streamscan::cuda::detail::tile_status<st::mat2u> status(words, tile + 1);
  status.publish(tile, static_cast<streamscan::cuda::detail::tile_flag>(flag), value);
}

// Status words past 4096 bytes (a zeroing kernel resets them on sm_90, and
// the scan kernel overlaps it: dispatch_scan.cuh's reset_tiles_for) in temp
// storage filled with garbage first: no garbage word may read as published.
template <class T>
void check_garbage_temp(std::int64_t n, const char* name) {
  if (n > st::test_size_cap()) return;
  auto rng = st::make_rng(std::string("garbage_temp_") + name);
  const auto strategy = ss::scan_strategy::decoupled_lookback;
  std::size_t bytes = 0;
  ASSERT_TRUE(ss::cuda::inclusive_scan(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n,
                                       ss::plus{}, st::test_stream(), {strategy}).is_ok());
  st::device_buffer<unsigned char> temp(bytes);
  st::device_buffer<T> d_in(n), d_out(n);
  for (const int garbage : {0xff, 0xa5}) {
    SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name + " n=" + std::to_string(n) +
                 " garbage " + std::to_string(garbage));
    const auto in = st::random_vector<T>(rng, n);
    STREAMSCAN_TEST_CUDA(cudaMemcpy(d_in.get(), in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    STREAMSCAN_TEST_CUDA(cudaMemset(temp.get(), garbage, bytes));
    STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), st::poison_byte, n * sizeof(T)));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::size_t b = bytes;
    const ss::status s = ss::cuda::inclusive_scan(temp.get(), b, static_cast<const T*>(d_in.get()), d_out.get(), n,
                                                  ss::plus{}, st::test_stream(), {strategy});
    ASSERT_TRUE(s.is_ok()) << s.message();
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(st::test_stream()));
    std::vector<T> out(n);
    STREAMSCAN_TEST_CUDA(cudaMemcpy(out.data(), d_out.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
    ASSERT_TRUE(st::compare_exact(out, st::oracle_scan<T>(in, ss::plus{}, st::scan_kind::inclusive, T{})));
  }
}

TEST_F(single_pass_cuda, long_resets_clear_garbage_temp_storage) {
  // The one-tile kernel, at both of its default shapes a value size has.
  check_garbage_temp<std::int32_t>((std::int64_t{1} << 23) + 1, "int32");        // t256x16, 513 tiles: 4104 bytes
  check_garbage_temp<std::int32_t>((std::int64_t{1} << 24) + 1, "int32_t128");   // t128x16, 2049 tiles
  check_garbage_temp<std::uint64_t>((std::int64_t{1} << 21) + 1, "uint64");      // t256x16, 257 tiles: 4112 bytes
  check_garbage_temp<std::uint64_t>((std::int64_t{1} << 22) + 1, "uint64_t256x8");  // t256x8, 1025 tiles
  // The pipelined kernel's sizes (sm_90; the one-tile kernel elsewhere).
  check_garbage_temp<std::uint64_t>((std::int64_t{1} << 23) + 3, "uint64_pipelined");
  check_garbage_temp<std::int32_t>((std::int64_t{1} << 25) + 3, "int32_pipelined");
}

TEST_F(single_pass_cuda, paired_status_words_read_a_torn_pair_as_not_ready) {
  namespace sd = streamscan::cuda::detail;
  struct half_word {
    std::uint64_t low, value;  // low: the flag; value: half the mat2u's bytes
  };
  static_assert(sd::status_layout_for<st::mat2u>() == sd::status_layout::paired);
  const st::mat2u a{1, 2, 3, 4}, p{5, 6, 7, 8};
  auto halves = [](const st::mat2u& m, unsigned flag0, unsigned flag1) {
    std::uint64_t bits[2];
    std::memcpy(bits, &m, sizeof(m));
    return std::vector<half_word>{{flag0, bits[0]}, {flag1, bits[1]}};
  };
  // Tile 0: A; 1: P; 2 and 3: a half of each publication, in either order
  // (torn); 4: reset.
  const auto as_a = halves(a, sd::tile_aggregate, sd::tile_aggregate), as_p = halves(p, sd::tile_prefix, sd::tile_prefix);
  std::vector<half_word> words;
  for (const auto& w : {as_a, as_p,
                        std::vector<half_word>{as_a[0], as_p[1]}, std::vector<half_word>{as_p[0], as_a[1]},
                        halves(st::mat2u{}, sd::tile_invalid, sd::tile_invalid)})
    words.insert(words.end(), w.begin(), w.end());
  const int tiles = 5;
  ASSERT_EQ(sd::tile_status<st::mat2u>::bytes(tiles), words.size() * sizeof(half_word));
  st::device_buffer<half_word> d_words(words.size());
  d_words.upload(words);
  st::device_buffer<unsigned> d_flags(tiles);
  st::device_buffer<st::mat2u> d_values(tiles);
  peek_paired<<<1, 32>>>(d_words.get(), tiles, d_flags.get(), d_values.get());
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> flags;
  std::vector<st::mat2u> values;
  d_flags.download(flags);
  d_values.download(values);
  EXPECT_EQ(flags, (std::vector<unsigned>{sd::tile_aggregate, sd::tile_prefix, sd::tile_invalid, sd::tile_invalid,
                                          sd::tile_invalid}));
  EXPECT_EQ(values[0], a);
  EXPECT_EQ(values[1], p);

  // A publication writes both halves with the flag beside each.
  publish_paired<<<1, 1>>>(d_words.get(), 4, sd::tile_prefix, p);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  d_words.download(words);
  EXPECT_EQ(words[8].low, as_p[0].low);
  EXPECT_EQ(words[8].value, as_p[0].value);
  EXPECT_EQ(words[9].low, as_p[1].low);
  EXPECT_EQ(words[9].value, as_p[1].value);
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

// Both single-pass scans form every prefix as one expression of the tile
// totals fixed in advance (the chain by construction, the look-back by its
// windows of 32 tiles), so float results must be bit-for-bit the same on every
// run, whatever the timing: alone, or sharing the GPU with other work on
// another stream.
void check_float_determinism(ss::scan_strategy strategy, const char* policy = nullptr, int runs = 20) {
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
  for (int run = 0; run < runs; ++run) {
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
// its candidate shapes (2D matrix scan, StreamScan's 3D scans, one tile or one
// cluster a link) is bit-for-bit repeatable on its own (different shapes
// group the sums differently). The clustered shapes, whose blocks combine
// their totals through distributed shared memory, over 50 runs.
TEST_F(single_pass_cuda, chained_float_results_are_deterministic_in_every_shape) {
  const auto list = ss::tuning::candidates_for(ss::tuning::algorithm::chained, sizeof(float));
  for (int i = 0; i < list.count; ++i) {
    const std::string name = ss::tuning::candidate_name(ss::tuning::algorithm::chained, sizeof(float), i);
    check_float_determinism(ss::scan_strategy::chained, name.c_str(), list.shapes[i].cluster > 0 ? 50 : 20);
  }
}

// ---- inputs of the vectorised kernels ----

// Input maps whose every value matters: not monotone, negative and positive.
struct flag_weight {
  STREAMSCAN_HOST_DEVICE std::int32_t operator()(unsigned char f) const { return f % 3 == 0 ? -2 : f; }
};
struct square_plus_one {
  STREAMSCAN_HOST_DEVICE std::int64_t operator()(std::int16_t x) const { return std::int64_t{x} * x + 1; }
};
struct index_hash {
  STREAMSCAN_HOST_DEVICE std::uint64_t operator()(std::int64_t i) const {
    return (static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull) >> 40;
  }
};
struct index_affine {  // non-commutative under affine_compose, 4 bytes: 4 per vector
  STREAMSCAN_HOST_DEVICE st::affine<std::uint16_t> operator()(std::int64_t i) const {
    return {static_cast<std::uint16_t>(2 * (i % 7) + 1), static_cast<std::uint16_t>(i * 31 + 5)};
  }
};
struct index_matrix {  // non-commutative, 16 bytes: one per vector
  STREAMSCAN_HOST_DEVICE st::mat2u operator()(std::int64_t i) const {
    const auto u = static_cast<std::uint32_t>(i);
    return {u % 3 + 1, u % 5, u % 2, 1};
  }
};

// What a two-phase call leaves in a poisoned output, and which kernel it
// launched last.
template <class A>
struct scan_result {
  std::vector<A> out;
  std::string kernel;
};
template <class A, class Call>
scan_result<A> run_poisoned(std::int64_t n, Call call) {
  const std::int64_t room = n > 0 ? n : 1;
  st::device_buffer<A> d_out(room);
  STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), st::poison_byte, room * sizeof(A)));
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // before the non-blocking test stream writes it
  std::size_t bytes = 0;
  ss::status s = call(nullptr, bytes, d_out.get());
  EXPECT_TRUE(s.is_ok()) << s.message();
  st::device_buffer<unsigned char> temp(bytes);
  ss::cuda::testing::last_launched_kernel().store(nullptr);
  s = call(temp.get(), bytes, d_out.get());
  EXPECT_TRUE(s.is_ok()) << s.message();
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  scan_result<A> r;
  d_out.download(r.out);
  r.out.resize(static_cast<std::size_t>(n));
  const char* k = ss::cuda::testing::last_launched_kernel().load();
  r.kernel = k ? k : "none";
  return r;
}

// Plain scans of `input` (values `values` on the host) into A, inclusive and
// exclusive, against the oracle; `kernel` is the kernel expected to run.
template <class A, class Input, class Op>
void expect_scans(Input input, const std::vector<A>& values, Op op, A init, const std::string& kernel,
                  const std::string& at) {
  const auto n = static_cast<std::int64_t>(values.size());
  const auto inclusive = run_poisoned<A>(
      n, [&](void* t, std::size_t& b, A* out) { return ss::cuda::inclusive_scan(t, b, input, out, n, op, st::test_stream()); });
  EXPECT_TRUE(st::compare_exact(inclusive.out, st::oracle_scan<A>(values, op, st::scan_kind::inclusive, init)))
      << "inclusive, " << at;
  const auto exclusive = run_poisoned<A>(n, [&](void* t, std::size_t& b, A* out) {
    return ss::cuda::exclusive_scan(t, b, input, out, n, init, op, st::test_stream());
  });
  EXPECT_TRUE(st::compare_exact(exclusive.out, st::oracle_scan<A>(values, op, st::scan_kind::exclusive, init)))
      << "exclusive, " << at;
  if (n > 0) {
    EXPECT_EQ(inclusive.kernel, kernel) << at;
    EXPECT_EQ(exclusive.kernel, kernel) << at;
  }
}

// Segmented scans by head flags, forward and backward, and a backward scan
// with no segments.
template <class A, class Input, class Op>
void expect_segmented_scans(Input input, const std::vector<A>& values, const std::vector<unsigned char>& flags,
                            const unsigned char* d_flags, Op op, bool dedicated, const std::string& at) {
  const auto n = static_cast<std::int64_t>(values.size());
  for (const auto dir : {ss::scan_direction::forward, ss::scan_direction::backward}) {
    ss::segmented_options opt;
    opt.direction = dir;
    const auto r = run_poisoned<A>(n, [&](void* t, std::size_t& b, A* out) {
      return ss::cuda::segmented_inclusive_scan(t, b, input, out, n, ss::head_flags{d_flags}, op, st::test_stream(),
                                                opt);
    });
    const std::string what = std::string(dir == ss::scan_direction::forward ? "forward" : "backward") + ", " + at;
    EXPECT_TRUE(st::compare_exact(r.out, st::oracle_segmented<A>(values, flags, op, st::seg_kind::inclusive, A{}, dir)))
        << "segmented " << what;
    if (n > 0 && dedicated) EXPECT_EQ(r.kernel, "segmented_scan_kernel") << what;
  }
  ss::segmented_options backward;
  backward.direction = ss::scan_direction::backward;
  const auto r = run_poisoned<A>(n, [&](void* t, std::size_t& b, A* out) {
    return ss::cuda::segmented_inclusive_scan(t, b, input, out, n, ss::no_segments{}, op, st::test_stream(), backward);
  });
  const std::vector<unsigned char> none(static_cast<std::size_t>(n), 0);
  EXPECT_TRUE(st::compare_exact(
      r.out, st::oracle_segmented<A>(values, none, op, st::seg_kind::inclusive, A{}, ss::scan_direction::backward)))
      << "backward, no segments, " << at;
  if (n > 0 && dedicated) EXPECT_EQ(r.kernel, "single_pass_vector_scan_kernel<decoupled, backward>") << at;
}

template <class A, class F>
std::vector<A> mapped(std::int64_t n, F f) {
  std::vector<A> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = f(i);
  return v;
}

// The clustered chain (one thread-block cluster a link) at its own edges:
// one tile, a partial last cluster (blocks past the input take part in the
// barriers only), whole clusters, many links; inclusive and exclusive, in
// place, a non-commutative 16-byte operator. Which kernel ran is checked:
// the GPUs this suite runs on have clusters.
template <class A, class Op>
void check_clustered_chain(Op op, const char* test) {
  auto rng = st::make_rng(test);
  namespace tu = ss::tuning;
  const auto list = tu::candidates_for(tu::algorithm::chained, sizeof(A));
  int major = 0;
  STREAMSCAN_TEST_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  for (int i = 0; i < list.count; ++i) {
    const int cluster = list.shapes[i].cluster;
    if (cluster == 0) continue;
    const std::string name = tu::candidate_name(tu::algorithm::chained, sizeof(A), i);
    const std::int64_t t = tu::candidate_tile_items(tu::algorithm::chained, sizeof(A), i);
    std::uniform_int_distribution<std::int64_t> many(3 * cluster * t, 5 * cluster * t);
    for (const std::int64_t n : st::capped({1, t - 1, t + 1, cluster * t - 1, cluster * t, cluster * t + 1,
                                            (2 * cluster + 3) * t + 7, many(rng)})) {
      for (const bool in_place : {false, true}) {
        for (const auto kind : {st::scan_kind::inclusive, st::scan_kind::exclusive}) {
          const std::string at = "seed " + std::to_string(st::global_seed()) + " policy " + name + " n=" +
                                 std::to_string(n) + (in_place ? " in place " : " ") + st::to_string(kind);
          const std::vector<A> in = st::random_vector<A>(rng, n);
          const A init = st::random_init<A>(rng);
          st::device_buffer<A> d_in(n);
          d_in.upload(in);
          const auto r = run_poisoned<A>(n, [&](void* temp, std::size_t& bytes, A* out) {
            const A* src = in_place ? out : d_in.get();
            // On the call's stream: a device-to-device cudaMemcpy does not wait
            // for the copy, and the non-blocking stream would not wait for it.
            if (in_place && temp != nullptr)
              STREAMSCAN_TEST_CUDA(
                  cudaMemcpyAsync(out, d_in.get(), n * sizeof(A), cudaMemcpyDeviceToDevice, st::test_stream()));
            const ss::scan_options opt{ss::scan_strategy::chained, name.c_str()};
            return kind == st::scan_kind::inclusive
                       ? ss::cuda::inclusive_scan(temp, bytes, src, out, n, op, st::test_stream(), opt)
                       : ss::cuda::exclusive_scan(temp, bytes, src, out, n, init, op, st::test_stream(), opt);
          });
          EXPECT_TRUE(st::compare_exact(r.out, st::oracle_scan<A>(in, op, kind, init))) << at;
          EXPECT_EQ(r.kernel, major >= 9 ? "stream_cluster_scan_kernel<chained>" : "stream_scan_kernel<chained>")
              << at;
        }
      }
    }
  }
}

TEST_F(single_pass_cuda, clustered_chain_edges_int32) {
  check_clustered_chain<std::int32_t>(ss::plus{}, "cluster_int32");
}
TEST_F(single_pass_cuda, clustered_chain_edges_mat2u_non_commutative) {
  check_clustered_chain<st::mat2u>(st::mat2u_product{}, "cluster_mat2u");
}

TEST_F(single_pass_cuda, vector_kernels_read_narrow_pointers_and_computed_iterators) {
  auto rng = st::make_rng("vector_inputs");
  const std::string vector_kernel = "single_pass_vector_scan_kernel<decoupled>";
  const std::string general_kernel = "single_pass_scan_kernel<decoupled>";
  const std::int64_t t = ss::cuda::scan_tile_items<std::int32_t>(ss::scan_strategy::decoupled_lookback);
  std::uniform_int_distribution<std::int64_t> large(std::int64_t{1} << 20, std::int64_t{1} << 23);
  // The last size is past where raw int32 pointers take the pipelined kernel:
  // other inputs take the one-tile kernel there.
  for (const std::int64_t n : st::capped({0, 1, t - 1, t, t + 1, 7 * t + 3, large(rng), (std::int64_t{1} << 26) + 5})) {
    const std::string at = "seed " + std::to_string(st::global_seed()) + " n=" + std::to_string(n);
    const auto bytes = st::random_vector<unsigned char>(rng, n + 1);
    std::vector<std::int16_t> shorts(static_cast<std::size_t>(n));
    for (auto& x : shorts) x = static_cast<std::int16_t>(rng());
    std::vector<std::int64_t> longs(static_cast<std::size_t>(n));
    for (auto& x : longs) x = static_cast<std::int64_t>(rng() % 2001) - 1000;
    st::device_buffer<unsigned char> d_bytes(n + 1);
    st::device_buffer<std::int16_t> d_shorts(n > 0 ? n : 1);
    st::device_buffer<std::int64_t> d_longs(n > 0 ? n : 1);
    d_bytes.upload(bytes);
    d_shorts.upload(shorts);
    d_longs.upload(longs);
    const std::vector<unsigned char> tail(bytes.begin() + 1, bytes.end());  // the values from d_bytes + 1

    // Raw pointers narrower than the accumulator: 4 and 2 bytes a vector.
    const auto* b = static_cast<const unsigned char*>(d_bytes.get());
    expect_scans<std::int32_t>(b, mapped<std::int32_t>(n, [&](std::int64_t i) { return bytes[i]; }), ss::plus{}, 9,
                               vector_kernel, "uint8 -> int32, " + at);
    expect_scans<std::uint64_t>(b, mapped<std::uint64_t>(n, [&](std::int64_t i) { return bytes[i]; }), ss::plus{},
                                9, vector_kernel, "uint8 -> uint64, " + at);
    // Wider than the accumulator: two 16-byte loads a vector of 4 int32.
    expect_scans<std::int32_t>(static_cast<const std::int64_t*>(d_longs.get()),
                               mapped<std::int32_t>(n, [&](std::int64_t i) { return static_cast<std::int32_t>(longs[i]); }),
                               ss::plus{}, 9, vector_kernel, "int64 -> int32, " + at);
    // Misaligned for a vector: the general kernel, the same results.
    expect_scans<std::int32_t>(b + 1, mapped<std::int32_t>(n, [&](std::int64_t i) { return tail[i]; }), ss::plus{},
                               9, general_kernel, "uint8 + 1 -> int32, " + at);
    // Transforms of raw pointers.
    const auto weights = ss::make_transform_iterator(b, flag_weight{});
    const auto weight_values = mapped<std::int32_t>(n, [&](std::int64_t i) { return flag_weight{}(bytes[i]); });
    expect_scans<std::int32_t>(weights, weight_values, ss::plus{}, -4, vector_kernel, "transform uint8, " + at);
    const auto squares =
        ss::make_transform_iterator(static_cast<const std::int16_t*>(d_shorts.get()), square_plus_one{});
    expect_scans<std::int64_t>(squares, mapped<std::int64_t>(n, [&](std::int64_t i) { return square_plus_one{}(shorts[i]); }),
                               ss::maximum{}, std::int64_t{-1}, vector_kernel, "transform int16 -> int64, " + at);
    // Computed: counting, and transforms of counting; non-commutative structs.
    expect_scans<std::int32_t>(ss::counting_iterator<std::int32_t>(-5),
                               mapped<std::int32_t>(n, [](std::int64_t i) { return static_cast<std::int32_t>(i - 5); }),
                               ss::plus{}, 3, vector_kernel, "counting, " + at);
    const ss::counting_iterator<std::int64_t> index(0);
    expect_scans<std::uint64_t>(ss::make_transform_iterator(index, index_hash{}), mapped<std::uint64_t>(n, index_hash{}),
                                ss::plus{}, 1, vector_kernel, "transform counting -> uint64, " + at);
    expect_scans<st::affine<std::uint16_t>>(ss::make_transform_iterator(index, index_affine{}),
                                            mapped<st::affine<std::uint16_t>>(n, index_affine{}), st::affine_compose{},
                                            st::affine<std::uint16_t>{1, 0}, vector_kernel, "affine, " + at);
    expect_scans<st::mat2u>(ss::make_transform_iterator(index, index_matrix{}), mapped<st::mat2u>(n, index_matrix{}),
                            st::mat2u_product{}, st::mat2u{1, 0, 0, 1}, vector_kernel, "mat2u, " + at);

    // Segmented scans read them in the dedicated kernel.
    if (n > (std::int64_t{1} << 24)) continue;  // the host oracle's time
    const st::segments_fixture segs = st::make_segments(rng, n, 40);
    st::device_buffer<unsigned char> d_flags(n > 0 ? n : 1);
    d_flags.upload(segs.flags);
    expect_segmented_scans<std::int32_t>(weights, weight_values, segs.flags, d_flags.get(), ss::plus{}, true,
                                         "transform uint8, " + at);
    expect_segmented_scans<st::affine<std::uint16_t>>(ss::make_transform_iterator(index, index_affine{}),
                                                      mapped<st::affine<std::uint16_t>>(n, index_affine{}), segs.flags,
                                                      d_flags.get(), st::affine_compose{}, true, "affine, " + at);
    expect_segmented_scans<std::int32_t>(b + 1, mapped<std::int32_t>(n, [&](std::int64_t i) { return tail[i]; }),
                                         segs.flags, d_flags.get(), ss::plus{}, false, "uint8 + 1, " + at);
  }
}

}  // namespace
