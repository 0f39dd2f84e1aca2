// streamscan/cuda/kernels/segment_kernels.cuh - converts segment offsets
// (CSR row pointers) and one-byte head flags into the head bits the
// segmented scans read.
#pragma once

#include <cstdint>

#include "../../detail/segmented_scan.hpp"

namespace streamscan::cuda::detail {

// One thread per segment sets the bit of its first element (bits zeroed
// before); empty segments and offsets outside [0, n) set nothing.
template <class OffsetIt>
__global__ void mark_segment_heads_kernel(OffsetIt offsets, std::int64_t num_segments, std::int64_t n,
                                          std::uint32_t* bits) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < num_segments; k += stride) {
    std::int64_t start = 0;
    if (streamscan::detail::segment_start(offsets, k, n, start))
      atomicOr(bits + (start >> 5), 1u << (start & 31));
  }
}

// Packs one-byte head flags into head bits, a warp per 32 flags (ballot).
// The loop covers whole warps so that every lane takes part in the ballot.
template <class Flag>
__global__ void pack_head_flags_kernel(const Flag* flags, std::int64_t n, std::uint32_t* bits) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t end = (n + 31) / 32 * 32;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < end; i += stride) {
    const unsigned word = __ballot_sync(0xffffffffu, i < n && flags[i] != 0);
    if (threadIdx.x % 32 == 0) bits[i >> 5] = word;
  }
}

}  // namespace streamscan::cuda::detail
