// streamscan/cuda/agent/agent_select.cuh - the tile agent of the single-pass
// compaction, partition and split (stable; the look-back is the kernel's).
//
// A warp reads its slice of the tile with coalesced vector loads: load j of
// lane l covers slice elements [(32j + l) W, +W), W = the source's vector
// width (16 bytes' worth for raw pointers, else 1). Each load j is a "subgroup"
// of 32 W consecutive elements ([Compaction]'s subgroup when W = 1). The lane
// classifies its W elements (k of them selected, 0 <= k <= W), and the warp
// learns every lane's rank by ballots of k's bits ([BinaryPrefix],
// one ballot per bit): rank = sum_b 2^b popc(ballot_b & lanes below).
// The predicate runs once per element and nothing is read twice. To store
// coalesced, each warp stages one subgroup at a time in its own slice of
// shared memory (selected first, then rejected), then writes it out with
// consecutive lanes on consecutive slots: without it, lane l's W values land
// W slots apart per store instruction, and partial-sector writes cost L2
// bandwidth. Only one count per warp
// crosses the block; the staging needs no block barrier.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../detail/select_sources.hpp"
#include "../block/block_binary.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

// What the agent stages of a Source's item for the write-out: the Source's
// `staged` where it has one (select_sources.hpp), else the item.
template <class Source, class = void>
struct select_stage {
  using type = typename Source::item;
  __device__ static const type& of(const typename Source::item& x) { return x; }
  __device__ static void move(const Source& src, const type& x, std::int64_t i, std::int64_t d) { src.move(x, i, d); }
};
template <class Source>
struct select_stage<Source, std::void_t<typename Source::staged>> {
  using type = typename Source::staged;
  __device__ static type of(const typename Source::item& x) { return Source::stage(x); }
  __device__ static void move(const Source& src, const type& x, std::int64_t i, std::int64_t d) {
    src.move_staged(x, i, d);
  }
};

template <class Policy, class Source>
class agent_select {
 public:
  using item = typename Source::item;
  static constexpr int threads = Policy::threads;
  static constexpr int width = Source::vector_width;
  static constexpr int vectors = Policy::vectors;
  static constexpr int warp_items = 32 * vectors * width;
  static constexpr int tile_items = threads / 32 * warp_items;
  static_assert(threads % 32 == 0, "whole warps only");
  static_assert(Policy::tile_items == tile_items, "the policy's tile is the agent's");
  // Bits of a lane's count k in [0, W]: 1 for W = 1, 3 for W = 4, 5 for W = 16.
  static constexpr int count_bits = width >= 16 ? 5 : width >= 8 ? 4 : width >= 4 ? 3 : width >= 2 ? 2 : 1;
  static constexpr int subgroup = 32 * width;
  static constexpr bool moves_index = Source::moves_index;
  using block_counts = block_binary<threads>;
  struct temp_storage {
    typename block_counts::temp_storage counts;
    uninitialized<typename select_stage<Source>::type> staged[threads / 32][subgroup];
    int position[threads / 32][moves_index ? subgroup : 1];  // element offsets, for sources that move indices
  };

  // What classification leaves in registers: the items and which of the
  // lane's W are selected, per load.
  struct classified {
    item v[vectors][width];
    unsigned kept[vectors];
  };

  __device__ explicit agent_select(temp_storage& s) : s_(s) {}

  // Issues the reads of tile elements [0, valid) of the tile at `base`.
  __device__ static void load(const Source& src, std::int64_t base, int valid, classified& c) {
    const int first = warp_first();
    if (valid == tile_items) {  // all loads issued before any is used
#pragma unroll
      for (int j = 0; j < vectors; ++j) src.load_vector(base + first + 32 * width * j, c.v[j]);
    } else {
#pragma unroll
      for (int j = 0; j < vectors; ++j)
#pragma unroll
        for (int q = 0; q < width; ++q)
          if (first + 32 * width * j + q < valid) c.v[j][q] = src.load(base + first + 32 * width * j + q);
    }
  }

