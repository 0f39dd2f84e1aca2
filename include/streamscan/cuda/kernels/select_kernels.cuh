// streamscan/cuda/kernels/select_kernels.cuh - the kernels of compaction,
// partition and split.
//
//  * select_kernel: stable and single pass. Each block takes the next tile id
//    from a counter, classifies its tile (agent_select), learns how many
//    elements the tiles before it selected through the decoupled look-back,
//    and scatters from registers.
//  * pipelined_select_kernel: the same on the warp-specialised pipeline
//    (sm_90+, agent_pipeline.cuh): persistent blocks, tiles streamed into shared
//    memory while earlier ones look back (with their flags, for flagged
//    sources).
//  * count_selected_kernel: the counting pass of stable_partition and split.
//  * split_and_segment_kernel: split_and_segment's scatter.
// The kernels of "Efficient Algorithms for Stream Compaction on GPUs" are in
// compaction_paper_kernels.cuh.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../detail/select_sources.hpp"
#include "../../operators.hpp"
#include "../agent/agent_select.cuh"
#include "../agent/tile_id.cuh"
#include "../agent/tile_prefix.cuh"
#include "../agent/tile_status.cuh"
#include "../agent/agent_pipeline.cuh"
#include "../util/gate.cuh"

namespace streamscan::cuda::detail {

using streamscan::detail::placement;

// Stable single-pass kernel. C counts selected elements (32-bit below 2^32
// elements, so the look-back packs count and flag in one word). The last
// tile writes the total to *num_selected (if not null). With `in_place` (out aliases the
// input) fences order every tile's reads before its status word and its
// writes after its predecessors' status words: a tile writes only at or below
// its own elements' positions, into tiles that have already read theirs.
// A shut `gate` (util/gate.cuh) makes every block return before it takes a
// tile: nothing is written, num_selected neither.
template <class Policy, placement P, class Source, class C>
__global__ void __launch_bounds__(Policy::threads)
    select_kernel(Source src, std::int64_t n, std::int64_t capacity, const std::int64_t* rejects_from,
                  std::int64_t* num_selected, tile_status<C> status, unsigned long long* tile_counter, bool in_place,
                  const std::uint32_t* gate) {
  if (gate_shut(gate)) return;
  using agent_t = agent_select<Policy, Source>;
  using prefix_op_t = tile_prefix_op<C, streamscan::plus, look_back_kind::decoupled,
                                     streamscan::is_exactly_associative<streamscan::plus, C>::value, 1,
                                     Policy::look_back_sleep_ns>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ typename prefix_op_t::temp_storage prefix_storage;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage);
  typename agent_t::classified c;
  unsigned tile_total = 0;
  agent.load(src, t.base, t.valid, c);
  const unsigned warp_before = agent.classify(src, t.valid, c, tile_total);
  if (in_place && threadIdx.x == 0) __threadfence();
  streamscan::plus op;
  const maybe<C> prefix =
      prefix_op_t{status, maybe<C>{C(0), true}, op}(t, static_cast<C>(tile_total), prefix_storage);
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
// select_kernel, bound by its tile-order latency, was a third of
// stable_partition's time.
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

// The pipeline's shape for a select Policy and Source.
template <class Policy, class Source>
using select_pipeline_shape = pipelined_shape<Policy, typename select_staging<Source>::value,
                                              select_staging<Source>::side_bytes(Policy::tile_items)>;

// Stable compaction, partition and split on the pipeline (agent_pipeline.cuh,
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
  static constexpr bool tree_look_back = true;  // counts: faster than the grouped walk here
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
    // Full tiles (all but the last) without bounds checks: a fifth fewer
    // instructions per element, though no faster (the kernel is not
    // issue-bound).
    if (t.valid == T) agent.template scatter<P>(src, t.base, T, r, kept_before, n, capacity, from, std::true_type{});
    else agent.template scatter<P>(src, t.base, t.valid, r, kept_before, n, capacity, from);
  }
};

template <class Policy, placement P, class Source, class C>
__global__ void __launch_bounds__(select_pipeline_shape<Policy, Source>::threads, 1)
    pipelined_select_kernel(Source src, std::int64_t n, std::int64_t capacity, const std::int64_t* rejects_from,
                            std::int64_t* num_selected, tile_status<C> status, unsigned long long* tile_counter,
                            const std::uint32_t* gate) {
#if STREAMSCAN_BULK_COPY
  if (gate_shut(gate)) return;
  using shape = select_pipeline_shape<Policy, Source>;
  using program = pipelined_select_program<shape, P, Source, C>;
  using agent_t = agent_pipeline<shape, program>;
  __shared__ typename program::agent_t::temp_storage storage;
  __shared__ typename agent_t::temp_storage pipeline_storage;
  program prog{src.in, src, n, capacity, rejects_from, num_selected, &storage};
  agent_t(pipeline_storage, prog, n, status, tile_counter).run();
#endif
}

// split_and_segment's scatter. With `before` = (trues, falses) before i in
// its segment and `after` = the same after i: a false element moves left past
// the trues before it, a true one right past the falses after it ([ScanPrimitives]
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
