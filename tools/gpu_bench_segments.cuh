// Fixed-length segments for the segmented benches (gpu_bench_segmented.cu,
// gpu_bench_segmented_reduce.cu): every description of the same segments, and
// the loop over sizes and lengths.
#pragma once

#include <cstdint>

#include "cli.hpp"
#include "gpu_buffers.cuh"
#include "report.hpp"

namespace streamscan_tool {

// Segment k = [k * length, (k+1) * length): keys, head bytes and head bits;
// and, when `offsets` is not null, the m + 1 offsets (the last one n).
template <class Key, class Offset>
__global__ void make_segments_kernel(std::int64_t n, std::int64_t length, Key* keys, unsigned char* flags,
                                     std::uint32_t* bits, Offset* offsets, std::int64_t m) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (std::int64_t i = first; i < (n + 31) / 32 * 32; i += stride) {
    const bool head = i < n && i % length == 0;
    if (i < n) {
      keys[i] = static_cast<Key>(i / length);
      flags[i] = head;
    }
    const unsigned word = __ballot_sync(0xffffffffu, head);  // the grid covers whole warps
    if (threadIdx.x % 32 == 0) bits[i / 32] = word;
  }
  if (offsets != nullptr)
    for (std::int64_t k = first; k <= m; k += stride) offsets[k] = static_cast<Offset>(k * length < n ? k * length : n);
}

// bench_length(o, log2n, length, report, bar) for every size and segment
// length, `steps` progress steps each; 0 when every row verified.
template <class BenchLength>
int bench_every_length(const bench_options& o, bench_report& rep, int steps, BenchLength bench_length) {
  warm_up_gpu();
  rep.repeat = o.repeat;
  progress bar(o.progress, static_cast<int>(o.log2_sizes.size() * o.segment_lengths.size()) * steps);
  for (const int e : o.log2_sizes)
    for (const std::int64_t length : o.segment_lengths) bench_length(o, e, length, rep, bar);
  bar.done();
  return all_verified(rep) ? 0 : 1;
}

}  // namespace streamscan_tool