  // Marks which of the lane's loaded elements (of [0, valid)) are selected;
  // returns how many. No barrier. Full (std::true_type): valid is the whole
  // tile, known at compile time (no bounds checks).
  template <class Full = std::false_type>
  __device__ static unsigned mark(const Source& src, int valid, classified& c, Full = {}) {
    const int first = warp_first();
    unsigned lane_count = 0;
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      unsigned bits = 0;
      if (Full::value || valid == tile_items) {
        bits = streamscan::detail::keep_bits(src, c.v[j]);
      } else {  // the predicate sees loaded elements only
#pragma unroll
        for (int q = 0; q < width; ++q)
          if (first + 32 * width * j + q < valid && src.keep(c.v[j][q])) bits |= 1u << q;
      }
      c.kept[j] = bits;
      lane_count += static_cast<unsigned>(__popc(bits));
    }
    return lane_count;
  }

  // Classifies the loaded elements [0, valid) of a tile. Returns the number
  // selected in the tile before this warp; `tile_total` gets the tile's. One
  // block barrier.
  __device__ unsigned classify(const Source& src, int valid, classified& c, unsigned& tile_total) {
    unsigned lane_count = mark(src, valid, c);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const int warp_count = static_cast<int>(__reduce_add_sync(0xffffffffu, lane_count));
#else  // no warp-reduce instruction before sm_80
    for (int d = 16; d > 0; d >>= 1) lane_count += __shfl_xor_sync(0xffffffffu, lane_count, d);
    const int warp_count = static_cast<int>(lane_count);
#endif
    int total = 0;
    const int before = block_counts(s_.counts).warps_before(warp_count, true, total);
    tile_total = static_cast<unsigned>(total);
    return static_cast<unsigned>(before);
  }

  // Moves the tile's elements. `kept_before` is the number of selected
  // elements before this warp's slice (tile prefix + warps before). With
  // placement::compact only selected slots below `capacity` are written;
  // reversed_rejects puts the r-th rejected element at n-1-r, rejects_after
  // at rejects_from + r. Full: as for mark.
  template <streamscan::detail::placement P, class Full = std::false_type>
  __device__ void scatter(const Source& src, std::int64_t base, int valid, const classified& c,
                          std::int64_t kept_before, std::int64_t n, std::int64_t capacity,
                          std::int64_t rejects_from, Full = {}) {
    using streamscan::detail::placement;
    constexpr bool place_rejects = P == placement::reversed_rejects || P == placement::rejects_after;
    const int l = lane(), warp = static_cast<int>(threadIdx.x / 32);
    using stage = select_stage<Source>;
    uninitialized<typename stage::type>* staged = s_.staged[warp];
    int* position = s_.position[warp];
    std::int64_t run = kept_before;
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      const int start = warp * warp_items + j * subgroup;  // the subgroup's first element in the tile
      const int in_tile =
          Full::value || valid - start >= subgroup ? subgroup : (valid - start > 0 ? valid - start : 0);
      int total = 0;
      int selected = subgroup_rank(c.kept[j], total);  // selected in the subgroup before this lane's next
      // Stage: selected at [0, total), rejected after them, each in order.
#pragma unroll
      for (int q = 0; q < width; ++q) {
        const int at = l * width + q;  // in the subgroup
        int slot = -1;
        if ((c.kept[j] >> q) & 1u) slot = selected++;
        else if (place_rejects && at < in_tile) slot = total + (at - selected);
        if (slot >= 0) {
          staged[slot].get() = stage::of(c.v[j][q]);
          if constexpr (moves_index) position[slot] = at;
        }
      }
      __syncwarp();
      // Write out: consecutive lanes, consecutive slots; the selected slots
      // [0, total) to run + e, then the rejected ones to reject_base + e
      // (rejects_after) or reject_base - e (reversed_rejects). Fixed trip
      // counts, so each store is a base address and an immediate offset
      // (one loop choosing per slot cost ~13 instructions of 64-bit address
      // arithmetic per store; SASS, sm_90).
      const std::int64_t first = base + start;          // global index of the subgroup's first element
      const std::int64_t rejected_before = first - run;  // rejected elements before the subgroup
      const std::int64_t room = P == placement::compact ? capacity - run : std::int64_t{total};
      const int selected_end = room < total ? (room > 0 ? static_cast<int>(room) : 0) : total;
      constexpr int step = P == placement::reversed_rejects ? -1 : 1;
      const std::int64_t reject_base = P == placement::reversed_rejects ? n - 1 - rejected_before + total
                                                                        : rejects_from + rejected_before - total;
      if (place_rejects && Full::value) {
        // Every slot holds an element: one pass over the slots, each to its
        // selected or rejected place (half the stores and bounds checks of
        // the two passes below).
#pragma unroll
        for (int k = 0; k < subgroup / 32; ++k) {
          // Two stores of fixed address, one predicated off: cheaper than
          // choosing a 64-bit destination per slot.
          const int e = l + 32 * k;
          const std::int64_t from = first + (moves_index ? position[e] : 0);
          if (e < total) stage::move(src, staged[e].get(), from, run + e);
          else stage::move(src, staged[e].get(), from, reject_base + step * e);
        }
      } else {
#pragma unroll
        for (int k = 0; k < subgroup / 32; ++k) {
          const int e = l + 32 * k;
          if (e < selected_end) stage::move(src, staged[e].get(), first + (moves_index ? position[e] : 0), run + e);
        }
        if constexpr (place_rejects) {
#pragma unroll
          for (int k = 0; k < subgroup / 32; ++k) {
            const int e = total + l + 32 * k;
            if (e < in_tile)
              stage::move(src, staged[e].get(), first + (moves_index ? position[e] : 0), reject_base + step * e);
          }
        }
      }
      __syncwarp();
      run += total;
    }
  }

  // The rank of this lane's selected elements among the subgroup's (those of
  // lanes below it), by one ballot per bit of its count; `total` gets the
  // subgroup's count.
  __device__ static int subgroup_rank(unsigned kept_bits, int& total) {
    const unsigned k = static_cast<unsigned>(__popc(kept_bits));
    const unsigned below = (1u << lane()) - 1u;
    int rank = 0;
    total = 0;
#pragma unroll
    for (int b = 0; b < count_bits; ++b) {
      const unsigned m = __ballot_sync(0xffffffffu, (k >> b) & 1u);
      rank += __popc(m & below) << b;
      total += __popc(m) << b;
    }
    return rank;
  }

 private:
  __device__ static int lane() { return static_cast<int>(threadIdx.x % 32); }
  // The lane's first element in the tile.
  __device__ static int warp_first() { return static_cast<int>(threadIdx.x / 32) * warp_items + lane() * width; }
  temp_storage& s_;
};

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

}  // namespace streamscan::cuda::detail
