// streamscan/cuda/kernels/single_pass_scan_kernel.cuh - one kernel, one read
// and one write of the input: the chained scan (StreamScan, seed 000) and the
// decoupled look-back scan (seed 001, Merrill & Garland).
//
// Each block takes the next tile id from an atomic counter (seed 000 fig. 9),
// so a block only ever waits for tiles that blocks already running have
// taken: no launch order or residency assumption, any grid size, no deadlock.
#pragma once

#include <cstdint>

#include "../agent/agent_scan.cuh"
#include "../agent/look_back.cuh"
#include "../agent/tile_status.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

enum class look_back_kind { chained, decoupled };

template <class Policy, look_back_kind LookBack, class A, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_scan_kernel(InIt in, OutIt out, std::int64_t n, tile_status<A> status,
                            unsigned long long* tile_counter, maybe<A> init, scan_mode mode, Op op) {
  using agent_t = agent_scan<Policy, A, Op>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ uninitialized<A> shared_prefix;

  if (threadIdx.x == 0) shared_tile = static_cast<std::int64_t>(atomicAdd(tile_counter, 1ull));
  __syncthreads();
  const std::int64_t tile = shared_tile;
  const std::int64_t base = tile * agent_t::tile_items;
  const std::int64_t left = n - base;
  const int valid = left < agent_t::tile_items ? static_cast<int>(left) : agent_t::tile_items;
  const bool last_tile = left <= agent_t::tile_items;

  agent_t agent(storage, op);
  A items[Policy::items_per_thread];
  A row_excl;
  // Reduce phase: rows, then the row totals across the block.
  const A tile_total = agent.scan_rows(in + base, valid, items, row_excl);

  // Synchronise with the predecessors for this tile's prefix.
  maybe<A> carry = init;
  if (tile == 0) {
    if (threadIdx.x == 0 && !last_tile)
      status.publish(0, tile_prefix, init.present ? op(init.value, tile_total) : tile_total);
  } else {
    if (LookBack == look_back_kind::decoupled) {
      if (threadIdx.x < 32) {
        if (threadIdx.x == 0 && !last_tile) status.publish(tile, tile_aggregate, tile_total);
        const A prefix = look_back_decoupled<A>(status, tile, op);
        if (threadIdx.x == 0) {
          if (!last_tile) status.publish(tile, tile_prefix, op(prefix, tile_total));
          shared_prefix.get() = prefix;
        }
      }
    } else if (threadIdx.x == 0) {
      // Adjacent synchronisation: wait for the predecessor, pass ours on at once.
      const A prefix = wait_for_predecessor<A>(status, tile);
      if (!last_tile) status.publish(tile, tile_prefix, op(prefix, tile_total));
      shared_prefix.get() = prefix;
    }
    __syncthreads();
    carry = {shared_prefix.get(), true};  // init, if any, is inside tile 0's prefix already
  }
  // Scan phase: rescan the rows from the tile's prefix and store.
  agent.finish_tile(out + base, valid, items, row_excl, carry, mode);
}

}  // namespace streamscan::cuda::detail
