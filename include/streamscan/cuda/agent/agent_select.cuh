// streamscan/cuda/agent/agent_select.cuh - the tile agent of the single-pass
// compaction, partition and split (stable; the look-back is the kernel's).
//
// A warp reads its slice of the tile with coalesced vector loads: load j of
// lane l covers slice elements [(32j + l) W, +W), W = the source's vector
// width (16 bytes' worth for raw pointers, else 1). Each load j is a "subgroup"
// of 32 W consecutive elements (seed 002's subgroup when W = 1). The lane
// classifies its W elements (k of them selected, 0 <= k <= W), and the warp
// learns every lane's rank by ballots of k's bits (seed 004's binary prefix
// sums, one ballot per bit): rank = sum_b 2^b popc(ballot_b & lanes below).
// The ballots stay in registers, the predicate runs once per element, values
// are written from registers (nothing is read twice), and each subgroup's
// selected elements land in consecutive output slots, so stores coalesce
// without a shared-memory exchange. Only one count per warp crosses the block.
#pragma once

#include <cstdint>

#include "../../detail/select_sources.hpp"
#include "../block/block_binary.cuh"

namespace streamscan::cuda::detail {

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
  using block_counts = block_binary<threads>;
  using temp_storage = typename block_counts::temp_storage;

  // What classification leaves in registers: the items, which of the lane's
  // W are selected, and the ballots of the lanes' count bits, per load.
  struct classified {
    item v[vectors][width];
    unsigned kept[vectors];
    unsigned votes[vectors][count_bits];
  };

  __device__ explicit agent_select(temp_storage& s) : s_(s) {}

  // Reads and classifies tile elements [0, valid) of the tile at `base`.
  // Returns the number selected in the tile before this warp; `tile_total`
  // gets the tile's.
  __device__ unsigned classify(const Source& src, std::int64_t base, int valid, classified& c, unsigned& tile_total) {
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
    int warp_count = 0;
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      unsigned bits = 0;
#pragma unroll
      for (int q = 0; q < width; ++q)
        if ((valid == tile_items || first + 32 * width * j + q < valid) && src.keep(c.v[j][q])) bits |= 1u << q;
      c.kept[j] = bits;
      const unsigned k = static_cast<unsigned>(__popc(bits));
#pragma unroll
      for (int b = 0; b < count_bits; ++b) {
        c.votes[j][b] = __ballot_sync(0xffffffffu, (k >> b) & 1u);
        warp_count += __popc(c.votes[j][b]) << b;
      }
    }
    int total = 0;
    const int before = block_counts(s_).warps_before(warp_count, true, total);
    tile_total = static_cast<unsigned>(total);
    return static_cast<unsigned>(before);
  }

  // Moves the tile's elements. `kept_before` is the number of selected
  // elements before this warp's slice (tile prefix + warps before). With
  // placement::compact only selected slots below `capacity` are written;
  // reversed_rejects puts the r-th rejected element at n-1-r, rejects_after
  // at rejects_from + r.
  template <streamscan::detail::placement P>
  __device__ void scatter(const Source& src, std::int64_t base, int valid, const classified& c,
                          std::int64_t kept_before, std::int64_t n, std::int64_t capacity,
                          std::int64_t rejects_from) const {
    using streamscan::detail::placement;
    const unsigned below = (1u << lane()) - 1u;
    const int first = warp_first();
    std::int64_t run = kept_before;
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      int rank = 0, total = 0;
#pragma unroll
      for (int b = 0; b < count_bits; ++b) {
        rank += __popc(c.votes[j][b] & below) << b;
        total += __popc(c.votes[j][b]) << b;
      }
      std::int64_t selected = run + rank;  // selected elements before the next of this lane's
#pragma unroll
      for (int q = 0; q < width; ++q) {
        const int at = first + 32 * width * j + q;
        const std::int64_t i = base + at;
        if ((c.kept[j] >> q) & 1u) {
          if (P != placement::compact || selected < capacity) src.move(c.v[j][q], i, selected);
          ++selected;
        } else if (P == placement::reversed_rejects || P == placement::rejects_after) {
          if (at < valid)
            src.move(c.v[j][q], i, P == placement::reversed_rejects ? n - 1 - (i - selected) : rejects_from + (i - selected));
        }
      }
      run += total;
    }
  }

 private:
  __device__ static int lane() { return static_cast<int>(threadIdx.x % 32); }
  // The lane's first element in the tile.
  __device__ static int warp_first() { return static_cast<int>(threadIdx.x / 32) * warp_items + lane() * width; }
  temp_storage& s_;
};

}  // namespace streamscan::cuda::detail
