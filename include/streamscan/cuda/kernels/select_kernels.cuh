// streamscan/cuda/kernels/select_kernels.cuh - the kernels of compaction,
// partition and split.
//
//  * select_kernel: stable and single pass. Each block takes the next tile id
//    from a counter, classifies its tile (agent_select), learns how many
//    elements the tiles before it selected through the decoupled look-back,
//    and scatters from registers.
//  * pipelined_select_kernel: the same on the warp-specialised pipeline
//    (sm_90+, pipeline.cuh): persistent blocks, tiles streamed into shared
//    memory while earlier ones look back (with their flags, for flagged
//    sources).
//  * seed 002's kernels (Bakunas-Milanowski et al. 2017), faithfully: a warp
//    owns a 1024-element group of 32 subgroups of 32; subgroup j's ballot and
//    count live in lane j ("votes", "cnt"), a shuffle scan of the counts gives
//    the subgroup offsets.
//      multi_level (3.1): phase 1 stores the ballots and each group's count,
//        phase 2 scans the counts (our scan), phase 3 scatters. Stable.
//      hybrid (3.2): one kernel; the group's offset comes from one atomicAdd
//        on a global counter. NOT order-preserving.
//      warp_atomic (Adinetz's warp-aggregated atomics, seed 002's baseline):
//        one element per thread, one atomicAdd per warp. NOT order-preserving.
//    They keep the seed's 128 threads per block. Unordered kernels write the
//    selected elements in whatever order the groups reserved their slots.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../detail/select_sources.hpp"
#include "../../operators.hpp"
#include "../agent/agent_select.cuh"
#include "../agent/look_back.cuh"
#include "../agent/tile_status.cuh"
#include "pipeline.cuh"
#include "single_pass_scan_kernel.cuh"

namespace streamscan::cuda::detail {

using streamscan::detail::placement;

// Stable single-pass kernel. C counts selected elements (32-bit below 2^32
// elements, so the look-back packs count and flag in one word). The last
// tile writes the total to *num_selected (if not null). With `in_place` (out aliases the
// input) fences order every tile's reads before its status word and its
// writes after its predecessors' status words: a tile writes only at or below
// its own elements' positions, into tiles that have already read theirs.
template <class Policy, placement P, class Source, class C>
__global__ void __launch_bounds__(Policy::threads)
    select_kernel(Source src, std::int64_t n, std::int64_t capacity, const std::int64_t* rejects_from,
                  std::int64_t* num_selected, tile_status<C> status, unsigned long long* tile_counter, bool in_place) {
  using agent_t = agent_select<Policy, Source>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ uninitialized<C> shared_prefix;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage);
  typename agent_t::classified c;
  unsigned tile_total = 0;
  agent.load(src, t.base, t.valid, c);
  const unsigned warp_before = agent.classify(src, t.valid, c, tile_total);
  if (in_place && threadIdx.x == 0) __threadfence();
  streamscan::plus op;
  const maybe<C> prefix = resolve_tile_prefix<look_back_kind::decoupled, Policy::look_back_sleep_ns>(
      status, t, static_cast<C>(tile_total), maybe<C>{C(0), true}, op, shared_prefix);
  if (in_place) __threadfence();
  const std::int64_t before = static_cast<std::int64_t>(prefix.value);
  if (t.last && threadIdx.x == 0 && num_selected != nullptr) *num_selected = before + tile_total;
  const std::int64_t from = P == placement::rejects_after ? *rejects_from : 0;
  agent.template scatter<P>(src, t.base, t.valid, c, before + warp_before, n, capacity, from);
}

