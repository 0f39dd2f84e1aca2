// streamscan/cuda/kernels/pipelined_segmented_scan_kernel.cuh - the
// segmented (and backward) scan over head bits on the warp-specialised
// pipeline (agent_pipeline.cuh, sm_90+).
//
// The program: the copy engine stages values and, as the pipeline's side
// stream, the tile's head words (one per 32 values). Read from global memory
// instead, the reduce warps waited for a DRAM miss every 8 vectors and the
// kernel ran far slower than the one-tile one.
// A vector's aggregate is the (value, any head) pair of its slots, init
// folded in at heads; the look-back carries
// pairs (segmented_op). A consumer warp rescans its slice with
// warp_segmented_scan_slice, joins the aggregate of everything before the
// slice to the slots no head closes, and stores through segmented_tile_io.
// Backward scans mirror the tiles (the pipeline's `mirrored`): the first tile
// in scan order is the partial one, its filler slots come before scan
// position 0, which is a head, so they never reach a published aggregate.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../detail/segmented_scan.hpp"
#include "../agent/agent_pipeline.cuh"
#include "../agent/agent_scan.cuh"
#include "../agent/segmented_tile_io.cuh"
#include "../agent/segmented_tile_status.cuh"
#include "../agent/tile_status.cuh"
#include "../util/bulk_copy.cuh"
#include "../warp/warp_segmented_slice_scan.cuh"
#include "../warp/warp_slice_scan.cuh"

namespace streamscan::cuda::detail {

template <class Shape, class IO, class Op>
struct pipelined_segmented_program {
  static constexpr int W = Shape::width, R = Shape::rows, T = Shape::tile_items;
  static_assert(IO::width == W, "the IO's vectors are the stage's");
  using V = typename IO::value_type;
  using value = V;
  using agg = streamscan::detail::seg_pair<V>;
  using mask_t = slice_slot_mask<R, W>;
  static constexpr int tile_words = T / 32;  // head words of a full tile
  static_assert(T % 128 == 0, "a full tile's head words are whole 16-byte units");
  static constexpr bool mirrored = IO::backward;
  static constexpr bool tree_look_back =
      streamscan::is_exactly_associative<streamscan::detail::segmented_op<Op>, agg>::value;
  struct rows {
    V v[R][W];
    typename IO::vector_meta meta[R];
    mask_t closed;
  };
  const V* in;
  IO io;
  std::int64_t lead;  // filler slots before scan position 0 (backward)
  maybe<agg> init;
  scan_mode mode;
  Op op;

  __device__ agg combine(const agg& a, const agg& b) { return streamscan::detail::segmented_op<Op>{op}(a, b); }
  __device__ maybe<agg> first_prefix() const { return init; }
  // Scan position of slot 0 of tile t (negative only in a backward scan's
  // first tile, whose leading slots are fillers).
  __device__ std::int64_t scan_base(const pipeline_tile& t) const { return t.tile * T - lead; }
  __device__ bool whole(const pipeline_tile& t) const { return t.valid == T; }

  // The side stream: a full tile's head words (partial tiles read theirs
  // from memory); the dispatcher checked that the words are 16-byte aligned.
  // Backward also stages word T / 32, the one holding the flag one past the
  // tile (the first of the next memory tile's words), so that tile_heads
  // reads no global memory: copied with the 16 bytes that start there where
  // they lie within the flag words, else stored by the producer (at most
  // one tile a scan: the last full one in memory).
  static constexpr int past_words = mirrored ? 4 : 0;
  __device__ bool past_copied(const pipeline_tile& t) const {
    return mirrored && (t.base + T) / 32 + past_words <= (io.heads.n + 31) / 32;
  }
  __device__ unsigned side_bytes_of(const pipeline_tile& t) const {
    return whole(t) ? (tile_words + (past_copied(t) ? past_words : 0)) * 4u : 0u;
  }
  __device__ void side_copy(const pipeline_tile& t, unsigned char* dst, unsigned bytes, std::uint64_t* bar) const {
    bulk_copy_to_shared(dst, io.heads.bits + t.base / 32, bytes, bar);
  }
  __device__ void side_store(const pipeline_tile& t, unsigned char* dst) const {
    if constexpr (mirrored) {
      if (whole(t) && !past_copied(t)) {
        const std::int64_t above = t.base + T;  // none past n
        reinterpret_cast<std::uint32_t*>(dst)[tile_words] = above < io.heads.n ? io.heads.bits[above / 32] : 0u;
        fence_proxy_async_shared();  // the copy engine refills this word in a later round
      }
    }
  }
  // Backward, the reduce warp first rewrites a full tile's staged words in
  // scan order: word j's bit b becomes the head bit of scan position
  // 32 j + b, the flag of the element after its own (elements T - 32 j - b,
  // the last of them one past the tile when j == 0). tile_heads is then the
  // forward one in both directions: one shared load and a shift a vector
  // instead of two loads, a funnel shift and a bit reversal in every reduce
  // and consumer step.
  __device__ void prepare_side(const pipeline_tile& t, int lane) const {
    if constexpr (mirrored) {
      if (!whole(t)) return;
      auto* words = reinterpret_cast<std::uint32_t*>(t.side);
      constexpr int per_lane = (tile_words + 31) / 32;
      std::uint32_t g[per_lane];
#pragma unroll
      for (int i = 0; i < per_lane; ++i) {
        const int j = lane + 32 * i, w = tile_words - 1 - j;
        g[i] = j < tile_words ? __brev(__funnelshift_r(words[w], words[w + 1], 1)) : 0u;
      }
      __syncwarp();  // every word read before any is overwritten
#pragma unroll
      for (int i = 0; i < per_lane; ++i)
        if (lane + 32 * i < tile_words) words[lane + 32 * i] = g[i];
      fence_proxy_async_shared();  // the copy engine refills these words in a later round
      __syncwarp();
    }
  }
  // Heads of scan positions [first, first + W) of a full tile t, from its
  // staged words (in scan order, prepare_side), in 32-bit in-tile arithmetic
  // (the reduce warps run this once per vector; with 64-bit positions and a
  // bounds branch it cost 43 instructions a vector and the reduce warps held
  // the pipeline back).
  __device__ std::uint32_t tile_heads(const pipeline_tile& t, int first) const {
    const auto* words = reinterpret_cast<const std::uint32_t*>(t.side);
    const std::uint32_t h = (words[first >> 5] >> (first & 31)) & IO::all_slots;
    // Scan position 0 is a head: in tile 0, at in-tile position `lead`.
    return t.tile == 0 && first == static_cast<int>(lead) ? h | 1u : h;
  }

