// streamscan/cuda/kernels/segment_kernels.cuh - converts segment offsets
// (CSR row pointers) into head bits for the segmented scans.
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

}  // namespace streamscan::cuda::detail