// The counting pass of stable_partition and split: only the total matters
// (where the second pass puts the rejected elements), so no tile order and
// no look-back: a grid-stride loop, `unroll` vector loads in flight per
// thread, one atomicAdd per warp into *count (zeroed before). The one-tile
// select_kernel did it at 2.1 TB/s (H200, 2^28 int32: 0.5 ms of
// stable_partition's 1.39), bound by its tile-order latency.
template <int Threads, int Unroll, class Source>
__global__ void __launch_bounds__(Threads)
    count_selected_kernel(Source src, std::int64_t n, unsigned long long* count) {
  constexpr int W = Source::vector_width;
  const std::int64_t vectors = n / W;
  const std::int64_t stride = std::int64_t{gridDim.x} * Threads;
  std::int64_t v = std::int64_t{blockIdx.x} * Threads + threadIdx.x;
  unsigned long long k = 0;
  for (; v + (Unroll - 1) * stride < vectors; v += Unroll * stride) {
    typename Source::item x[Unroll][W];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) src.load_vector((v + u * stride) * W, x[u]);  // all loads before any use
#pragma unroll
    for (int u = 0; u < Unroll; ++u) k += static_cast<unsigned>(__popc(streamscan::detail::keep_bits(src, x[u])));
  }
  for (; v < vectors; v += stride) {
    typename Source::item x[W];
    src.load_vector(v * W, x);
    k += static_cast<unsigned>(__popc(streamscan::detail::keep_bits(src, x)));
  }
  // The last n mod W elements, one per thread of the first block.
  if (blockIdx.x == 0 && threadIdx.x < n - vectors * W) k += src.load_keep(vectors * W + threadIdx.x) ? 1u : 0u;
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) k += __shfl_xor_sync(0xffffffffu, k, d);
  if (threadIdx.x % 32 == 0 && k > 0) atomicAdd(count, k);
}

// What the pipelined kernel stages of a source (raw input pointers only,
// dispatch_select.cuh): the values of `in`, and for a flagged source its
// flags as the pipeline's side stream (a full tile's T flags; a partial
// tile reads its flags from memory). A predicate source's items are its
// staged values.
template <class Source, class = void>
struct select_staging {
  using value = std::remove_cv_t<std::remove_pointer_t<decltype(Source::in)>>;
  using flag = unsigned char;
  static constexpr bool flagged = false;
  static constexpr unsigned side_bytes(int) { return 0; }
};
template <class Source>
struct select_staging<Source, std::void_t<decltype(Source::flags)>> {
  using value = std::remove_cv_t<std::remove_pointer_t<decltype(Source::in)>>;
  using flag = std::remove_cv_t<std::remove_pointer_t<decltype(Source::flags)>>;
  static constexpr bool flagged = true;
  static constexpr unsigned side_bytes(int tile_items) { return static_cast<unsigned>(tile_items * sizeof(flag)); }
};
// The items at positions [first, first + W) of a staged tile (T positions
// at `base`, `valid` of them elements) from their staged values: a flagged
// source's flags come from the stage's side stream (`side`: a full tile's)
// or, in a partial tile, from memory. Shared by the pipelined select program
// and the outbox kernel.
template <int W, int T, class Source, class V, class I>
__device__ __forceinline__ void staged_items(const Source& src, const V (&v)[W], const unsigned char* side,
                                             std::int64_t base, int valid, int first, I (&it)[W]) {
  using staging = select_staging<Source>;
  if constexpr (staging::flagged) {
    using flag = typename staging::flag;
    flag f[W];
    if (valid == T) {
      streamscan::detail::load_values(reinterpret_cast<const flag*>(side), first, f);
    } else {
#pragma unroll
      for (int c = 0; c < W; ++c) f[c] = first + c < valid ? src.flags[base + first + c] : flag{};
    }
#pragma unroll
    for (int c = 0; c < W; ++c) it[c] = I{static_cast<bool>(f[c]) != src.invert, v[c]};
  } else {
#pragma unroll
    for (int c = 0; c < W; ++c) it[c] = v[c];
  }
}

// The pipeline's shape for a select Policy and Source.
template <class Policy, class Source>
using select_pipeline_shape = pipelined_shape<Policy, typename select_staging<Source>::value,
                                              select_staging<Source>::side_bytes(Policy::tile_items)>;

