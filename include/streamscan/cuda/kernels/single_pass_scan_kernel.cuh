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
// (agent_single_pass_scan). The chained scan also runs StreamScan's own
// intra-block scan (agent_stream_scan: thread groups, registers + shared
// memory, strided or coalesced loads). segmented_scan_kernel.cuh adds the
// dedicated segmented scan on the same protocol.
#pragma once

#include <cstdint>

#include "../../detail/segmented_scan.hpp"
#include "../agent/agent_scan.cuh"
#include "../agent/agent_single_pass_scan.cuh"
#include "../agent/agent_stream_scan.cuh"
#include "../agent/look_back.cuh"
#include "../agent/tile_status.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

enum class look_back_kind { chained, decoupled };

// Tile `tile` covers slots [lo, valid) at scan positions base + slot.
struct tile_slot {
  std::int64_t tile, base;
  int lo, valid;
  bool last;
};

// Thread 0 takes the next tile id; every thread learns it. Tiles are
// TileItems scan positions; `lead` filler slots go before the first
// (backward scans start there, so that full tiles stay aligned and the last
// tile is full: tile_io.cuh); forward scans pass 0.
template <int TileItems>
__device__ tile_slot next_tile(unsigned long long* counter, std::int64_t n, std::int64_t& shared_tile,
                               std::int64_t lead = 0) {
  if (threadIdx.x == 0) shared_tile = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  __syncthreads();
  tile_slot t;
  t.tile = shared_tile;
  t.base = t.tile * TileItems - lead;
  t.lo = t.base < 0 ? static_cast<int>(-t.base) : 0;
  const std::int64_t left = n - t.base;
  t.valid = left < TileItems ? static_cast<int>(left) : TileItems;
  t.last = left <= TileItems;
  return t;
}

// The plain agent reads a tile that starts with filler slots as a partial
// tile of the `valid - lo` positions from 0 (no 16-byte accesses there).
__device__ inline tile_slot without_lead(tile_slot t) {
  if (t.lo > 0) {
    t.base += t.lo;
    t.valid -= t.lo;
    t.lo = 0;
  }
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
      const bool known = total_is_prefix(tile_total);
      if (threadIdx.x == 0 && !t.last) status.publish(t.tile, known ? tile_prefix : tile_aggregate, tile_total);
      // One window per round trip: here the nearest P is a tile or two away
      // and extra windows would add to the polling traffic.
      const A prefix =
          look_back_decoupled<A, streamscan::is_exactly_associative<Op, A>::value, 1>(status, t.tile, op, MaxSleepNs);
      if (threadIdx.x == 0) {
        if (!t.last && !known) status.publish(t.tile, tile_prefix, op(prefix, tile_total));
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

template <class Policy, look_back_kind LookBack, class IO, class Op>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_vector_scan_kernel(IO io, std::int64_t n, std::int64_t lead,
                                   tile_status<typename IO::value_type> status,
                                   unsigned long long* tile_counter, maybe<typename IO::value_type> init,
                                   scan_mode mode, Op op) {
  using agent_t = agent_single_pass_scan<Policy, IO, Op>;
  using A = typename IO::value_type;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ uninitialized<A> shared_prefix;
  const tile_slot t = without_lead(next_tile<agent_t::tile_items>(tile_counter, n, shared_tile, lead));
  agent_t agent(storage, io, op);
  A values[agent_t::vectors][agent_t::width];
  typename IO::vector_meta meta[agent_t::vectors];
  const A tile_total = agent.scan_slices(t.base, t.valid, values, meta);
  const maybe<A> prefix =
      resolve_tile_prefix<LookBack, Policy::look_back_sleep_ns>(status, t, tile_total, init, op, shared_prefix);
  agent.finish(t.base, t.valid, values, meta, prefix, mode);
}

// The chained scan with seed 000's 3D intra-block scan: one tile per block,
// its shared pieces in dynamic shared memory (agent_stream_scan.cuh).
template <class Policy, class IO, class A, class Op>
__global__ void __launch_bounds__(Policy::threads, 1)
    stream_scan_kernel(IO io, std::int64_t n, tile_status<A> status, unsigned long long* tile_counter,
                       maybe<A> init, scan_mode mode, Op op) {
  using agent_t = agent_stream_scan<Policy, IO, A, Op>;
  extern __shared__ __align__(16) unsigned char stream_rows[];
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ uninitialized<A> shared_prefix;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage, stream_rows, io, op);
  A reg[agent_t::RS][agent_t::W];
  const A tile_total = agent.reduce(t.base, t.valid, reg, mode);
  const maybe<A> prefix =
      resolve_tile_prefix<look_back_kind::chained>(status, t, tile_total, init, op, shared_prefix);
  agent.scan(t.base, t.valid, reg, prefix, mode);
}

}  // namespace streamscan::cuda::detail
