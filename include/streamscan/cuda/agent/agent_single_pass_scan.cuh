// streamscan/cuda/agent/agent_single_pass_scan.cuh - the fast tile agent of
// the single-pass scans: raw pointers read and written 16 bytes at a time,
// through a tile IO (tile_io.cuh). agent_segmented_scan.cuh is its segmented
// sibling.
//
// No shared-memory transposes: each warp owns a contiguous slice of the tile
// and reads it with 16-byte vector loads, `vectors` of them in flight per
// thread. Load k of lane l covers slice elements [(32k + l) * width, +width),
// so every load instruction of a warp reads 512 contiguous bytes, and the
// thread's `width` values are contiguous: it scans them sequentially, the warp
// scans the 32 per-thread totals by shuffles, and the slice is finished one
// load at a time with a running carry. Only the warp totals cross warps (one
// barrier), and the tile's prefix reaches every warp through one more.
#pragma once

#include <cstdint>

#include "../util/shuffle.cuh"
#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "../warp/warp_slice_scan.cuh"
#include "agent_scan.cuh"
#include "tile_io.cuh"

namespace streamscan::cuda::detail {

template <class Policy, class IO, class Op>
class agent_single_pass_scan {
 public:
  using A = typename IO::value_type;
  using meta_t = typename IO::vector_meta;
  static constexpr int threads = Policy::threads;
  static constexpr int warps = threads / 32;
  static constexpr int width = IO::width;          // values per 16-byte load
  static constexpr int vectors = Policy::vectors;  // loads in flight per thread
  static constexpr int warp_items = 32 * width * vectors;
  static constexpr int tile_items = warps * warp_items;
  static_assert(threads % 32 == 0, "whole warps only");

  struct temp_storage {
    uninitialized<A> warp_inclusive[warps];
    uninitialized<A> partial_total;
  };

  __device__ agent_single_pass_scan(temp_storage& storage, const IO& io, Op& op) : s_(storage), io_(io), op_(op) {}

  // Loads the tile at `base`, slots [0, valid).
  __device__ void load_tile(std::int64_t base, int valid, A (&v)[vectors][width], meta_t (&meta)[vectors]) const {
    load(base, valid, v, meta, static_cast<int>(threadIdx.x % 32), static_cast<int>(threadIdx.x / 32));
  }
  // A hint: each warp's slice of the full tile at `base` into L2.
  __device__ void prefetch_tile(std::int64_t base) const {
    if (threadIdx.x % 32 == 0) io_.prefetch(base, static_cast<int>(threadIdx.x / 32) * warp_items, warp_items);
  }

  // Scans each warp's slice of the loaded tile in registers. Returns the tile
  // total (every thread): for a partial tile, the total of its valid slots
  // (the first tile of a backward scan is partial, and its successors read
  // its total).
  __device__ A scan_loaded(int valid, A (&v)[vectors][width]) {
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    const A slice_total = warp_scan_slice(v, op_, lane);
    if (lane == 0) s_.warp_inclusive[warp].get() = slice_total;
    __syncthreads();
    if (warp == 0 && lane < warps) {  // only the lanes the shuffles' mask names
      s_.warp_inclusive[lane].get() = warp_scan::inclusive(s_.warp_inclusive[lane].get(), op_, lane, warps);
    }
    __syncthreads();
    if (valid == tile_items) return s_.warp_inclusive[warps - 1].get();
    return partial_total(valid, v, lane, warp);
  }

  // Adds (tile prefix, warps before) to the slice and stores it; exclusive
  // mode shifts every value one place to the right first. `prefix` must be the
  // same in every thread; exclusive mode requires it (it always has one: the
  // init, or a predecessor).
  __device__ void finish(std::int64_t base, int valid, A (&v)[vectors][width], const meta_t (&meta)[vectors],
                         maybe<A> prefix, scan_mode mode) {
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    maybe<A> p = prefix;
    if (warp > 0) {
      const A before = s_.warp_inclusive[warp - 1].get();
      p = {p.present ? op_(p.value, before) : before, true};
    }
    if (p.present) warp_prefix_slice(v, p.value, op_);
    if (mode == scan_mode::exclusive) warp_shift_slice_right(v, p.value, lane);
    store(base, valid, v, meta, lane, warp);
  }

 private:
  // The filler slots after `valid` are scanned too: the total is the
  // inclusive value of slot valid - 1, from the thread that holds it.
  __device__ A partial_total(int valid, const A (&v)[vectors][width], int lane, int warp) {
    const int slice = warp * warp_items;
#pragma unroll
    for (int k = 0; k < vectors; ++k)
#pragma unroll
      for (int c = 0; c < width; ++c)
        if (slice + (32 * k + lane) * width + c == valid - 1)
          s_.partial_total.get() = warp > 0 ? op_(s_.warp_inclusive[warp - 1].get(), v[k][c]) : v[k][c];
    __syncthreads();
    return s_.partial_total.get();
  }

  __device__ void load(std::int64_t base, int valid, A (&v)[vectors][width], meta_t (&meta)[vectors], int lane,
                       int warp) const {
    const int slice = warp * warp_items;
    if (valid == tile_items) {
#pragma unroll
      for (int k = 0; k < vectors; ++k) io_.load(base, slice + (32 * k + lane) * width, v[k], meta[k]);
    } else {
      meta_t none{};
      const A filler = io_.load_one(base, 0, none, 0);
#pragma unroll
      for (int k = 0; k < vectors; ++k) {
        meta[k] = meta_t{};
#pragma unroll
        for (int c = 0; c < width; ++c) {
          const int i = slice + (32 * k + lane) * width + c;
          v[k][c] = i < valid ? io_.load_one(base, i, meta[k], c) : filler;
        }
      }
    }
  }

  __device__ void store(std::int64_t base, int valid, const A (&v)[vectors][width], const meta_t (&meta)[vectors],
                        int lane, int warp) const {
    const int slice = warp * warp_items;
    if (valid == tile_items) {
#pragma unroll
      for (int k = 0; k < vectors; ++k) io_.store(base, slice + (32 * k + lane) * width, v[k], meta[k]);
    } else {
#pragma unroll
      for (int k = 0; k < vectors; ++k)
#pragma unroll
        for (int c = 0; c < width; ++c) {
          const int i = slice + (32 * k + lane) * width + c;
          if (i < valid) io_.store_one(base, i, v[k][c], meta[k], c);
        }
    }
  }

  temp_storage& s_;
  const IO& io_;
  Op& op_;
};

}  // namespace streamscan::cuda::detail
