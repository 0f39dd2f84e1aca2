// streamscan/cuda/agent/agent_single_pass_scan.cuh - the fast tile agent of
// the single-pass scans, for raw pointers whose value type is the accumulator.
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
#include <cstring>

#include "../util/shuffle.cuh"
#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "agent_scan.cuh"

namespace streamscan::cuda::detail {

template <class Policy, class A, class Op>
class agent_single_pass_scan {
 public:
  static constexpr int threads = Policy::threads;
  static constexpr int warps = threads / 32;
  static constexpr int width = Policy::vector_width;  // values per 16-byte load
  static constexpr int vectors = Policy::vectors;     // loads in flight per thread
  static constexpr int warp_items = 32 * width * vectors;
  static constexpr int tile_items = warps * warp_items;
  static_assert(threads % 32 == 0, "whole warps only");

  struct temp_storage {
    uninitialized<A> warp_inclusive[warps];
    uninitialized<A> tile_prefix;
  };

  __device__ agent_single_pass_scan(temp_storage& storage, Op& op) : s_(storage), op_(op) {}

  // Loads tile elements [0, valid) and scans each warp's slice in registers.
  // Returns the tile total (every thread). A partial tile also folds filler
  // values into its total; only the last tile is partial, and no one reads it.
  __device__ A scan_slices(const A* in, int valid, A (&v)[vectors][width]) {
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    load(in, valid, v, lane, warp);
    maybe<A> carry{A{}, false};
#pragma unroll
    for (int k = 0; k < vectors; ++k) {
#pragma unroll
      for (int c = 1; c < width; ++c) v[k][c] = op_(v[k][c - 1], v[k][c]);
      A incl, excl;
      warp_scan::scan(v[k][width - 1], op_, lane, 32, incl, excl);
      // Prefix of this thread's values: carry (+) the lanes before it.
      maybe<A> p{excl, lane > 0};
      if (carry.present) p = {lane > 0 ? op_(carry.value, excl) : carry.value, true};
      if (p.present) {
#pragma unroll
        for (int c = 0; c < width; ++c) v[k][c] = op_(p.value, v[k][c]);
      }
      const A slice_total = shfl_idx(0xffffffffu, incl, 31);
      carry = {carry.present ? op_(carry.value, slice_total) : slice_total, true};
    }
    if (lane == 0) s_.warp_inclusive[warp].get() = carry.value;
    __syncthreads();
    if (warp == 0 && lane < warps) {  // only the lanes the shuffles' mask names
      s_.warp_inclusive[lane].get() = warp_scan::inclusive(s_.warp_inclusive[lane].get(), op_, lane, warps);
    }
    __syncthreads();
    return s_.warp_inclusive[warps - 1].get();
  }

  // Adds (tile prefix, warps before) to the slice and stores it; exclusive
  // mode shifts every value one place to the right first. `prefix` must be the
  // same in every thread; exclusive mode requires it (it always has one: the
  // init, or a predecessor).
  __device__ void finish(A* out, int valid, A (&v)[vectors][width], maybe<A> prefix, scan_mode mode) {
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    maybe<A> p = prefix;
    if (warp > 0) {
      const A before = s_.warp_inclusive[warp - 1].get();
      p = {p.present ? op_(p.value, before) : before, true};
    }
    if (p.present) {
#pragma unroll
      for (int k = 0; k < vectors; ++k)
#pragma unroll
        for (int c = 0; c < width; ++c) v[k][c] = op_(p.value, v[k][c]);
    }
    if (mode == scan_mode::exclusive) {
      // Value i takes value i-1; the slice's first takes the prefix p.
      A previous_last = p.value;
#pragma unroll
      for (int k = 0; k < vectors; ++k) {
        const A last = v[k][width - 1];
        const A from_left = shfl_up(0xffffffffu, last, 1);
        const A slice_last = shfl_idx(0xffffffffu, last, 31);
#pragma unroll
        for (int c = width - 1; c > 0; --c) v[k][c] = v[k][c - 1];
        v[k][0] = lane > 0 ? from_left : previous_last;
        previous_last = slice_last;
      }
    }
    store(out, valid, v, lane, warp);
  }

 private:
  struct alignas(16) vector_t {
    A x[width];
  };

  __device__ static void load(const A* in, int valid, A (&v)[vectors][width], int lane, int warp) {
    const int slice = warp * warp_items;
    if (valid == tile_items) {
      const vector_t* src = reinterpret_cast<const vector_t*>(in + slice);
      vector_t raw[vectors];
#pragma unroll
      for (int k = 0; k < vectors; ++k) raw[k] = load_16(src + 32 * k + lane);  // all loads issued first
#pragma unroll
      for (int k = 0; k < vectors; ++k)
#pragma unroll
        for (int c = 0; c < width; ++c) v[k][c] = raw[k].x[c];
    } else {
      const A filler = in[0];
#pragma unroll
      for (int k = 0; k < vectors; ++k)
#pragma unroll
        for (int c = 0; c < width; ++c) {
          const int i = slice + (32 * k + lane) * width + c;
          v[k][c] = i < valid ? in[i] : filler;
        }
    }
  }

  __device__ static void store(A* out, int valid, const A (&v)[vectors][width], int lane, int warp) {
    const int slice = warp * warp_items;
    if (valid == tile_items) {
      vector_t* dst = reinterpret_cast<vector_t*>(out + slice);
#pragma unroll
      for (int k = 0; k < vectors; ++k) {
        vector_t raw;
#pragma unroll
        for (int c = 0; c < width; ++c) raw.x[c] = v[k][c];
        store_16(dst + 32 * k + lane, raw);
      }
    } else {
#pragma unroll
      for (int k = 0; k < vectors; ++k)
#pragma unroll
        for (int c = 0; c < width; ++c) {
          const int i = slice + (32 * k + lane) * width + c;
          if (i < valid) out[i] = v[k][c];
        }
    }
  }

  // 16-byte accesses; the input is read once, so it is not kept in L1.
  __device__ static vector_t load_16(const vector_t* p) {
    const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(p));
    vector_t v;
    memcpy(&v, &raw, 16);
    return v;
  }
  __device__ static void store_16(vector_t* p, const vector_t& v) {
    uint4 raw;
    memcpy(&raw, &v, 16);
    *reinterpret_cast<uint4*>(p) = raw;
  }

  temp_storage& s_;
  Op& op_;
};

}  // namespace streamscan::cuda::detail
