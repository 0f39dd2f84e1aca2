// Segmented and backward scans, enumerate and distribute on the GPU.
#include "cuda_backend.cuh"

STREAMSCAN_SEGMENTED_TESTS(segmented_cuda, streamscan_test::cuda_backend)

namespace {

using streamscan_test::seg_kind;
using streamscan_test::seg_plan;
using streamscan_test::check_segmented_plan;

// The dedicated kernel in every shape, at its tile edges (forward tiles end
// there; backward scans put the partial tile first), 1-, 4-, 8- and 16-byte
// values, non-commutative operators.
template <class A, class Op>
void every_shape(const char* test, seg_kind kind, Op op) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng(test);
  for (int shape = 0; shape < streamscan::tuning::segmented_shape_count; ++shape) {
    const std::int64_t t = streamscan::tuning::segmented_tile_items(shape, sizeof(A));
    const std::string name = streamscan::tuning::name(streamscan::tuning::segmented_shapes[shape]);
    check_segmented_plan<streamscan_test::cuda_backend, A>(
        rng, kind, op,
        seg_plan{{t - 1, t, t + 1, 2 * t, 5 * t + 3}, {streamscan::scan_strategy::decoupled_lookback}, name.c_str()});
  }
}

TEST(segmented_cuda_dedicated, EveryShapeInt32Inclusive) {
  every_shape<std::int32_t>("sdi", seg_kind::inclusive, streamscan::plus{});
}
TEST(segmented_cuda_dedicated, EveryShapeInt64Exclusive) {
  every_shape<std::int64_t>("sde", seg_kind::exclusive, streamscan::plus{});
}
TEST(segmented_cuda_dedicated, EveryShapeMat2uInclusiveInit) {
  every_shape<streamscan_test::mat2u>("sdm", seg_kind::inclusive_init, streamscan_test::mat2u_product{});
}
// Non-commutative operators on 4- and 8-byte values: the sizes the pipelined
// shapes pack (value, head) into one status word for.
TEST(segmented_cuda_dedicated, EveryShapeAffine16Inclusive) {
  every_shape<streamscan_test::affine<std::uint16_t>>("sda", seg_kind::inclusive, streamscan_test::affine_compose{});
}
TEST(segmented_cuda_dedicated, EveryShapeAffine32Exclusive) {
  every_shape<streamscan_test::affine<std::uint32_t>>("sdx", seg_kind::exclusive, streamscan_test::affine_compose{});
}
TEST(segmented_cuda_dedicated, EveryShapeBytesMax) {
  every_shape<std::uint8_t>("sdb", seg_kind::inclusive, streamscan::maximum{});
}

// The built-in default from 2^26 4-byte values: the pipelined kernel on
// sm_90+ (the shape tests above name it; this one goes through the default
// choice), every description and direction, in place at the odd size.
TEST(segmented_cuda_dedicated, DefaultPipelinedFromTwoToThe26) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("sdp");
  const std::int64_t from = streamscan::tuning::pipelined_segmented_from;
  check_segmented_plan<streamscan_test::cuda_backend, std::int32_t>(
      rng, seg_kind::exclusive, streamscan::plus{}, seg_plan{{from + 8195}, {streamscan::scan_strategy::automatic}});
}

// No segments: the plain scan's vectorised kernel, forward and backward
// (backward leads with filler slots and reads its first tile as a partial
// one, whose total later tiles need), at the edges of its default tile.
template <class A, class Op>
void plain_tile_edges(const char* test, seg_kind kind, Op op) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng(test);
  const std::int64_t v = streamscan::cuda::scan_tile_items<A>(streamscan::scan_strategy::decoupled_lookback);
  check_segmented_plan<streamscan_test::cuda_backend, A>(
      rng, kind, op, seg_plan{{v - 1, v, v + 1, 2 * v - 1, 3 * v + 5}, {streamscan::scan_strategy::automatic}});
}

