// experiments/pipeline_trace.cuh - reads the pipeline's timeline probes
// (STREAMSCAN_PIPELINE_TRACE, kernels/pipeline.cuh) after one run of a
// pipelined kernel. Define STREAMSCAN_PIPELINE_TRACE before any streamscan
// header in the experiment's translation unit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

#include <streamscan/cuda/kernels/pipeline.cuh>

#include "../tools/cuda_timing.cuh"

// One traced run: where a tile's time goes (medians over tiles, us), and how
// busy each role of a block is (sum of its step times / the block's span).
template <class Run>
void trace_report(Run run, std::int64_t tiles) {
  unsigned long long* trace = nullptr;
  streamscan_tool::cuda_check(cudaMalloc(&trace, tiles * 8 * sizeof(unsigned long long)), "malloc trace");
  streamscan_tool::cuda_check(cudaMemset(trace, 0, tiles * 8 * sizeof(unsigned long long)), "memset trace");
  streamscan_tool::cuda_check(cudaMemcpyToSymbol(streamscan::cuda::detail::pipeline_trace, &trace, sizeof(trace)), "trace symbol");
  run(0);
  streamscan_tool::cuda_check(cudaDeviceSynchronize(), "traced run");
  std::vector<unsigned long long> h(tiles * 8);
  streamscan_tool::cuda_check(cudaMemcpy(h.data(), trace, h.size() * 8, cudaMemcpyDeviceToHost), "trace copy");
  unsigned long long* none = nullptr;
  streamscan_tool::cuda_check(cudaMemcpyToSymbol(streamscan::cuda::detail::pipeline_trace, &none, sizeof(none)), "trace symbol");
  cudaFree(trace);
  const char* names[6] = {"claim->landed", "reduce", "reduced->lookback start", "lookback", "prefix->scan start", "scan+store"};
  std::vector<double> d[6];
  std::map<unsigned long long, std::vector<std::int64_t>> by_block;
  unsigned long long t0 = ~0ull, t1 = 0;
  for (std::int64_t t = 1; t + 1 < tiles; ++t) {
    const unsigned long long* x = &h[t * 8];
    for (int k = 0; k < 6; ++k) d[k].push_back((double(x[k + 1]) - double(x[k])) / 1000.0);
    by_block[x[7]].push_back(t);
    t0 = std::min(t0, x[0]);
    t1 = std::max(t1, x[6]);
  }
  std::printf("    trace: span %.1f us, %zu blocks;", (t1 - t0) / 1000.0, by_block.size());
  for (int k = 0; k < 6; ++k) {
    std::sort(d[k].begin(), d[k].end());
    std::printf(" %s %.2f (p90 %.2f);", names[k], d[k][d[k].size() / 2], d[k][d[k].size() * 9 / 10]);
  }
  double busy[3] = {0, 0, 0}, span = 0;
  for (auto& [blk, ts] : by_block) {
    unsigned long long b0 = ~0ull, b1 = 0;
    for (auto t : ts) {
      const unsigned long long* x = &h[t * 8];
      busy[0] += x[2] - x[1];
      busy[1] += x[4] - x[3];
      busy[2] += x[6] - x[5];
      b0 = std::min(b0, x[0]);
      b1 = std::max(b1, x[6]);
    }
    span += b1 - b0;
  }
  std::printf("\n    busy: reducer %.0f%%, look-back warp %.0f%%, scan warps %.0f%% of the blocks' spans\n",
              100 * busy[0] / span, 100 * busy[1] / span, 100 * busy[2] / span);
}

