// streamscan/cuda/kernels/compaction_paper_kernels.cuh - the compaction
// kernels of "Efficient Algorithms for Stream Compaction on GPUs"
// [Compaction], kept as the paper writes them: a warp owns a 1024-element
// group of 32 subgroups of 32; subgroup j's ballot and count live in lane j
// ("votes", "cnt"), a shuffle scan of the counts gives the subgroup offsets.
//
//  * multi_level (sec. 3.1): phase 1 stores the ballots and each group's
//    count, phase 2 scans the counts (our scan), phase 3 scatters. Stable.
//  * hybrid (sec. 3.2): one kernel; the group's offset comes from one
//    atomicAdd on a global counter. NOT order-preserving.
//  * warp_atomic (warp-aggregated atomics, the paper's baseline): one
//    element per thread, one atomicAdd per warp. NOT order-preserving.
//
// They keep the paper's 128 threads per block. Unordered kernels write the
// selected elements in whatever order the groups reserved their slots. The
// kernels that write take an optional gate (util/gate.cuh), not the paper's:
// shut, they write nothing.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../util/gate.cuh"

namespace streamscan::cuda::detail {

// The paper's figs. 4 and 9 share this: lane j ends holding subgroup j's ballot.
// Elements at or past n count as rejected (none when `full`).
template <class Item, class Classify>
__device__ unsigned group_votes(std::int64_t base, std::int64_t n, bool full, Item (&v)[32], Classify classify) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  unsigned votes = 0;
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const std::int64_t i = base + 32 * j + lane;
    const unsigned m = __ballot_sync(0xffffffffu, (full || i < n) && classify(i, v[j]));
    if (lane == j) votes = m;
  }
  return votes;
}

// Runs body(std::true_type) for a warp's full 1024-element group, else
// body(std::false_type) (the last group).
template <class Body>
__device__ void for_group(std::int64_t base, std::int64_t n, Body body) {
  if (base + 1024 <= n) body(std::true_type{});
  else body(std::false_type{});
}

// Inclusive scan of one int per lane by shuffles (the CUDA samples' shfl scan
// the paper uses).
__device__ __forceinline__ unsigned warp_inclusive_count(unsigned cnt) {
  const int lane = static_cast<int>(threadIdx.x % 32);
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned t = __shfl_up_sync(0xffffffffu, cnt, d);
    if (lane >= d) cnt += t;
  }
  return cnt;
}

// Scatter of a group (the paper's stage 4 / phase 3c): subgroup j's selected
// elements go to offset + (selected in subgroups before j) + rank in j.
// `cnt` is the lane's inclusive subgroup count; `element(j)` gives the item.
template <class Source, class Element>
__device__ void scatter_group(const Source& src, std::int64_t base, unsigned votes, unsigned cnt,
                              std::int64_t offset, std::int64_t capacity, Element element) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const unsigned m = __shfl_sync(0xffffffffu, votes, j);
    const unsigned sub = j > 0 ? __shfl_sync(0xffffffffu, cnt, j - 1) : 0u;
    if ((m >> lane) & 1u) {
      const std::int64_t c = offset + sub + __popc(m & below);
      if (c < capacity) src.move(element(j), base + 32 * j + lane, c);
    }
  }
}

// multi_level phase 1: ballots to pred[32 per group], group counts to counter.
template <class Source, class C>
__global__ void __launch_bounds__(128)
    multi_level_count_kernel(Source src, std::int64_t n, unsigned* pred, C* counter) {
  const std::int64_t group = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const std::int64_t base = group * 1024;
  if (base >= n) return;  // whole warps
  for_group(base, n, [&](auto full) {
    bool unused[32];
    const unsigned votes =
        group_votes(base, n, decltype(full)::value, unused, [&](std::int64_t i, bool&) { return src.load_keep(i); });
    pred[group * 32 + threadIdx.x % 32] = votes;
    unsigned cnt = __popc(votes);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) cnt += __shfl_down_sync(0xffffffffu, cnt, d);
    if (threadIdx.x % 32 == 0) counter[group] = static_cast<C>(cnt);
  });
}

