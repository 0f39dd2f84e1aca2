// streamscan/cuda/agent/agent_segmented_scan.cuh - the tile agent of the
// dedicated segmented (and backward) scan: agent_single_pass_scan's warp
// slices and 16-byte vectors, with segment heads.
//
// Registers hold plain values and head bits (from the IO); each warp scans
// its slice with warp_segmented_scan_slice (warp_segmented_slice_scan.cuh), and only
// warp totals and the tile's prefix travel as (value, head) pairs.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../detail/segmented_pair.hpp"
#include "../util/shuffle.cuh"
#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "../warp/warp_segmented_slice_scan.cuh"
#include "../warp/warp_slice_scan.cuh"
#include "agent_scan.cuh"

namespace streamscan::cuda::detail {

template <class Policy, class IO, class Op>
class agent_segmented_scan {
 public:
  using V = typename IO::value_type;
  using P = streamscan::detail::seg_pair<V>;
  using meta_t = typename IO::vector_meta;  // .heads: bit c = slot c of the vector starts a segment
  static constexpr int threads = Policy::threads;
  static constexpr int warps = threads / 32;
  static constexpr int width = IO::width;
  static constexpr int vectors = Policy::vectors;
  static constexpr int warp_items = 32 * width * vectors;
  static constexpr int tile_items = warps * warp_items;
  static_assert(threads % 32 == 0, "whole warps only");
  using mask_t = slice_slot_mask<vectors, width>;

  struct temp_storage {
    uninitialized<P> warp_inclusive[warps];
  };

  __device__ agent_segmented_scan(temp_storage& storage, const IO& io, Op& op) : s_(storage), io_(io), op_(op) {}

  // Loads slots [lo, valid) of the tile at `base` (the others are fillers)
  // and scans each warp's slice. Returns the tile total (every thread).
  // Fillers never reach a published total: they come after the last real
  // slot (the last tile, which publishes nothing) or before scan position 0,
  // which is a head.
  __device__ P scan_slices(std::int64_t base, int lo, int valid, V (&v)[vectors][width], meta_t (&meta)[vectors],
                           mask_t& closed) {
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    load(base, lo, valid, v, meta, lane, warp);
    const streamscan::detail::segmented_op<Op> pop{op_};
    const P slice_total = warp_segmented_scan_slice(v, [&](int k) { return meta[k].heads; }, closed, op_, lane);
    if (lane == 0) s_.warp_inclusive[warp].get() = slice_total;
    __syncthreads();
    if (warp == 0 && lane < warps) {  // only the lanes the shuffles' mask names
      s_.warp_inclusive[lane].get() = warp_scan::inclusive(s_.warp_inclusive[lane].get(), pop, lane, warps);
    }
    __syncthreads();
    return s_.warp_inclusive[warps - 1].get();
  }

  // Adds (tile prefix, warps before) to the slots no head closes and stores;
  // exclusive mode shifts every value one place to the right first (the IO
  // writes the init where a segment starts).
  __device__ void finish(std::int64_t base, int lo, int valid, V (&v)[vectors][width],
                         const meta_t (&meta)[vectors], mask_t closed, maybe<P> prefix, scan_mode mode) {
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    const streamscan::detail::segmented_op<Op> pop{op_};
    maybe<P> p = prefix;
    if (warp > 0) {
      const P before = s_.warp_inclusive[warp - 1].get();
      p = {p.present ? pop(p.value, before) : before, true};
    }
    if (p.present) warp_segmented_prefix_slice(v, closed, p.value.value, op_);
    if (mode == scan_mode::exclusive) warp_shift_slice_right(v, p.value.value, lane);
    store(base, lo, valid, v, meta, lane, warp);
  }

 private:
  __device__ void load(std::int64_t base, int lo, int valid, V (&v)[vectors][width], meta_t (&meta)[vectors],
                       int lane, int warp) const {
    const int slice = warp * warp_items;
    if (lo == 0 && valid == tile_items) {
      typename IO::row_link link;
#pragma unroll
      for (int k = 0; k < vectors; ++k) io_.load(base, slice + (32 * k + lane) * width, v[k], meta[k], link);
    } else {
      meta_t none{};
      const V filler = io_.load_one(base, lo, none, 0);
#pragma unroll
      for (int k = 0; k < vectors; ++k) {
        meta[k] = meta_t{};
#pragma unroll
        for (int c = 0; c < width; ++c) {
          const int i = slice + (32 * k + lane) * width + c;
          v[k][c] = i >= lo && i < valid ? io_.load_one(base, i, meta[k], c) : filler;
        }
      }
    }
  }

  __device__ void store(std::int64_t base, int lo, int valid, const V (&v)[vectors][width],
                        const meta_t (&meta)[vectors], int lane, int warp) const {
    const int slice = warp * warp_items;
    if (lo == 0 && valid == tile_items) {
#pragma unroll
      for (int k = 0; k < vectors; ++k) io_.store(base, slice + (32 * k + lane) * width, v[k], meta[k]);
    } else {
#pragma unroll
      for (int k = 0; k < vectors; ++k)
#pragma unroll
        for (int c = 0; c < width; ++c) {
          const int i = slice + (32 * k + lane) * width + c;
          if (i >= lo && i < valid) io_.store_one(base, i, v[k][c], meta[k], c);
        }
    }
  }

  temp_storage& s_;
  const IO& io_;
  Op& op_;
};

}  // namespace streamscan::cuda::detail
