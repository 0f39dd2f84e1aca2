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
  auto run = [&](const std::vector<std::int64_t>& o, bool checked) {
    return streamscan_test::run_on_device_offsets(o, d_out, poisoned, [&](const std::int64_t* d_o, std::int64_t m) {
      ss::cuda::segmented_reduce(d_in.get(), d_out.get(), 8, ss::segment_offsets{d_o, m}, 0, ss::plus{}, stream,
                                 nullptr, ss::segmented_reduce_options{checked});
    });
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