// multi_level phase 3: after the inclusive scan of counter, scatter; selected
// elements are read again (only they are).
template <class Source, class C>
__global__ void __launch_bounds__(128)
    multi_level_scatter_kernel(Source src, std::int64_t n, std::int64_t capacity, const unsigned* pred,
                               const C* counter, std::int64_t* num_selected, const std::uint32_t* gate = nullptr) {
  if (gate_shut(gate)) return;
  const std::int64_t group = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const std::int64_t base = group * 1024;
  if (base >= n) return;
  const unsigned votes = pred[group * 32 + threadIdx.x % 32];
  const unsigned cnt = warp_inclusive_count(__popc(votes));
  const std::int64_t offset = group > 0 ? static_cast<std::int64_t>(counter[group - 1]) : 0;
  const int lane = static_cast<int>(threadIdx.x % 32);
  scatter_group(src, base, votes, cnt, offset, capacity, [&](int j) { return src.load_kept(base + 32 * j + lane); });
  if (base + 1024 >= n && lane == 0) *num_selected = static_cast<std::int64_t>(counter[group]);
}

// hybrid: stages 1-4 of sec. 3.2 in one kernel; the items stay in
// registers. Kept as the paper writes it, on purpose: ballots specialised
// for full groups (all 32 loads before the first ballot), or the capacity
// checked once a group, cut its instructions by ~40% but ran slower at low
// selected fractions and no faster at high ones (measured; docs/history.md),
// while multi_level's counting kernel gains from the same ballots.
template <class Source>
__global__ void __launch_bounds__(128)
    hybrid_select_kernel(Source src, std::int64_t n, std::int64_t capacity, unsigned long long* counter,
                         const std::uint32_t* gate = nullptr) {
  if (gate_shut(gate)) return;
  const std::int64_t group = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const std::int64_t base = group * 1024;
  if (base >= n) return;
  const int lane = static_cast<int>(threadIdx.x % 32);
  typename Source::item v[32];
  const unsigned votes = group_votes(base, n, base + 1024 <= n, v, [&](std::int64_t i, typename Source::item& x) {
    x = src.load(i);
    return src.keep(x);
  });
  const unsigned cnt = warp_inclusive_count(__popc(votes));
  unsigned long long offset = 0;
  const unsigned total = __shfl_sync(0xffffffffu, cnt, 31);
  if (total == 0) return;  // nothing to reserve (the paper adds 0)
  if (lane == 31) offset = atomicAdd(counter, static_cast<unsigned long long>(total));
  offset = __shfl_sync(0xffffffffu, offset, 31);
  scatter_group(src, base, votes, cnt, static_cast<std::int64_t>(offset), capacity, [&](int j) { return v[j]; });
}

// warp_atomic: one element per thread; the warp's leader reserves its slots.
template <class Source>
__global__ void __launch_bounds__(128)
    warp_atomic_select_kernel(Source src, std::int64_t n, std::int64_t capacity, unsigned long long* counter,
                              const std::uint32_t* gate = nullptr) {
  if (gate_shut(gate)) return;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t w = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32 * 32; w < n; w += stride) {
    const std::int64_t i = w + lane;
    typename Source::item v{};
    bool keep = false;
    if (i < n) {
      v = src.load(i);
      keep = src.keep(v);
    }
    const unsigned m = __ballot_sync(0xffffffffu, keep);
    if (m == 0) continue;
    const int leader = __ffs(m) - 1;
    unsigned long long offset = 0;
    if (lane == leader) offset = atomicAdd(counter, static_cast<unsigned long long>(__popc(m)));
    offset = __shfl_sync(0xffffffffu, offset, leader);
    const std::int64_t c = static_cast<std::int64_t>(offset) + __popc(m & ((1u << lane) - 1u));
    if (keep && c < capacity) src.move(v, i, c);
  }
}

}  // namespace streamscan::cuda::detail
