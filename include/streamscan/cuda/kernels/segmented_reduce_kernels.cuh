// streamscan/cuda/kernels/segmented_reduce_kernels.cuh - the two small
// kernels that turn an inclusive segmented scan (from init) into one value
// per segment: each segment's total is the scan at its last element.
#pragma once

#include <cstdint>

#include "../../detail/segmented_reduce.hpp"

namespace streamscan::cuda::detail {

// Offsets: one thread per segment reads the scan at its last element, or
// writes init when it is empty. Block 0's thread 0 writes the count.
template <class OffsetIt, class A, class OutIt>
__global__ void gather_segment_totals_kernel(OffsetIt offsets, std::int64_t num_segments, std::int64_t n,
                                             const A* scanned, A init, OutIt out, std::int64_t* count) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < num_segments; k += stride) {
    std::int64_t begin = 0, end = 0;
    streamscan::detail::segment_range(offsets, k, n, begin, end);
    out[k] = end > begin ? scanned[end - 1] : init;
  }
  if (count != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *count = num_segments;
}

// How many segments start in word w of the head bits (element 0 counted);
// the input of the scan that numbers the segments.
struct word_head_count {
  const std::uint32_t* bits;
  std::int64_t n;
  STREAMSCAN_HOST_DEVICE std::int64_t operator()(std::int64_t w) const {
    const std::uint32_t h = streamscan::detail::word_heads(bits, w, n);
#if defined(__CUDA_ARCH__)
    return __popc(h);
#else
    return __builtin_popcount(h);
#endif
  }
};

// Head bits: one thread per word of 32 elements writes the totals of the
// segments that end in it (element i ends one when i + 1 starts one or
// i == n - 1). `heads_through[w]`: the heads in words 0..w, so segment
// numbers need one popcount each. The thread of the last word writes the count.
template <class A, class OutIt>
__global__ void scatter_segment_tails_kernel(const std::uint32_t* bits, const std::int64_t* heads_through,
                                             std::int64_t n, const A* scanned, OutIt out, std::int64_t* count) {
  const std::int64_t words = (n + 31) / 32;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t w = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; w < words; w += stride) {
    const std::uint32_t h = streamscan::detail::word_heads(bits, w, n);
    const std::int64_t valid = n - 32 * w;
    std::uint32_t tails;
    if (valid >= 32) {
      const std::uint32_t next = w + 1 < words ? bits[w + 1] & 1u : 1u;
      tails = (h >> 1) | (next << 31);
    } else {
      const std::uint32_t last = 1u << (valid - 1);
      tails = ((h >> 1) & (last - 1u)) | last;
    }
    const std::int64_t before = heads_through[w] - __popc(h);
    while (tails != 0) {
      const int b = __ffs(tails) - 1;
      tails &= tails - 1u;
      // Heads at or before element b of the word: the segment's number + 1.
      const std::int64_t k = before + __popc(h & ((2u << b) - 1u)) - 1;
      out[k] = scanned[32 * w + b];
    }
    if (count != nullptr && w == words - 1) *count = heads_through[w];
  }
}

}  // namespace streamscan::cuda::detail
