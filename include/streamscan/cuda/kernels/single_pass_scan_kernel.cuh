// streamscan/cuda/kernels/single_pass_scan_kernel.cuh - one kernel, one read
// and one write of the input: the chained scan (StreamScan, seed 000) and the
// decoupled look-back scan (seed 001, Merrill & Garland).
//
// Each block takes the next tile id from an atomic counter (seed 000 fig. 9),
// so a block only ever waits for tiles that blocks already running have
// taken: no launch order or residency assumption, any grid size, no deadlock.
//
// Two kernels share the tile protocol: a general one (any iterators, any
// conversion, tiles through shared memory: agent_scan) and a vectorised one
// for raw, 16-byte aligned pointers of the accumulator type
// (agent_single_pass_scan).
#pragma once

#include <cooperative_groups.h>
#include <cuda/barrier>

#include <cstdint>

#include "../agent/agent_scan.cuh"
#include "../agent/agent_single_pass_scan.cuh"
#include "../agent/look_back.cuh"
#include "../agent/tile_status.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

enum class look_back_kind { chained, decoupled };

struct tile_slot {
  std::int64_t tile, base;
  int valid;
  bool last;
};

// Thread 0 takes the next tile id; every thread learns it.
template <int TileItems>
__device__ tile_slot next_tile(unsigned long long* counter, std::int64_t n, std::int64_t& shared_tile) {
  if (threadIdx.x == 0) shared_tile = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  __syncthreads();
  tile_slot t;
  t.tile = shared_tile;
  t.base = t.tile * TileItems;
  const std::int64_t left = n - t.base;
  t.valid = left < TileItems ? static_cast<int>(left) : TileItems;
  t.last = left <= TileItems;
  return t;
}

// The tile's exclusive prefix (every thread), published onwards as early as
// the look-back allows. Tile 0's prefix is the init (if any).
template <look_back_kind LookBack, class A, class Op>
__device__ maybe<A> resolve_tile_prefix(const tile_status<A>& status, const tile_slot& t, const A& tile_total,
                                        maybe<A> init, Op& op, uninitialized<A>& shared_prefix) {
  if (t.tile == 0) {
    if (threadIdx.x == 0 && !t.last)
      status.publish(0, tile_prefix, init.present ? op(init.value, tile_total) : tile_total);
    return init;
  }
  if (LookBack == look_back_kind::decoupled) {
    if (threadIdx.x < 32) {
      if (threadIdx.x == 0 && !t.last) status.publish(t.tile, tile_aggregate, tile_total);
      const A prefix = look_back_decoupled<A>(status, t.tile, op);
      if (threadIdx.x == 0) {
        if (!t.last) status.publish(t.tile, tile_prefix, op(prefix, tile_total));
        shared_prefix.get() = prefix;
      }
    }
  } else if (threadIdx.x == 0) {
    // Adjacent synchronisation: wait for the predecessor, pass ours on at once.
    const A prefix = wait_for_predecessor<A>(status, t.tile);
    if (!t.last) status.publish(t.tile, tile_prefix, op(prefix, tile_total));
    shared_prefix.get() = prefix;
  }
  __syncthreads();
  return {shared_prefix.get(), true};  // the init, if any, is inside tile 0's prefix already
}

template <class Policy, look_back_kind LookBack, class A, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_scan_kernel(InIt in, OutIt out, std::int64_t n, tile_status<A> status,
                            unsigned long long* tile_counter, maybe<A> init, scan_mode mode, Op op) {
  using agent_t = agent_scan<Policy, A, Op>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ uninitialized<A> shared_prefix;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage, op);
  A items[Policy::items_per_thread];
  A row_excl;
  // Reduce phase (rows, then row totals), synchronisation, scan phase (seed 000 fig. 7).
  const A tile_total = agent.scan_rows(in + t.base, t.valid, items, row_excl);
  const maybe<A> prefix = resolve_tile_prefix<LookBack>(status, t, tile_total, init, op, shared_prefix);
  agent.finish_tile(out + t.base, t.valid, items, row_excl, prefix, mode);
}

