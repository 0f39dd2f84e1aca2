// streamscan/cuda/kernels/segmented_scan_kernel.cuh - the dedicated
// segmented (and backward) scan: one kernel, one read of the values and the
// head bits, one write; the tile protocol of the single-pass scans
// (single_pass_scan_kernel.cuh: dynamic tile ids, decoupled look-back) with
// (value, head) pairs in the status words.
#pragma once

#include <cstdint>

#include "../../detail/segmented_pair.hpp"
#include "../agent/agent_segmented_scan.cuh"
#include "../agent/segmented_tile_status.cuh"
#include "../agent/tile_id.cuh"
#include "../agent/tile_prefix.cuh"

namespace streamscan::cuda::detail {

// The kernel's body, a device function so that a kernel compiled at run time
// (zip_scan_kernel.cuh: an extern "C" entry for NVRTC) runs the same tile.
// `lead`: filler slots before scan position 0 (backward scans; see next_tile).
template <class Policy, class IO, class Op>
__device__ __forceinline__ void segmented_scan_tile(const IO& io, std::int64_t n, std::int64_t lead,
                                                    tile_status<streamscan::detail::seg_pair<typename IO::value_type>> status,
                                                    unsigned long long* tile_counter,
                                                    maybe<streamscan::detail::seg_pair<typename IO::value_type>> init,
                                                    scan_mode mode, Op& op) {
  using agent_t = agent_segmented_scan<Policy, IO, Op>;
  using V = typename IO::value_type;
  using P = streamscan::detail::seg_pair<V>;
  using pop_t = streamscan::detail::segmented_op<Op>;
  using prefix_op_t = tile_prefix_op<P, pop_t, look_back_kind::decoupled,
                                     streamscan::is_exactly_associative<pop_t, P>::value, 1, Policy::look_back_sleep_ns>;
  __shared__ typename agent_t::temp_storage storage;
  __shared__ std::int64_t shared_tile;
  __shared__ typename prefix_op_t::temp_storage prefix_storage;
  const tile_slot t = next_tile<agent_t::tile_items>(tile_counter, n, shared_tile, lead);
  agent_t agent(storage, io, op);
  V values[agent_t::vectors][agent_t::width];
  typename IO::vector_meta meta[agent_t::vectors];
  typename agent_t::mask_t closed;
  const P tile_total = agent.scan_slices(t.base, t.lo, t.valid, values, meta, closed);
  pop_t pop{op};
  const maybe<P> prefix = prefix_op_t{status, init, pop}(t, tile_total, prefix_storage);
  agent.finish(t.base, t.lo, t.valid, values, meta, closed, prefix, mode);
}

template <class Policy, class IO, class Op>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks_per_sm)
    segmented_scan_kernel(IO io, std::int64_t n, std::int64_t lead,
                          tile_status<streamscan::detail::seg_pair<typename IO::value_type>> status,
                          unsigned long long* tile_counter,
                          maybe<streamscan::detail::seg_pair<typename IO::value_type>> init, scan_mode mode, Op op) {
  segmented_scan_tile<Policy>(io, n, lead, status, tile_counter, init, mode, op);
}

}  // namespace streamscan::cuda::detail
