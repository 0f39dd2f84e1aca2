// streamscan/cuda/kernels/pipelined_scan_kernel.cuh - the decoupled look-back
// scan on the warp-specialised pipeline (agent_pipeline.cuh, sm_90+).
//
// The program: a vector's aggregate is the fold of its values; a consumer
// warp rescans its slice from the stage (warp_slice_scan.cuh), adds the
// aggregate of everything before the slice and stores 16 bytes per lane.
// Faster than the one-tile kernels on large inputs of small values, where it
// is the default (the tuning defaults say from which n).
#pragma once

#include <cstdint>

#include "../../operators.hpp"
#include "../agent/agent_pipeline.cuh"
#include "../agent/agent_scan.cuh"
#include "../agent/tile_io.cuh"
#include "../agent/tile_status.cuh"
#include "../util/bulk_copy.cuh"
#include "../util/grid_dependency.cuh"
#include "../warp/warp_slice_scan.cuh"

namespace streamscan::cuda::detail {

template <class Shape, class A, class Op>
struct pipelined_scan_program {
  static constexpr int W = Shape::width, R = Shape::rows;
  using value = A;
  using agg = A;
  static constexpr bool mirrored = false;
  // The grouped walk for every operator: it also outran the trees of exactly
  // associative ones here (docs/history.md, the grouped look-back).
  static constexpr bool tree_look_back = false;
  struct rows {
    A v[R][W];
  };
  const A* in;
  A* out;
  std::int64_t n;
  maybe<A> init;
  scan_mode mode;
  Op op;

  __device__ A combine(const A& a, const A& b) { return op(a, b); }
  __device__ maybe<A> first_prefix() const { return init; }
  // Positions past a partial tile's end fold in too: they come after every
  // stored one, and the last tile's total is never published.
  template <class Full>
  __device__ A reduce(const A (&v)[W], const pipeline_tile&, int, Full) {
    A x = v[0];
#pragma unroll
    for (int c = 1; c < W; ++c) x = op(x, v[c]);
    return x;
  }
  __device__ void load(const A* stage, const pipeline_tile& t, int staged, const A& filler, int slice, int lane,
                       rows& r) {
#pragma unroll
    for (int k = 0; k < R; ++k) load_row<W>(stage, in, t.base, staged, t.valid, filler, slice + (32 * k + lane) * W, r.v[k]);
    warp_scan_slice(r.v, op, lane);
  }
  __device__ void finish(rows& r, const pipeline_tile& t, int slice, int lane, const maybe<A>& before, const maybe<A>&,
                         const A&) {
    if (before.present) warp_prefix_slice(r.v, before.value, op);
    if (mode == scan_mode::exclusive) warp_shift_slice_right(r.v, before.value, lane);
    const vector_tile_io<A, W, false> io{in, out, n};
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int first = slice + (32 * k + lane) * W;
      if (t.valid == Shape::tile_items) {
        io.store(t.base, first, r.v[k], {});
      } else {
#pragma unroll
        for (int c = 0; c < W; ++c)
          if (first + c < t.valid) io.store_one(t.base, first + c, r.v[k][c], {}, c);
      }
    }
  }
};

template <class Policy, class A, class Op>
__global__ void __launch_bounds__(pipelined_shape<Policy, A>::threads, 1)
    pipelined_scan_kernel(const A* in, A* out, std::int64_t n, tile_status<A> status,
                          unsigned long long* tile_counter, maybe<A> init, scan_mode mode, Op op) {
#if STREAMSCAN_BULK_COPY
  using shape = pipelined_shape<Policy, A>;
  using program = pipelined_scan_program<shape, A, Op>;
  using agent_t = agent_pipeline<shape, program>;
  __shared__ typename agent_t::temp_storage storage;
  program prog{in, out, n, init, mode, op};
  grid_dependency_wait();  // after the zeroing kernel, where it runs (launch_pipelined_scan)
  agent_t(storage, prog, n, status, tile_counter).run();
#endif
}

}  // namespace streamscan::cuda::detail