TEST(segmented_cuda_dedicated, NoSegmentsInt32Inclusive) {
  plain_tile_edges<std::int32_t>("spi", seg_kind::inclusive, streamscan::plus{});
}
TEST(segmented_cuda_dedicated, NoSegmentsInt64Exclusive) {
  plain_tile_edges<std::int64_t>("spe", seg_kind::exclusive, streamscan::plus{});
}
TEST(segmented_cuda_dedicated, NoSegmentsMat2uInclusiveInit) {
  plain_tile_edges<streamscan_test::mat2u>("spm", seg_kind::inclusive_init, streamscan_test::mat2u_product{});
}
TEST(segmented_cuda_dedicated, NoSegmentsBytesMax) {
  plain_tile_edges<std::uint8_t>("spb", seg_kind::inclusive, streamscan::maximum{});
}

// Pointers off the 16-byte grid take the general pair kernels (decoupled
// look-back through iterators); nothing is written before 'out'.
TEST(segmented_cuda_dedicated, MisalignedPointersTakeTheGeneralPath) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("sdu");
  const std::int64_t t = streamscan::tuning::segmented_tile_items(0, 4);
  seg_plan plan{{1, 33, t + 1, 3 * t + 5}, {streamscan::scan_strategy::decoupled_lookback}};
  plan.offset = 1;
  check_segmented_plan<streamscan_test::cuda_backend, std::int32_t>(rng, seg_kind::exclusive, streamscan::plus{}, plan);
}

TEST(segmented_cuda_dedicated, UnknownPolicyIsNamed) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  std::size_t bytes = 0;
  const std::int32_t* in = nullptr;
  std::int32_t* out = nullptr;
  const streamscan::segmented_options opt{streamscan::scan_direction::forward, {streamscan::scan_strategy::automatic, "t999x1"}};
  const streamscan::status s = streamscan::cuda::segmented_inclusive_scan(nullptr, bytes, in, out, 0,
                                                                          streamscan::head_bits{}, streamscan::plus{},
                                                                          nullptr, opt);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("options.scan.policy"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("s256x8"), std::string::npos) << s.message();
}