  // Folds init into the values at heads (h: the vector's head bits).
  __device__ void fold(V (&v)[W], std::uint32_t h) const {
#pragma unroll
    for (int c = 0; c < W; ++c) v[c] = io.fold(v[c], ((h >> c) & 1u) != 0);
  }

  template <class Full>
  __device__ agg reduce(const V (&v)[W], const pipeline_tile& t, int first, Full) {
    std::uint32_t h;
    if constexpr (Full::value) h = tile_heads(t, first);
    else h = io.head_run_clipped(scan_base(t) + first);
    V x = io.fold(v[0], (h & 1u) != 0);
#pragma unroll
    for (int c = 1; c < W; ++c) {
      const V y = io.fold(v[c], ((h >> c) & 1u) != 0);
      const V joined = op(x, y);
      x = (h >> c) & 1u ? y : joined;
    }
    return agg{x, h != 0};
  }

  // Full tiles and the partial one in separate loops: a branch per row keeps
  // the compiler from overlapping the rows.
  __device__ void load(const V* stage, const pipeline_tile& t, int staged, const V& filler, int slice, int lane,
                       rows& r) {
    auto rows_of = [&](auto full) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        const int first = slice + (32 * k + lane) * W;
        load_scan_row<W, T, mirrored, decltype(full)::value>(stage, in, t, staged, filler, first, r.v[k]);
        if constexpr (decltype(full)::value) r.meta[k].heads = tile_heads(t, first);
        else r.meta[k].heads = io.head_run_clipped(scan_base(t) + first);
        fold(r.v[k], r.meta[k].heads);
      }
    };
    if (whole(t)) rows_of(std::true_type{});
    else rows_of(std::false_type{});
    warp_segmented_scan_slice(r.v, [&](int k) { return r.meta[k].heads; }, r.closed, op, lane);
  }

  __device__ void finish(rows& r, const pipeline_tile& t, int slice, int lane, const maybe<agg>& before,
                         const maybe<agg>&, const agg&) {
    if (before.present) warp_segmented_prefix_slice(r.v, r.closed, before.value.value, op);
    if (mode == scan_mode::exclusive) warp_shift_slice_right(r.v, before.value.value, lane);
    const std::int64_t base = scan_base(t);
    if (whole(t)) {
#pragma unroll
      for (int k = 0; k < R; ++k) io.store(base, slice + (32 * k + lane) * W, r.v[k], r.meta[k]);
    } else {
#pragma unroll
      for (int k = 0; k < R; ++k)
#pragma unroll
        for (int c = 0; c < W; ++c) {
          const int s = slice + (32 * k + lane) * W + c;
          if (base + s >= 0 && base + s < io.heads.n) io.store_one(base, s, r.v[k][c], r.meta[k], c);
        }
    }
  }
};

// The pipeline's shape with room for a tile's head words per stage, and 16
// bytes more for the word one past a backward tile.
template <class Policy, class V>
using pipelined_segmented_shape =
    pipelined_shape<Policy, V, static_cast<unsigned>(pipelined_shape<Policy, V>::tile_items / 8 + 16)>;

template <class Policy, class IO, class Op>
__global__ void __launch_bounds__(pipelined_segmented_shape<Policy, typename IO::value_type>::threads, 1)
    pipelined_segmented_scan_kernel(IO io, std::int64_t n, std::int64_t lead,
                                    tile_status<streamscan::detail::seg_pair<typename IO::value_type>> status,
                                    unsigned long long* tile_counter,
                                    maybe<streamscan::detail::seg_pair<typename IO::value_type>> init, scan_mode mode,
                                    Op op) {
#if STREAMSCAN_BULK_COPY
  using shape = pipelined_segmented_shape<Policy, typename IO::value_type>;
  using program = pipelined_segmented_program<shape, IO, Op>;
  using agent_t = agent_pipeline<shape, program>;
  __shared__ typename agent_t::temp_storage storage;
  program prog{io.in, io, lead, init, mode, op};
  agent_t(storage, prog, n, status, tile_counter).run();
#endif
}

}  // namespace streamscan::cuda::detail
