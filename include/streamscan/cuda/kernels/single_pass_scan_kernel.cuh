// streamscan/cuda/kernels/single_pass_scan_kernel.cuh - one kernel, one read
// and one write of the input: the chained scan [StreamScan] and the
// decoupled look-back scan ([DecoupledLookback], [LookbackReport]).
//
// Each block takes the next tile id (tile_id.cuh), reduces its tile, gets its
// exclusive prefix from the tile-prefix operator (tile_prefix.cuh: status
// publishing and the look-back) and scans the tile from it.
//
// Three kernels share the tile protocol: a general one (any iterators, any
// conversion, tiles through shared memory: agent_scan) and a vectorised one
// for raw, 16-byte aligned pointers of the accumulator type
// (agent_single_pass_scan); the chained scan also runs [StreamScan]'s own
// intra-block scan (agent_stream_scan: thread groups, registers + shared
// memory, strided or coalesced loads), one tile a link of the chain or, on
// sm_90, one thread-block cluster a link (cluster_chain.cuh).
// segmented_scan_kernel.cuh adds the dedicated segmented scan on the same
// protocol.
#pragma once

#include <cstdint>

#include "../../operators.hpp"
#include "../agent/agent_scan.cuh"
#include "../agent/agent_single_pass_scan.cuh"
#include "../agent/agent_stream_scan.cuh"
#include "../agent/cluster_chain.cuh"
#include "../agent/tile_id.cuh"
#include "../agent/tile_prefix.cuh"
#include "../agent/tile_status.cuh"
#include "../util/grid_dependency.cuh"

namespace streamscan::cuda::detail {

template <class Policy, look_back_kind LookBack, class A, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_scan_kernel(InIt in, OutIt out, std::int64_t n, tile_status<A> status,
                            unsigned long long* tile_counter, maybe<A> init, scan_mode mode, Op op) {
  using agent_t = agent_scan<Policy, A, Op>;
  using prefix_op_t = tile_prefix_op<A, Op, LookBack>;  // the grouped walk, whatever the operator
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ typename prefix_op_t::temp_storage prefix_storage;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage, op);
  A items[Policy::items_per_thread];
  A row_excl;
  // Reduce phase (rows, then row totals), synchronisation, scan phase ([StreamScan] fig. 7).
  const A tile_total = agent.scan_rows(in + t.base, t.valid, items, row_excl);
  const maybe<A> prefix = prefix_op_t{status, init, op}(t, tile_total, prefix_storage);
  agent.finish_tile(out + t.base, t.valid, items, row_excl, prefix, mode);
}

template <class Policy, look_back_kind LookBack, class IO, class Op>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    single_pass_vector_scan_kernel(IO io, std::int64_t n, std::int64_t lead,
                                   tile_status<typename IO::value_type> status,
                                   unsigned long long* tile_counter, maybe<typename IO::value_type> init,
                                   scan_mode mode, Op op) {
  using agent_t = agent_single_pass_scan<Policy, IO, Op>;
  using A = typename IO::value_type;
  // The policy's one-tile settings: tuning::look_back_tuning. The grouped walk
  // unless an experiment asks for trees.
  using prefix_op_t = tile_prefix_op<A, Op, LookBack, Policy::one_tile_trees, Policy::one_tile_windows,
                                     Policy::look_back_sleep_ns>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ typename prefix_op_t::temp_storage prefix_storage;
  agent_t agent(storage, io, op);
  A values[agent_t::vectors][agent_t::width];
  typename IO::vector_meta meta[agent_t::vectors];
  if constexpr (Policy::prefetch_own_tile) {
    // Blocks start about in index order and take ids in the order they start,
    // so a block's tile is its own index's or a neighbour's: the hint has the
    // tile on its way while the id is. The input is complete before the reset
    // kernel starts, so it may come before the wait.
    const tile_slot guess = tile_at<agent_t::tile_items>(blockIdx.x, n, lead);
    if (guess.lo == 0 && guess.valid == agent_t::tile_items) agent.prefetch_tile(guess.base);
  }
  // Launched overlapped after the kernel that zeroes the tile counter and
  // status words (launch_vector_scan): nothing of them is read before here.
  grid_dependency_wait();
  const tile_slot t = without_lead(Policy::tiles_by_block_index
                                       ? tile_at<agent_t::tile_items>(blockIdx.x, n, lead)
                                       : next_tile<agent_t::tile_items>(tile_counter, n, shared_tile, lead));
  agent.load_tile(t.base, t.valid, values, meta);
  const A tile_total = agent.scan_loaded(t.valid, values);
  const maybe<A> prefix = prefix_op_t{status, init, op}(t, tile_total, prefix_storage);
  agent.finish(t.base, t.valid, values, meta, prefix, mode);
}

// The chained scan with [StreamScan]'s 3D intra-block scan: one tile per block,
// its shared pieces in dynamic shared memory (agent_stream_scan.cuh).
template <class Policy, class IO, class A, class Op>
__global__ void __launch_bounds__(Policy::threads, 1)
    stream_scan_kernel(IO io, std::int64_t n, tile_status<A> status, unsigned long long* tile_counter,
                       maybe<A> init, scan_mode mode, Op op) {
  using agent_t = agent_stream_scan<Policy, IO, A, Op>;
  using prefix_op_t = tile_prefix_op<A, Op, look_back_kind::chained>;
  extern __shared__ __align__(16) unsigned char stream_rows[];
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ typename prefix_op_t::temp_storage prefix_storage;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile);
  agent_t agent(storage, stream_rows, io, op);
  A reg[agent_t::RS][agent_t::W];
  const A tile_total = agent.reduce(t.base, t.valid, reg, mode);
  const maybe<A> prefix = prefix_op_t{status, init, op}(t, tile_total, prefix_storage);
  agent.scan(t.base, t.valid, reg, prefix, mode);
}

// The same scan with a thread-block cluster of Policy::cluster blocks as
// one link of the chain (sm_90; launched with that cluster size and a grid
// of whole clusters). Blocks past the input only take part in the barriers.
template <class Policy, class IO, class A, class Op>
__global__ void __launch_bounds__(Policy::threads, 1)
    stream_cluster_scan_kernel(IO io, std::int64_t n, tile_status<A> status, unsigned long long* link_counter,
                               maybe<A> init, scan_mode mode, Op op) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // the dispatcher launches it on sm_90 and later only
#else
  using agent_t = agent_stream_scan<Policy, IO, A, Op>;
  using chain_t = cluster_chain<A, Op, Policy::cluster>;
  extern __shared__ __align__(16) unsigned char stream_rows[];
  __shared__ typename agent_t::temp_storage storage;
  __shared__ typename chain_t::temp_storage chain_storage;
  const chain_t chain{status, init, op};
  const cluster_tile c = chain.template next_tile<agent_t::tile_items>(link_counter, n, chain_storage);
  agent_t agent(storage, stream_rows, io, op);
  A reg[agent_t::RS][agent_t::W];
  A tile_total{};
  if (c.slot.valid > 0) tile_total = agent.reduce(c.slot.base, c.slot.valid, reg, mode);
  const maybe<A> prefix = chain(c, tile_total, chain_storage);
  if (c.slot.valid > 0) agent.scan(c.slot.base, c.slot.valid, reg, prefix, mode);
  chain.release();
#endif
}

}  // namespace streamscan::cuda::detail
