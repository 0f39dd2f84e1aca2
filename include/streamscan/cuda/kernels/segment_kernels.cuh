// streamscan/cuda/kernels/segment_kernels.cuh - converts segment offsets
// (CSR row pointers) and one-byte head flags into the head bits the
// segmented scans read.
#pragma once

#include <cstdint>

#include "../../detail/segmented_scan.hpp"

namespace streamscan::cuda::detail {

// Sets the bit of every segment's first element (bits zeroed before); empty
// segments and offsets outside [0, n) set nothing. A warp reads 32
// consecutive segments; the lanes whose starts fall in one 32-bit word OR
// their bits together by shuffles and the last of them writes the word with
// one atomicOr, so that short segments (several starts a word) cost a few
// atomics a warp rather than one a segment. Non-decreasing offsets put the
// lanes of a word next to each other; any other order is still marked right,
// with more atomics (lanes OR only bits of their own word).
template <class OffsetIt>
__global__ void mark_segment_heads_kernel(OffsetIt offsets, std::int64_t num_segments, std::int64_t n,
                                          std::uint32_t* bits) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x - lane; first < num_segments;
       first += stride) {
    const std::int64_t k = first + lane;
    std::int64_t start = -1;
    const bool head = k < num_segments && streamscan::detail::segment_start(offsets, k, n, start);
    // Lanes with nothing to mark join their neighbours' word when theirs is
    // in range, and otherwise take a word no other lane has.
    const std::int64_t word = start >= 0 && start < n ? start >> 5 : -1 - lane;
    std::uint32_t mine = head ? 1u << (start & 31) : 0u;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const std::int64_t other_word = __shfl_up_sync(0xffffffffu, word, d);
      const std::uint32_t other = __shfl_up_sync(0xffffffffu, mine, d);
      if (lane >= d && other_word == word) mine |= other;
    }
    const std::int64_t next_word = __shfl_down_sync(0xffffffffu, word, 1);
    if ((lane == 31 || next_word != word) && mine != 0) atomicOr(bits + word, mine);
  }
}

// Checked mode: record[0] becomes the smallest k in [0, m] whose offset
// breaks the rule's shape (left at all ones when none does).
template <class OffsetIt>
__global__ void check_segment_offsets_kernel(OffsetIt offsets, std::int64_t num_segments, std::int64_t n,
                                             streamscan::detail::offsets_rule rule, unsigned long long* record) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k <= num_segments; k += stride)
    if (streamscan::detail::segment_offset_breaks(offsets, k, num_segments, n, rule))
      atomicMin(record, static_cast<unsigned long long>(k));
}

// One thread: the entries around record[0]'s k, for the message (record[1]:
// offsets[k - 1], record[2]: offsets[k]).
template <class OffsetIt>
__global__ void describe_segment_offset_kernel(OffsetIt offsets, unsigned long long* record) {
  const unsigned long long k = record[0];
  if (k == ~0ull) return;
  record[1] = k > 0 ? static_cast<unsigned long long>(static_cast<std::int64_t>(offsets[k - 1])) : 0ull;
  record[2] = static_cast<unsigned long long>(static_cast<std::int64_t>(offsets[k]));
}

// Bit b of the result: byte b of the 16 is nonzero.
__device__ __forceinline__ unsigned nonzero_bytes_16(const uint4& v) {
  const unsigned words[4] = {v.x, v.y, v.z, v.w};
  unsigned m = 0;
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    // High bit of each byte: set iff the byte is nonzero; then the four high
    // bits gathered into one nibble by one multiplication.
    const unsigned x = words[w];
    const unsigned high = (((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) & 0x80808080u;
    m |= (((high >> 7) * 0x10204080u) >> 28) << (4 * w);
  }
  return m;
}

// Packs one-byte head flags into head bits, a warp per 1024 flags (32
// words). Full groups of 16-byte aligned flags: two 16-byte loads per lane
// (one per 512-byte half), a 16-bit mask each, and shuffles pair the halves
// of every word. Otherwise one ballot per word.
template <class Flag>
__global__ void pack_head_flags_kernel(const Flag* flags, std::int64_t n, std::uint32_t* bits) {
  static_assert(sizeof(Flag) == 1, "one-byte flags");
  constexpr unsigned all = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / 32;
  const std::int64_t groups = (n + 1023) / 1024;
  const bool aligned = reinterpret_cast<std::uintptr_t>(flags) % 16 == 0;
  for (std::int64_t g = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32; g < groups; g += warps) {
    const std::int64_t base = g * 1024;
    unsigned word = 0;
    if (aligned && base + 1024 <= n) {
      const uint4* p = reinterpret_cast<const uint4*>(flags + base);
      const unsigned m0 = nonzero_bytes_16(__ldcs(p + lane)), m1 = nonzero_bytes_16(__ldcs(p + 32 + lane));
      // Word w (lane w) is flags [32w, 32w + 32): the masks of lanes 2w and 2w + 1 of one half.
      const int src = (2 * lane) % 32;
      const unsigned lo0 = __shfl_sync(all, m0, src), hi0 = __shfl_sync(all, m0, src + 1);
      const unsigned lo1 = __shfl_sync(all, m1, src), hi1 = __shfl_sync(all, m1, src + 1);
      word = lane < 16 ? lo0 | (hi0 << 16) : lo1 | (hi1 << 16);
    } else {
#pragma unroll 4
      for (int j = 0; j < 32; ++j) {
        const std::int64_t i = base + 32 * j + lane;
        const unsigned b = __ballot_sync(all, i < n && flags[i] != 0);
        if (lane == j) word = b;
      }
    }
    if (base + 32 * lane < n) bits[g * 32 + lane] = word;
  }
}

}  // namespace streamscan::cuda::detail
