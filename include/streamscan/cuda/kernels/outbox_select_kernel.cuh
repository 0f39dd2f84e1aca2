// streamscan/cuda/kernels/outbox_select_kernel.cuh - stable compaction on a
// pipeline whose tiles give their shared-memory stage back before their
// prefix is known (sm_90+).
//
// In the shared pipeline (agent_pipeline.cuh) a tile holds its stage from
// the bulk copy until its consumers have scattered it, and most of that time
// is spent waiting for the look-back: a tile held its stage several times
// longer than its copy took, so only a few of the stages were loading at any
// time and compaction at low fractions kept read its input well below
// memcpy's rate. Here the stage is only a landing place:
//
//   producer (1 lane)    claims a tile id, has the copy engine stream the
//                        tile into a free stage                   -> full
//   pack warps           classify their slice from the stage, give it back
//                        (-> empty), count the tile's selected elements
//                        together (one named barrier), publish the tile's
//                        aggregate (tile_prefix_op), and write the selected values, in
//                        order, into the outbox: a ring of shared memory
//                        holding only what must still be written -> packed
//   look-back warps      the tile's exclusive prefix (tile_prefix_op's
//                        resolve), published as P                  -> prefixed
//   drain warps          copy the tile's outbox run to out[prefix ...] with
//                        consecutive lanes on consecutive slots    -> drained
//
// A tile then waits for its prefix in the outbox, which holds 4 bytes per
// selected int32: at 5% kept the default 128 KB ring holds the selections of
// ~80 tiles of 8192, and the stages keep streaming, close to memcpy's rate
// at every fraction kept. Tiles go round the stages, records and ring in
// claim order; every ring and record slot is reused only after the drain
// of what it held (the drained barriers). Ids come from a counter in
// increasing order per block, and a tile only waits for smaller ids held by
// running blocks: no deadlock, whatever the grid.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../operators.hpp"
#include "../agent/agent_pipeline.cuh"
#include "../agent/agent_select.cuh"
#include "../agent/tile_prefix.cuh"
#include "../agent/tile_status.cuh"
#include "../util/bulk_copy.cuh"
#include "../util/gate.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

// Shape of an outbox kernel under Policy (threads: pack threads; rows:
// 16-byte rows per pack lane; stages; outbox_bytes: the ring; records: tiles
// between packing and drained; look_back_warps, look_back_windows,
// drain_warps) for a Source: values of a raw pointer, classified by a
// predicate or by flags of a raw pointer (select_staging; the stage then
// also lands a full tile's flags). The ring holds what the drain writes (the
// value: select_stage).
template <class Policy, class Source>
struct outbox_shape {
  using staging = select_staging<Source>;
  using A = typename staging::value;
  using staged = typename select_stage<Source>::type;
  static constexpr int width = static_cast<int>(16 / sizeof(A));
  static constexpr int pack_warps = Policy::threads / 32;
  static constexpr int rows = Policy::rows;
  static constexpr int stages = Policy::stages;
  static constexpr int slice_items = 32 * rows * width;
  static constexpr int tile_items = pack_warps * slice_items;
  static constexpr unsigned tile_bytes = static_cast<unsigned>(sizeof(A)) * tile_items;
  static constexpr unsigned side_bytes = staging::side_bytes(tile_items);  // the flags of a full tile
  static constexpr unsigned ring_items = Policy::outbox_bytes / static_cast<unsigned>(sizeof(staged));
  static constexpr int records = Policy::records;
  static constexpr int look_back_warps = Policy::look_back_warps;
  static constexpr int drain_warps = Policy::drain_warps;
  static constexpr int producer_warp = pack_warps, first_look_back_warp = pack_warps + 1;
  static constexpr int first_drain_warp = first_look_back_warp + look_back_warps;
  static constexpr int threads = 32 * (first_drain_warp + drain_warps);
  static constexpr std::size_t dynamic_shared_bytes = std::size_t{stages} * (tile_bytes + side_bytes) + Policy::outbox_bytes;
  static_assert(side_bytes % 16 == 0 && tile_bytes % 16 == 0, "stages of whole 16-byte vectors");
  static_assert((ring_items & (ring_items - 1)) == 0 && ring_items >= static_cast<unsigned>(tile_items),
                "the ring: a power of two of values (offsets run modulo 2^32), at least a tile");
  static_assert((records & (records - 1)) == 0 && records % look_back_warps == 0,
                "records: a power of two the look-back warps split evenly (each waits on its own slots' phases)");
  static_assert(pack_warps <= 32, "one lane per pack warp in the count exchange");
};