// Stable compaction, partition and split on the pipeline (pipeline.cuh,
// sm_90+): the reduce warps count each tile's selected elements and publish
// the count; the consumer warps classify their slice again (a predicate runs
// twice per element, against once in select_kernel), rank it by ballots and
// scatter it through their warp's staging buffer (agent_select).
template <class Shape, placement P, class Source, class C>
struct pipelined_select_program {
  static constexpr int W = Shape::width;
  static constexpr int T = Shape::tile_items;
  using staging = select_staging<Source>;
  using value = typename staging::value;
  using flag = typename staging::flag;
  using item = typename Source::item;
  using agg = C;
  static constexpr bool mirrored = false;
  static constexpr bool exact_combine = true;  // counts
  struct agent_policy {
    static constexpr int threads = 32 * Shape::scan_warps;
    static constexpr int vectors = Shape::rows;
    static constexpr int tile_items = T;
  };
  using agent_t = agent_select<agent_policy, Source>;
  static_assert(Source::vector_width == W, "the agent's vectors are the stage's");
  static_assert(staging::flagged || std::is_same_v<item, value>, "a predicate source's items are its values");
  using rows = typename agent_t::classified;
  const value* in;
  Source src;
  std::int64_t n, capacity;
  const std::int64_t* rejects_from;
  std::int64_t* num_selected;
  typename agent_t::temp_storage* storage;

  __device__ C combine(C a, C b) const { return a + b; }
  __device__ maybe<C> first_prefix() const { return {C(0), true}; }

  // The side stream (flagged sources): a full tile's flags; the dispatcher
  // checked that the flags are 16-byte aligned.
  __device__ unsigned side_bytes_of(const pipeline_tile& t) const {
    return t.valid == T ? Shape::side_bytes : 0u;
  }
  __device__ void side_copy(const pipeline_tile& t, unsigned char* dst, unsigned bytes, std::uint64_t* bar) const {
    if constexpr (staging::flagged) bulk_copy_to_shared(dst, src.flags + t.base, bytes, bar);
  }
  __device__ void side_store(const pipeline_tile&, unsigned char*) const {}
  __device__ void prepare_side(const pipeline_tile&, int) const {}

  // The items at tile positions [first, first + W) from their values.
  __device__ void to_items(const value (&v)[W], const pipeline_tile& t, int first, item (&it)[W]) const {
    staged_items<W, T>(src, v, t.side, t.base, t.valid, first, it);
  }
  template <class Full>
  __device__ C reduce(const value (&v)[W], const pipeline_tile& t, int first, Full) const {
    item it[W];
    to_items(v, t, first, it);  // a flagged source's values go unread here
    if constexpr (Full::value) return static_cast<C>(__popc(streamscan::detail::keep_bits(src, it)));
    unsigned k = 0;  // the predicate sees the tile's elements only
#pragma unroll
    for (int c = 0; c < W; ++c) k += (first + c < t.valid && src.keep(it[c])) ? 1u : 0u;
    return static_cast<C>(k);
  }
  __device__ void load(const value* stage, const pipeline_tile& t, int staged, const value& filler, int slice,
                       int lane, rows& r) const {
#pragma unroll
    for (int j = 0; j < Shape::rows; ++j) {
      const int first = slice + (32 * j + lane) * W;
      value v[W];
      load_row<W>(stage, in, t.base, staged, t.valid, filler, first, v);
      to_items(v, t, first, r.v[j]);
    }
    if (t.valid == T) agent_t::mark(src, T, r, std::true_type{});
    else agent_t::mark(src, t.valid, r);
  }
  __device__ void finish(rows& r, const pipeline_tile& t, int slice, int lane, const maybe<C>& before,
                         const maybe<C>& tile_prefix, const C& tile_total) const {
    if (t.last && slice == 0 && lane == 0 && num_selected != nullptr)
      *num_selected = static_cast<std::int64_t>(tile_prefix.value) + static_cast<std::int64_t>(tile_total);
    const std::int64_t from = P == placement::rejects_after ? *rejects_from : 0;
    agent_t agent(*storage);
    const auto kept_before = static_cast<std::int64_t>(before.value);
    // Full tiles (all but the last) without bounds checks: partition 1.98 ->
    // 1.60 warp instructions per element (H100, ncu source counters), though
    // no faster there: at full clocks the kernel is not issue-bound (issue
    // 40-50%, DRAM 72% of peak; docs/performance.md).
    if (t.valid == T) agent.template scatter<P>(src, t.base, T, r, kept_before, n, capacity, from, std::true_type{});
    else agent.template scatter<P>(src, t.base, t.valid, r, kept_before, n, capacity, from);
  }
};