template <class Policy, look_back_kind LookBack, class A, class Op>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_vector_scan_kernel(const A* in, A* out, std::int64_t n, tile_status<A> status,
                                   unsigned long long* tile_counter, maybe<A> init, scan_mode mode, Op op) {
  using agent_t = agent_single_pass_scan<Policy, A, Op>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ uninitialized<A> shared_prefix;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage, op);
  A values[agent_t::vectors][agent_t::width];
  const A tile_total = agent.scan_slices(in + t.base, t.valid, values);
  const maybe<A> prefix = resolve_tile_prefix<LookBack>(status, t, tile_total, init, op, shared_prefix);
  agent.finish(out + t.base, t.valid, values, prefix, mode);
}

// Persistent and pipelined: a grid that fits the GPU at once loops over tiles
// and keeps the next tile's input streaming into shared memory (the bulk copy
// engine, cp.async.bulk, completing on an mbarrier) while it scans, looks back
// and stores the current one, so that loads stay in flight through the
// look-back. Tile ids still come from the counter in increasing order per
// block, so the lowest unfinished tile is always being worked on: no deadlock.
// Only full tiles go through the copy engine; the last, partial one is read
// directly.
#pragma nv_diag_suppress static_var_with_dynamic_init
template <class Policy, look_back_kind LookBack, class A, class Op>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_pipelined_scan_kernel(const A* in, A* out, std::int64_t n, tile_status<A> status,
                                      unsigned long long* tile_counter, maybe<A> initial, scan_mode mode, Op op) {
  using agent_t = agent_single_pass_scan<Policy, A, Op>;
  using barrier_t = ::cuda::barrier<::cuda::thread_scope_block>;
  constexpr int tile_items = agent_t::tile_items;
  constexpr std::size_t tile_bytes = sizeof(A) * tile_items;
  __shared__ alignas(128) unsigned char stage_bytes[2][tile_bytes];
  __shared__ barrier_t stage_ready[2];
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t stage_tile[2];
  __shared__ uninitialized<A> shared_prefix;
  const auto block = cooperative_groups::this_thread_block();
  const std::int64_t tiles = (n + tile_items - 1) / tile_items;

  // Takes the next tile id for `stage` and starts copying it in, if full.
  auto fetch = [&](int stage) {
    if (threadIdx.x == 0) stage_tile[stage] = static_cast<std::int64_t>(atomicAdd(tile_counter, 1ull));
    __syncthreads();  // the id is seen, and the stage's buffer is no longer read
    const std::int64_t tile = stage_tile[stage];
    if (tile < tiles && (tile + 1) * tile_items <= n)
      ::cuda::memcpy_async(block, reinterpret_cast<A*>(stage_bytes[stage]), in + tile * tile_items,
                           ::cuda::aligned_size_t<16>(tile_bytes), stage_ready[stage]);
  };

  if (threadIdx.x == 0) {
    init(&stage_ready[0], blockDim.x);
    init(&stage_ready[1], blockDim.x);
  }
  __syncthreads();
  agent_t agent(storage, op);
  int stage = 0;
  fetch(0);
  while (stage_tile[stage] < tiles) {
    fetch(stage ^ 1);  // the next tile streams in while this one is processed
    tile_slot t;
    t.tile = stage_tile[stage];
    t.base = t.tile * tile_items;
    const std::int64_t left = n - t.base;
    t.valid = left < tile_items ? static_cast<int>(left) : tile_items;
    t.last = left <= tile_items;
    A values[agent_t::vectors][agent_t::width];
    A tile_total;
    if (t.valid == tile_items) {
      stage_ready[stage].arrive_and_wait();
      tile_total = agent.template scan_slices<true>(reinterpret_cast<const A*>(stage_bytes[stage]), t.valid, values);
    } else {
      tile_total = agent.scan_slices(in + t.base, t.valid, values);
    }
    const maybe<A> prefix = resolve_tile_prefix<LookBack>(status, t, tile_total, initial, op, shared_prefix);
    agent.finish(out + t.base, t.valid, values, prefix, mode);
    __syncthreads();  // agent storage and shared_prefix are reused by the next tile
    stage ^= 1;
  }
}

}  // namespace streamscan::cuda::detail