// The tile agent's view of a pack warp's slice (its classification and ranks).
template <class Shape>
struct outbox_agent_policy {
  static constexpr int threads = 32 * Shape::pack_warps;
  static constexpr int vectors = Shape::rows;
  static constexpr int tile_items = Shape::tile_items;
};

template <class Policy, class Source, class C>
__global__ void __launch_bounds__(outbox_shape<Policy, Source>::threads, 1)
    outbox_select_kernel(Source src, std::int64_t n, std::int64_t capacity, std::int64_t* num_selected,
                         tile_status<C> status, unsigned long long* tile_counter, const std::uint32_t* gate) {
#if STREAMSCAN_BULK_COPY
  if (gate_shut(gate)) return;  // util/gate.cuh: nothing written
  using shape = outbox_shape<Policy, Source>;
  using A = typename shape::A;
  using staging = typename shape::staging;
  using stage_of = select_stage<Source>;
  using staged = typename shape::staged;
  static_assert((staging::flagged || std::is_same_v<typename Source::item, A>) && !Source::moves_index,
                "a predicate on the staged values, or flags beside them");
  constexpr int W = shape::width, PW = shape::pack_warps, S = shape::stages, T = shape::tile_items;
  constexpr int Q = shape::records;
  constexpr unsigned ring_mask = shape::ring_items - 1;
  using agent_t = agent_select<outbox_agent_policy<shape>, Source>;
  struct record {
    std::int64_t tile;
    unsigned total;  // selected in the tile
    unsigned off;    // the ring offset of its first (running, modulo 2^32)
    uninitialized<C> prefix;
  };
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  __shared__ std::int64_t stage_tile[S];
  __shared__ record rec[Q];
  // The stage ring (full, empty) and the record ring (packed, prefixed,
  // drained): each barrier completes once per use of its slot.
  __shared__ barrier_ring<S> full, empty;
  __shared__ barrier_ring<Q> packed, prefixed, drained;
  __shared__ unsigned warp_counts[2][PW];
  __shared__ stream_end end_of_stream;  // announced by the pack warps when they meet the id past the end
  A* const stage_values = reinterpret_cast<A*>(shared_bytes);
  unsigned char* const stage_sides = shared_bytes + std::size_t{S} * shape::tile_bytes;
  staged* const ring = reinterpret_cast<staged*>(shared_bytes + std::size_t{S} * (shape::tile_bytes + shape::side_bytes));
  const std::int64_t tiles = (n + T - 1) / T;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  if (threadIdx.x == 0) {
    full.init(1);
    empty.init(32 * PW);
    packed.init(32 * PW);
    prefixed.init(32);
    drained.init(32 * shape::drain_warps);
    mbarrier_init_fence();
    end_of_stream.init();
  }
  __syncthreads();
  auto valid_of = [&](std::int64_t tile) {
    const std::int64_t left = n - tile * T;
    return left < T ? static_cast<int>(left) : T;
  };
  // Pack warps publish each tile's count, look-back warps its prefix.
  streamscan::plus op;
  const tile_prefix_op<C, streamscan::plus, look_back_kind::decoupled,
                       streamscan::is_exactly_associative<streamscan::plus, C>::value, Policy::look_back_windows,
                       Policy::look_back_sleep_ns>
      prefix_op{status, maybe<C>{C(0), true}, op};

  if (warp == shape::producer_warp) {
    if (lane != 0) return;
    produce_tiles(empty, tile_counter, tiles, [&](std::int64_t tile, int s) {
      stage_tile[s] = tile;
      const unsigned bytes = tile < tiles ? static_cast<unsigned>(sizeof(A)) * (valid_of(tile) / W * W) : 0u;
      // A full tile's flags come too (a partial tile's are read from memory).
      const unsigned side = tile < tiles && valid_of(tile) == T ? shape::side_bytes : 0u;
      start_stage_copy(&full.bar[s], stage_values + s * T, src.in + tile * T, bytes, side, [&](std::uint64_t* bar) {
        if constexpr (staging::flagged)
          bulk_copy_to_shared(stage_sides + s * shape::side_bytes, src.flags + tile * T, side, bar);
      });
    });
    return;
  }

  if (warp >= shape::first_look_back_warp && warp < shape::first_drain_warp) {
    look_back_tiles(
        prefix_op, packed, prefixed, end_of_stream, warp - shape::first_look_back_warp, shape::look_back_warps, tiles,
        [&](std::int64_t round) { return rec[barrier_ring<Q>::slot(round)].tile; },
        [&](std::int64_t round) { return static_cast<C>(rec[barrier_ring<Q>::slot(round)].total); },
        [&](std::int64_t round, const maybe<C>& prefix) { rec[barrier_ring<Q>::slot(round)].prefix.get() = prefix.value; });
    return;
  }

  if (warp >= shape::first_drain_warp) {
    const int d = static_cast<int>(threadIdx.x) - 32 * shape::first_drain_warp;
    constexpr int D = 32 * shape::drain_warps;
    for (std::int64_t round = 0;; ++round) {
      const int q = static_cast<int>(round % Q);
      if (!end_of_stream.wait_unless_ended(prefixed, round)) return;
      const record& r = rec[q];
      const auto prefix = static_cast<std::int64_t>(r.prefix.get());
      const int total = static_cast<int>(r.total);
      if (r.tile + 1 == tiles && d == 0 && num_selected != nullptr) *num_selected = prefix + total;
      const std::int64_t room = capacity - prefix;
      const int end = room < total ? (room > 0 ? static_cast<int>(room) : 0) : total;
      auto at = [&](int i) { return ring[(r.off + static_cast<unsigned>(i)) & ring_mask]; };
      if constexpr (std::is_same_v<decltype(Source::out), staged*> && 16 % sizeof(staged) == 0) {
        // Whole 16-byte vectors where the output is aligned for them (no
        // partial sectors, a quarter of the store instructions), single
        // values before and after.
        staged* const out = src.out + prefix;
        const auto misaligned = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) % 16 / sizeof(staged));
        const int head = misaligned == 0 ? 0 : (W - misaligned < end ? W - misaligned : end);
        const int vectors = (end - head) / W;
        if (d < head) out[d] = at(d);
        for (int v = d; v < vectors; v += D) {
          vector_of<staged, W> x;
#pragma unroll
          for (int c = 0; c < W; ++c) x.x[c] = at(head + v * W + c);
          uint4 bits;
          memcpy(&bits, &x, 16);
          __stwb(reinterpret_cast<uint4*>(out + head + v * W), bits);
        }
        for (int i = head + vectors * W + d; i < end; i += D) out[i] = at(i);
      } else {  // another output type: one converted value at a time
        for (int i = d; i < end; i += D) stage_of::move(src, at(i), 0, prefix + i);
      }
      mbarrier_arrive(&drained.bar[q]);
    }
  }

  // Pack warps: warp w owns slice w of every tile.
  unsigned off = 0;         // ring offset of this round's first selected value
  int drained_through = -1;  // the newest round known drained
  const int slice = warp * shape::slice_items;
  for (std::int64_t round = 0;; ++round) {
    // The pack warps' steps for a tile are one dependent chain that all of
    // them walk together (a barrier per tile), and at low fractions that
    // chain, not memory, sets the pace: its indices and the ring-room
    // check in 32 bits (a block runs far fewer than 2^31 rounds) and the
    // warps' counts summed by two reductions instead of a 5-step shuffle
    // scan made low fractions faster (fewer instructions with a longer chain
    // ran slower). Keep this instruction sequence as it is.
    const auto r32 = static_cast<unsigned>(round);
    const int s = static_cast<int>(r32 % S), q = static_cast<int>(r32 % Q);
    mbarrier_wait(&full.bar[s], (r32 / S) & 1u);
    const std::int64_t tile = stage_tile[s];
    if (tile >= tiles) {
      if (threadIdx.x == 0) end_of_stream.announce(round);
      return;
    }
    const std::int64_t base = tile * T;
    const int valid = valid_of(tile), landed = valid / W * W;
    const A* stage = stage_values + s * T;
    typename agent_t::classified c;
#pragma unroll
    for (int j = 0; j < shape::rows; ++j) {
      const int first = slice + (32 * j + lane) * W;
      A v[W];
      if (valid == T) load_row<W, true>(stage, src.in, base, landed, valid, A{}, first, v);
      else load_row<W>(stage, src.in, base, landed, valid, A{}, first, v);
      staged_items<W, T>(src, v, stage_sides + s * shape::side_bytes, base, valid, first, c.v[j]);
    }
    mbarrier_arrive(&empty.bar[s]);  // this lane has read the stage
    const unsigned lane_count =
        valid == T ? agent_t::mark(src, T, c, std::true_type{}) : agent_t::mark(src, valid, c);
    const unsigned warp_count = __reduce_add_sync(0xffffffffu, lane_count);
    if (lane == 0) warp_counts[r32 & 1][warp] = warp_count;
    asm volatile("bar.sync 1, %0;" ::"r"(32 * PW) : "memory");
    // Selected in the warps before this one, and in the tile.
    const unsigned x = lane < PW ? warp_counts[r32 & 1][lane] : 0u;
    const unsigned total = __reduce_add_sync(0xffffffffu, x);
    const unsigned before = __reduce_add_sync(0xffffffffu, lane < warp ? x : 0u);
    if (threadIdx.x == 0) prefix_op.publish_aggregate(tile, tile + 1 >= tiles, static_cast<C>(total));
    // Room: record q was last used by round - Q, and the ring slots this
    // round takes held the values of rounds whose runs start before
    // off + total - ring; each must have been drained (in round order).
    const unsigned reuse_end = off + total - shape::ring_items;
    const int r = static_cast<int>(r32);
    while (drained_through < r - Q ||
           (drained_through + 1 < r &&
            static_cast<int>(rec[static_cast<unsigned>(drained_through + 1) % Q].off - reuse_end) < 0)) {
      ++drained_through;
      mbarrier_wait(&drained.bar[static_cast<unsigned>(drained_through) % Q],
                    (static_cast<unsigned>(drained_through) / Q) & 1u);
    }
    if (threadIdx.x == 0) {
      rec[q].tile = tile;
      rec[q].total = total;
      rec[q].off = off;
    }
    unsigned at = off + before;
#pragma unroll
    for (int j = 0; j < shape::rows; ++j) {
      int row_total = 0;
      unsigned rank = static_cast<unsigned>(agent_t::subgroup_rank(c.kept[j], row_total));
#pragma unroll
      for (int k = 0; k < W; ++k)
        if ((c.kept[j] >> k) & 1u) ring[(at + rank++) & ring_mask] = stage_of::of(c.v[j][k]);
      at += static_cast<unsigned>(row_total);
    }
    mbarrier_arrive(&packed.bar[q]);
    off += total;
  }
#endif
}

}  // namespace streamscan::cuda::detail
