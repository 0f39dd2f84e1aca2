// streamscan/cuda/kernels/segment_kernels.cuh - converts segment offsets
// (CSR row pointers) and one-byte head flags into the head bits the
// segmented scans read.
#pragma once

#include <cstdint>

#include "../../detail/segmented_scan.hpp"

namespace streamscan::cuda::detail {

// The first k in [0, m) with offsets[k] >= value (m when none), found by a
// whole warp: each round the 32 lanes probe evenly spaced entries and the
// ballot of "below value" narrows the range 32-fold. Every lane returns it.
// On offsets that are not non-decreasing it still ends, inside [0, m].
template <class OffsetIt>
__device__ std::int64_t warp_lower_bound(OffsetIt offsets, std::int64_t m, std::int64_t value, int lane) {
  std::int64_t lo = 0, hi = m;  // the answer lies in [lo, hi]
  while (hi > lo) {
    const std::int64_t step = (hi - lo + 31) / 32;
    const std::int64_t probe = lo + lane * step;
    const bool below = probe < hi && static_cast<std::int64_t>(offsets[probe]) < value;
    const int c = __popc(__ballot_sync(0xffffffffu, below));
    // Lane c - 1's entry is below value and lane c's (if any) is not.
    if (c == 0) {
      hi = lo;
    } else {
      const std::int64_t next_hi = lo + c * step;
      lo += (c - 1) * step + 1;
      hi = next_hi < hi ? next_hi : hi;
    }
  }
  return lo;
}

// Head bits from CSR offsets, each word written once: no zeroing before and
// no atomics in global memory. Block b owns `tile_words` words (elements
// [e0, e1)); two warps find the offsets that fall there by warp_lower_bound,
// the block ORs their bits into its words in shared memory (a thread folds
// its Items consecutive offsets first, so short segments cost about one
// shared atomic a word), then writes every word. For the documented shape
// (offsets[0] = 0, non-decreasing, offsets[m] = n) "element e equals some
// offsets[k], k < m, and e < n" is "e starts a non-empty segment": a run of
// empty segments at e ends with an entry past e, at the latest offsets[m].
// Broken offsets give unspecified bits, never a write outside the block's
// words. Dynamic shared memory: tile_words words.
template <int Items, class OffsetIt>
__global__ void mark_segment_heads_kernel(OffsetIt offsets, std::int64_t num_segments, std::int64_t n,
                                          int tile_words, std::uint32_t* bits) {
  extern __shared__ std::uint32_t tile[];
  __shared__ std::int64_t range[2];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const std::int64_t e0 = std::int64_t(blockIdx.x) * tile_words * 32;
  const std::int64_t e1 = e0 + std::int64_t{tile_words} * 32 < n ? e0 + std::int64_t{tile_words} * 32 : n;
  if (warp < 2) {
    const std::int64_t k = warp_lower_bound(offsets, num_segments, warp == 0 ? e0 : e1, lane);
    if (lane == 0) range[warp] = k;
  }
  for (int w = threadIdx.x; w < tile_words; w += blockDim.x) tile[w] = 0u;
  __syncthreads();
  const std::int64_t k0 = range[0], k1 = range[1];
  for (std::int64_t k = k0 + std::int64_t{threadIdx.x} * Items; k < k1; k += std::int64_t{blockDim.x} * Items) {
    std::int64_t e[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) e[j] = k + j < k1 ? static_cast<std::int64_t>(offsets[k + j]) : -1;
    int word = -1;
    std::uint32_t mask = 0u;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      if (e[j] < e0 || e[j] >= e1) continue;
      const int local = static_cast<int>(e[j] - e0);
      if (local / 32 != word) {
        if (word >= 0) atomicOr(tile + word, mask);
        word = local / 32;
        mask = 0u;
      }
      mask |= 1u << (local % 32);
    }
    if (word >= 0) atomicOr(tile + word, mask);
  }
  __syncthreads();
  const std::int64_t first = std::int64_t(blockIdx.x) * tile_words, words = (n + 31) / 32;
  for (int w = threadIdx.x; w < tile_words && first + w < words; w += blockDim.x) bits[first + w] = tile[w];
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
