// Experiment: where the pipelined segmented scans (p512x4s6r6, p512x2s12r4) spend a tile's
// time, against the one-tile kernel (s128x8), through the library call, int32
// sums over head bits with fixed-length segments. Prints the medians of 20
// timed calls and one traced run's step times (pipeline_trace.cuh).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude experiments/pipelined_segmented.cu \
//        -o pipelined_segmented && ./pipelined_segmented [log2 n] [segment length] [policy]
#define STREAMSCAN_PIPELINE_TRACE 1  // timeline probes; off unless a buffer is set
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "../tools/cuda_timing.cuh"
#include "pipeline_trace.cuh"

using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 26;
  const std::int64_t length = argc > 2 ? std::atoll(argv[2]) : 64;
  const char* only = argc > 3 ? argv[3] : nullptr;  // one policy (for ncu)
  const std::int64_t n = std::int64_t{1} << log2n;
  std::vector<std::int32_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::int32_t>((i * 2654435761u) % 1000u);
  std::vector<std::uint32_t> words((n + 31) / 32, 0);
  for (std::int64_t i = 0; i < n; i += length) words[i / 32] |= 1u << (i % 32);
  std::int32_t *in = nullptr, *out = nullptr, *ref = nullptr;
  std::uint32_t* bits = nullptr;
  cuda_check(cudaMalloc(&in, n * 4), "malloc");
  cuda_check(cudaMalloc(&out, n * 4), "malloc");
  cuda_check(cudaMalloc(&ref, n * 4), "malloc");
  cuda_check(cudaMalloc(&bits, words.size() * 4), "malloc");
  cuda_check(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice), "copy");
  cuda_check(cudaMemcpy(bits, words.data(), words.size() * 4, cudaMemcpyHostToDevice), "copy");
  const double copy_ms = median_ms(20, [&](int) { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
  std::printf("n 2^%d, segments of %lld: memcpy %.4f ms\n", log2n, static_cast<long long>(length), copy_ms);
  // The plain scan's default (pipelined from 2^26), for the shared pipeline.
  const double plain_ms = median_ms(20, [&](int) {
    streamscan::cuda::inclusive_scan(static_cast<const std::int32_t*>(in), out, n, streamscan::plus{});
  });
  std::printf("  plain inclusive_scan (default policy): %.4f ms (%.0f%% of memcpy)\n", plain_ms, 100 * copy_ms / plain_ms);
  for (const auto dir : {streamscan::scan_direction::forward, streamscan::scan_direction::backward}) {
    const streamscan::head_bits segments{bits};
    auto call = [&](const char* policy, std::int32_t* dst) {
      const streamscan::segmented_options opt{dir, {streamscan::scan_strategy::automatic, policy}};
      streamscan::cuda::segmented_inclusive_scan(static_cast<const std::int32_t*>(in), dst, n, segments,
                                                 streamscan::plus{}, nullptr, opt);
    };
    call("s128x8", ref);
    for (const char* policy : {"s128x8", "p512x4s6r6", "p512x2s12r4"}) {
      if (only != nullptr && std::string(policy) != only) continue;
      const double ms = median_ms(20, [&](int) { call(policy, out); });
      cuda_check(cudaDeviceSynchronize(), "run");
      std::vector<std::int32_t> a(n), b(n);
      cuda_check(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost), "copy");
      cuda_check(cudaMemcpy(b.data(), ref, n * 4, cudaMemcpyDeviceToHost), "copy");
      std::printf("  %s %s: %.4f ms (%.0f%% of memcpy)%s\n", dir == streamscan::scan_direction::forward ? "fwd" : "bwd",
                  policy, ms, 100 * copy_ms / ms, a == b ? "" : " MISMATCH");
      if (policy[0] == 'p') {
        std::int64_t tile = 0;
        for (int i = 0; i < streamscan::cuda::segmented_shape_count; ++i)
          if (streamscan::cuda::segmented_shape_name(i) == policy) tile = streamscan::cuda::segmented_tile_items(i, 4);
        trace_report([&](int) { call(policy, out); }, (n + tile - 1) / tile);
      }
    }
  }
  return 0;
}
