// Segmented reduction and the iterators of streamscan/iterators.hpp on the GPU.
#include <string>
#include <utility>
#include <vector>

#include "cuda_backend.cuh"

STREAMSCAN_SEGMENTED_REDUCE_TESTS(segmented_reduce_cuda, streamscan_test::cuda_backend)

namespace {

// Checked mode (segmented_reduce_options::checked): offsets that decrease are
// named as the CPU back end names them, and nothing is written; offsets past
// n or an o[0] other than 0 are fine (a reduction clamps them).
TEST(segmented_reduce_cuda_checked, decreasing_offsets_are_named_and_nothing_is_written) {
  if (!streamscan_test::cuda_backend::available()) GTEST_SKIP() << "no CUDA device";
  namespace ss = streamscan;
  const std::vector<std::int32_t> in(8, 1), poisoned(4, 7);
  streamscan_test::device_buffer<std::int32_t> d_in(8), d_out(4);
  d_in.upload(in);
  const cudaStream_t stream = streamscan_test::test_stream();
  auto run = [&](std::vector<std::int64_t> o, bool checked) {
    streamscan_test::device_buffer<std::int64_t> d_o(o.size());
    d_o.upload(o);
    d_out.upload(poisoned);
    const ss::segment_offsets<const std::int64_t*> segments{d_o.get(), static_cast<std::int64_t>(o.size()) - 1};
    std::string message;
    try {
      ss::cuda::segmented_reduce(d_in.get(), d_out.get(), 8, segments, 0, ss::plus{}, stream, nullptr,
                                 ss::segmented_reduce_options{checked});
    } catch (const ss::error& e) {
      message = e.what();
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    std::vector<std::int32_t> out;
    d_out.download(out);
    return std::make_pair(message, out);
  };
  for (const auto& [offsets, expect] : std::vector<std::pair<std::vector<std::int64_t>, std::string>>{
           {{0, 5, 3, 8}, "decreases at 2 (5 then 3)"}, {{0, 2, 4, 8, 6}, "decreases at 4 (8 then 6)"}}) {
    const auto [message, out] = run(offsets, true);
    EXPECT_NE(message.find(expect), std::string::npos) << "got '" << message << "', want '" << expect << "'";
    EXPECT_NE(message.find("streamscan::cuda::segmented_reduce"), std::string::npos) << message;
    EXPECT_EQ(out, poisoned) << expect;
  }
  // Clamped ends are not errors: [-3, 2), [2, 2), [2, 8), [8, 12) -> 2, 0, 6, 0.
  const auto [message, out] = run({-3, 2, 2, 8, 12}, true);
  EXPECT_EQ(message, "");
  EXPECT_EQ(out, (std::vector<std::int32_t>{2, 0, 6, 0}));
}

}  // namespace