template <class Policy, placement P, class Source, class C>
__global__ void __launch_bounds__(select_pipeline_shape<Policy, Source>::threads, 1)
    pipelined_select_kernel(Source src, std::int64_t n, std::int64_t capacity, const std::int64_t* rejects_from,
                            std::int64_t* num_selected, tile_status<C> status, unsigned long long* tile_counter) {
#if STREAMSCAN_BULK_COPY
  using shape = select_pipeline_shape<Policy, Source>;
  using program = pipelined_select_program<shape, P, Source, C>;
  __shared__ typename program::agent_t::temp_storage storage;
  program prog{src.in, src, n, capacity, rejects_from, num_selected, &storage};
  run_pipeline<shape>(prog, n, status, tile_counter);
#endif
}

// seed 002 fig. 4 and 9 share this: lane j ends holding subgroup j's ballot.
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

// Inclusive scan of one int per lane by shuffles (the CUDA samples' shfl scan the seed uses).
__device__ __forceinline__ unsigned warp_inclusive_count(unsigned cnt) {
  const int lane = static_cast<int>(threadIdx.x % 32);
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned t = __shfl_up_sync(0xffffffffu, cnt, d);
    if (lane >= d) cnt += t;
  }
  return cnt;
}

// Scatter of a group (seed 002 stage 4 / phase 3c): subgroup j's selected
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
                               const C* counter, std::int64_t* num_selected) {
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

// hybrid: stages 1-4 of seed 002 sec. 3.2 in one kernel; the items stay in
// registers. Kept as the seed wrote it: ballots specialised for full groups
// (all 32 loads before the first ballot), the capacity checked once a group,
// or both, cut its instructions by ~40% and each ran 13-17% slower at 5%
// kept (2^28 int32, H100: 0.58-0.59 against 0.50-0.51 ms; not faster at 50 or
// 95%; docs/results/seed002_ab_2026-11-25_h100.txt). multi_level's counting
// kernel gains 14-20% from the same ballots.
template <class Source>
__global__ void __launch_bounds__(128)
    hybrid_select_kernel(Source src, std::int64_t n, std::int64_t capacity, unsigned long long* counter) {
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
  if (total == 0) return;  // nothing to reserve (the seed adds 0)
  if (lane == 31) offset = atomicAdd(counter, static_cast<unsigned long long>(total));
  offset = __shfl_sync(0xffffffffu, offset, 31);
  scatter_group(src, base, votes, cnt, static_cast<std::int64_t>(offset), capacity, [&](int j) { return v[j]; });
}

// warp_atomic: one element per thread; the warp's leader reserves its slots.
template <class Source>
__global__ void __launch_bounds__(128)
    warp_atomic_select_kernel(Source src, std::int64_t n, std::int64_t capacity, unsigned long long* counter) {
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

// split_and_segment's scatter. With `before` = (trues, falses) before i in
// its segment and `after` = the same after i: a false element moves left past
// the trues before it, a true one right past the falses after it (seed 003
// 2.3.3; no segment start needed). An element heads its half of the segment
// when none of its kind precedes it.
template <class InIt, class FlagIt, class OutIt, class HeadOut, class C>
__global__ void split_and_segment_kernel(InIt in, FlagIt flags, OutIt out, HeadOut heads_out, std::int64_t n,
                                         const streamscan::detail::true_false_counts<C>* before,
                                         const streamscan::detail::true_false_counts<C>* after) {
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const auto b = before[i];
    const bool t = static_cast<bool>(flags[i]);
    const std::int64_t dest = t ? i + static_cast<std::int64_t>(after[i].falses) : i - static_cast<std::int64_t>(b.trues);
    out[dest] = in[i];
    heads_out[dest] = (t ? b.trues : b.falses) == 0;
  }
}

}  // namespace streamscan::cuda::detail
