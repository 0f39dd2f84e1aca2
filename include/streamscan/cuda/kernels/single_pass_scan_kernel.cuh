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
template <look_back_kind LookBack, unsigned MaxSleepNs = 1024, class A, class Op>
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
      const A prefix = look_back_decoupled<A>(status, t.tile, op, MaxSleepNs);
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
  const maybe<A> prefix =
      resolve_tile_prefix<LookBack, Policy::look_back_sleep_ns>(status, t, tile_total, init, op, shared_prefix);
  agent.finish(out + t.base, t.valid, values, prefix, mode);
}

}  // namespace streamscan::cuda::detail
