// streamscan/cuda/agent/agent_select.cuh - the tile agent of the single-pass
// compaction, partition and split (stable; the look-back is the kernel's).
//
// A warp reads its slice of the tile in seed 002's shape: item j of lane l is
// slice element 32j + l, so each of the thread's loads is one coalesced warp
// access, and one ballot per j classifies 32 consecutive elements (a seed 002
// "subgroup"). The ballots stay in registers: a selected element's rank in
// the warp is the population counts of the earlier ballots plus
// popc(ballot & lanes below). Only one count per warp crosses the block. The
// predicate runs once per element, and values are written from registers:
// nothing is read twice. Every subgroup's selected elements land in
// consecutive output slots, so stores coalesce without a shared-memory
// exchange.
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
  static constexpr int items = Policy::items_per_thread;
  static constexpr int warp_items = 32 * items;
  static constexpr int tile_items = threads / 32 * warp_items;
  static_assert(threads % 32 == 0, "whole warps only");
  using block_counts = block_binary<threads>;
  using temp_storage = typename block_counts::temp_storage;

  __device__ explicit agent_select(temp_storage& s) : s_(s) {}

  // Reads tile elements [0, valid) of the tile at `base` and classifies them:
  // votes[j] is the ballot of subgroup j (the same in every lane). Counting
  // passes read only what classifies (`v` is left alone). Returns the
  // selected count of the tile before this warp; `tile_total` gets the tile's.
  template <bool CountOnly>
  __device__ unsigned classify(const Source& src, std::int64_t base, int valid, item (&v)[items],
                               unsigned (&votes)[items], unsigned& tile_total) {
    const int first = static_cast<int>(threadIdx.x / 32) * warp_items + lane();
    bool keep[items];
    if (valid == tile_items) {  // all loads issued before any is used
#pragma unroll
      for (int j = 0; j < items; ++j) {
        if constexpr (CountOnly) keep[j] = src.load_keep(base + first + 32 * j);
        else v[j] = src.load(base + first + 32 * j);
      }
      if constexpr (!CountOnly) {
#pragma unroll
        for (int j = 0; j < items; ++j) keep[j] = src.keep(v[j]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const bool inside = first + 32 * j < valid;
        if constexpr (CountOnly) {
          keep[j] = inside && src.load_keep(base + first + 32 * j);
        } else {
          if (inside) v[j] = src.load(base + first + 32 * j);
          keep[j] = inside && src.keep(v[j]);
        }
      }
    }
    int warp_count = 0;
#pragma unroll
    for (int j = 0; j < items; ++j) {
      votes[j] = __ballot_sync(0xffffffffu, keep[j]);
      warp_count += __popc(votes[j]);
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
  __device__ void scatter(const Source& src, std::int64_t base, int valid, const item (&v)[items],
                          const unsigned (&votes)[items], std::int64_t kept_before, std::int64_t n,
                          std::int64_t capacity, std::int64_t rejects_from) const {
    using streamscan::detail::placement;
    const int l = lane(), first = static_cast<int>(threadIdx.x / 32) * warp_items + l;
    const unsigned below = (1u << l) - 1u;
    std::int64_t run = kept_before;
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const std::int64_t i = base + first + 32 * j;
      const std::int64_t c = run + __popc(votes[j] & below);  // selected elements before i
      if ((votes[j] >> l) & 1u) {
        if (P != placement::compact || c < capacity) src.move(v[j], i, c);
      } else if (P == placement::reversed_rejects || P == placement::rejects_after) {
        if (first + 32 * j < valid) src.move(v[j], i, P == placement::reversed_rejects ? n - 1 - (i - c) : rejects_from + (i - c));
      }
      run += __popc(votes[j]);
    }
  }

 private:
  __device__ static int lane() { return static_cast<int>(threadIdx.x % 32); }
  temp_storage& s_;
};

}  // namespace streamscan::cuda::detail