// One temp allocation reused call after call: each reset must clear the
// status words the last call left (only the running shape's are reset), at
// sizes from many tiles down to a few, forward and backward, head bits.
TEST(segmented_cuda_dedicated, TempStorageReusedAcrossCalls) {
  namespace ss = streamscan;
  namespace st = streamscan_test;
  if (!st::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  auto rng = st::make_rng("sdr");
  const std::int64_t max_n = std::int64_t{1} << 22;
  st::device_buffer<std::int32_t> d_in(max_n), d_out(max_n);
  st::device_buffer<std::uint32_t> d_bits((max_n + 31) / 32);
  std::size_t max_bytes = 0;
  const ss::segmented_options sizing{ss::scan_direction::forward, {ss::scan_strategy::decoupled_lookback}};
  const ss::status sized = ss::cuda::segmented_inclusive_scan(
      nullptr, max_bytes, static_cast<const std::int32_t*>(d_in.get()), d_out.get(), max_n,
      ss::head_bits(static_cast<const std::uint32_t*>(d_bits.get())), ss::plus{}, nullptr, sizing);
  ASSERT_TRUE(sized.is_ok()) << sized.message();
  st::device_buffer<unsigned char> temp(max_bytes);
  std::uniform_int_distribution<std::int64_t> size(1, max_n);
  for (int call = 0; call < 16; ++call) {
    const std::int64_t n = call < 2 ? max_n - call : call % 3 == 0 ? size(rng) : size(rng) % 40000 + 1;
    const auto dir = call % 2 ? ss::scan_direction::backward : ss::scan_direction::forward;
    SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " call " + std::to_string(call) + " n=" +
                 std::to_string(n));
    const st::segments_fixture segs = st::make_segments(rng, n, call % 4 == 0 ? 1e12 : 300);
    const auto in = st::random_vector<std::int32_t>(rng, n);
    STREAMSCAN_TEST_CUDA(cudaMemcpy(d_in.get(), in.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    STREAMSCAN_TEST_CUDA(cudaMemcpy(d_bits.get(), segs.bits.data(), segs.bits.size() * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice));
    std::size_t bytes = max_bytes;  // more than this n needs: allowed
    const ss::segmented_options opt{dir, {ss::scan_strategy::decoupled_lookback}};
    const ss::status s = ss::cuda::segmented_inclusive_scan(
        temp.get(), bytes, static_cast<const std::int32_t*>(d_in.get()), d_out.get(), n,
        ss::head_bits(static_cast<const std::uint32_t*>(d_bits.get())), ss::plus{}, nullptr, opt);
    ASSERT_TRUE(s.is_ok()) << s.message();
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<std::int32_t> out(static_cast<std::size_t>(n));
    STREAMSCAN_TEST_CUDA(cudaMemcpy(out.data(), d_out.get(), n * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    ASSERT_TRUE(st::compare_exact(out, st::oracle_segmented<std::int32_t>(in, segs.flags, ss::plus{},
                                                                         seg_kind::inclusive, 0, dir)));
  }
}

// The offsets-to-bits kernel alone, at every tile size it can be given,
// against a host oracle (the bit of every non-empty segment's start): runs of
// thousands of empty segments (at 0, inside, at n), single elements, segments
// longer than a tile, n not a multiple of 32; int32 and int64 offsets; every
// word poisoned first (none may be left unwritten).
template <class Offset>
void marking_matches_oracle(const char* test) {
  namespace st = streamscan_test;
  if (!st::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  auto rng = st::make_rng(test);
  const std::vector<std::int64_t> sizes = {1, 31, 33, 8191, 262145, std::int64_t{1} << 20, (std::int64_t{1} << 21) + 77};
  for (const std::int64_t n : st::capped(sizes)) {
    for (const double mean : {1.0, 4.0, 300.0, 1e6}) {
      std::vector<Offset> offsets{0};
      std::bernoulli_distribution head(1.0 / mean), run(0.0002);
      for (std::int64_t i = 1; i < n; ++i) {
        if (run(rng))  // a long run of empty segments before element i
          offsets.insert(offsets.end(), static_cast<std::size_t>(rng() % 5000 + 1000), static_cast<Offset>(i));
        if (head(rng)) offsets.push_back(static_cast<Offset>(i));
      }
      if (rng() % 2) offsets.insert(offsets.begin(), 3000, Offset{0});  // empty segments at 0
      offsets.insert(offsets.end(), static_cast<std::size_t>(rng() % 3000 + 1), static_cast<Offset>(n));
      const std::int64_t m = static_cast<std::int64_t>(offsets.size()) - 1, words = (n + 31) / 32;
      std::vector<std::uint32_t> expect(static_cast<std::size_t>(words), 0u);
      for (std::int64_t k = 0; k < m; ++k)
        if (offsets[k] < offsets[k + 1]) expect[offsets[k] / 32] |= 1u << (offsets[k] % 32);
      st::device_buffer<Offset> d_offsets(offsets.size());
      st::device_buffer<std::uint32_t> d_bits(static_cast<std::size_t>(words));
      STREAMSCAN_TEST_CUDA(cudaMemcpy(d_offsets.get(), offsets.data(), offsets.size() * sizeof(Offset),
                                      cudaMemcpyHostToDevice));
      for (int tile_words = 256; tile_words <= streamscan::tuning::mark_heads_max_words; tile_words *= 4) {
        SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " n=" + std::to_string(n) + " mean " +
                     std::to_string(mean) + " segments " + std::to_string(m) + " tile words " +
                     std::to_string(tile_words));
        STREAMSCAN_TEST_CUDA(cudaMemset(d_bits.get(), 0xA7, static_cast<std::size_t>(words) * 4));
        streamscan::cuda::detail::mark_segment_heads_kernel<streamscan::tuning::mark_heads_items>
            <<<static_cast<unsigned>((words + tile_words - 1) / tile_words), streamscan::tuning::mark_heads_threads,
               tile_words * sizeof(std::uint32_t)>>>(static_cast<const Offset*>(d_offsets.get()), m, n, tile_words,
                                                      d_bits.get());
        STREAMSCAN_TEST_CUDA(cudaGetLastError());
        std::vector<std::uint32_t> got(static_cast<std::size_t>(words));
        STREAMSCAN_TEST_CUDA(cudaMemcpy(got.data(), d_bits.get(), got.size() * 4, cudaMemcpyDeviceToHost));
        ASSERT_EQ(got, expect);
      }
    }
  }
}

TEST(segmented_cuda_offsets, MarkingMatchesOracleInt32) { marking_matches_oracle<std::int32_t>("smo"); }
TEST(segmented_cuda_offsets, MarkingMatchesOracleInt64) { marking_matches_oracle<std::int64_t>("smp"); }

}  // namespace

namespace {

// Checked mode (segmented_options::checked): the GPU tests the offsets' shape
// on the device and names the first broken entry as the CPU back end does
// (test_cpu_convenience.cpp); nothing is written. Offsets held in device
// memory and computed by an iterator.
TEST(segmented_cuda_errors, bad_arguments_are_named_before_any_work) {
  namespace ss = streamscan;
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  streamscan_test::device_buffer<int> in(16), out(16);
  streamscan_test::device_buffer<unsigned char> temp(1 << 16);
  in.upload(std::vector<int>(16, 1));
  out.upload(std::vector<int>(16, -7));
  streamscan_test::expect_segmented_argument_errors([&](auto segments, std::int64_t n, ss::segmented_options opt) {
    std::size_t bytes = temp.size();
    return ss::cuda::segmented_inclusive_scan(temp.get(), bytes, static_cast<const int*>(in.get()), out.get(), n,
                                              segments, ss::plus{}, nullptr, opt);
  });
  std::vector<int> after;
  out.download(after);
  EXPECT_EQ(after, std::vector<int>(16, -7));
}

TEST(segmented_cuda_checked, broken_offsets_are_named_and_nothing_is_written) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  namespace ss = streamscan;
  const std::vector<std::int32_t> in(8, 1), poisoned(8, 7);
  streamscan_test::device_buffer<std::int32_t> d_in(8), d_out(8);
  d_in.upload(in);
  ss::segmented_options opt;
  opt.checked = true;
  const cudaStream_t stream = streamscan_test::test_stream();
  auto run = [&](const std::vector<std::int64_t>& o, std::int64_t n = 8) {
    return streamscan_test::run_on_device_offsets(o, d_out, poisoned, [&](const std::int64_t* d_o, std::int64_t m) {
      ss::cuda::segmented_inclusive_scan(d_in.get(), d_out.get(), n, ss::segment_offsets{d_o, m}, ss::plus{}, stream,
                                         opt);
    });
  };
  for (const auto& [offsets, expect] : std::vector<std::pair<std::vector<std::int64_t>, std::string>>{
           {{0, 5, 3, 8}, "decreases at 2 (5 then 3)"},
           {{0, 3, 7}, "segments.offsets[2] is 7, not n = 8"},
           {{1, 3, 8}, "segments.offsets[0] is 1, not 0"},
           {{0}, "segments.offsets[0] is 0, not n = 8"}}) {
    const auto [message, out] = run(offsets);
    EXPECT_NE(message.find(expect), std::string::npos) << "got '" << message << "', want '" << expect << "'";
    EXPECT_NE(message.find("segmented_inclusive_scan"), std::string::npos) << message;
    EXPECT_EQ(out, poisoned) << expect;
  }
  const auto [message, out] = run({0, 3, 3, 8});  // an empty segment is fine
  EXPECT_EQ(message, "");
  EXPECT_EQ(out, (std::vector<std::int32_t>{1, 2, 3, 1, 2, 3, 4, 5}));

  // Offsets computed by an iterator: 0, 1, 2, 3 end short of n = 8.
  d_out.upload(poisoned);
  const ss::segment_offsets<ss::counting_iterator<std::int64_t>> counted{ss::counting_iterator<std::int64_t>(0), 3};
  std::string computed;
  try {
    ss::cuda::segmented_inclusive_scan(d_in.get(), d_out.get(), 8, counted, ss::plus{}, stream, opt);
  } catch (const ss::error& e) {
    computed = e.what();
  }
  EXPECT_NE(computed.find("segments.offsets[3] is 3, not n = 8"), std::string::npos) << computed;

  // n == 0 is checked too: offsets 0, 0, 2 end past an empty input.
  const std::string empty = run({0, 0, 2}, 0).first;
  EXPECT_NE(empty.find("segments.offsets[2] is 2, not n = 0"), std::string::npos) << empty;
}

}  // namespace
