// streamscan/cuda/kernels/scan_kernels.cuh - the __global__ entry points of the
// multi-pass scans ([StreamScan] figs. 1 and 2).
//
// The input is cut into `partitions` contiguous runs of whole tiles, one block
// each (a fixed count, as with the "static threads" of [StreamScan], so the
// partials array always fits one block's middle pass):
//
//   reduce_then_scan: reduce_partitions -> scan_partials -> scan_partitions(prefix)
//   scan_then_add:    scan_partitions(no prefix, totals) -> scan_partials -> add_prefixes
#pragma once

#include <cstdint>

#include "../agent/agent_scan.cuh"

namespace streamscan::cuda::detail {

// Element range [begin, end) of partition p.
struct partition_range {
  std::int64_t begin, end;
  __device__ static partition_range of(std::int64_t p, std::int64_t tiles_per_partition,
                                       std::int64_t tile_items, std::int64_t n) {
    const std::int64_t span = tiles_per_partition * tile_items;
    const std::int64_t begin = p * span;
    return {begin, begin + span < n ? begin + span : n};
  }
};

template <class Policy, class A, class InIt, class Op>
__global__ void __launch_bounds__(Policy::threads)
    reduce_partitions_kernel(InIt in, std::int64_t n, std::int64_t tiles_per_partition, A* totals, Op op) {
  using agent_t = agent_scan<Policy, A, Op>;
  __shared__ typename agent_t::temp_storage storage;
  agent_t agent(storage, op);
  const auto r = partition_range::of(blockIdx.x, tiles_per_partition, agent_t::tile_items, n);
  maybe<A> carry{A{}, false};
  for (std::int64_t base = r.begin; base < r.end; base += agent_t::tile_items) {
    const std::int64_t left = r.end - base;
    const int valid = left < agent_t::tile_items ? static_cast<int>(left) : agent_t::tile_items;
    const A tile_total = agent.reduce_tile(in + base, valid);
    if (threadIdx.x == 0) carry = {carry.present ? op(carry.value, tile_total) : tile_total, true};
  }
  if (threadIdx.x == 0) totals[blockIdx.x] = carry.value;
}

// One block: partials[p] <- init (+) partials[0] (+) ... (+) partials[p-1], in
// place. partials[0] is left alone without an init (it has no prefix).
template <class Policy, class A, class Op>
__global__ void __launch_bounds__(Policy::threads)
    scan_partials_kernel(A* partials, int count, maybe<A> init, Op op) {
  using block_scan_t = block_scan<A, Policy::threads, Policy::block_algorithm>;
  __shared__ typename block_scan_t::temp_storage storage;
  maybe<A> carry = init;
  for (int base = 0; base < count; base += Policy::threads) {
    const int i = base + static_cast<int>(threadIdx.x);
    const A x = partials[i < count ? i : count - 1];
    A incl, excl, total;
    block_scan_t(storage).scan(x, op, incl, excl, total);
    maybe<A> prefix{excl, threadIdx.x > 0};
    if (carry.present) prefix = {threadIdx.x > 0 ? op(carry.value, excl) : carry.value, true};
    __syncthreads();  // every thread has read its partial before any is overwritten
    if (i < count && prefix.present) partials[i] = prefix.value;
    // The last chunk may be partial; its total is never needed.
    carry = {carry.present ? op(carry.value, total) : total, true};
    __syncthreads();
  }
}

// Scans each partition. Partition 0 starts from `init` (if present); a later
// one from prefixes[p] when `prefixes` is given, else from nothing (a single
// partition, or scan_then_add's first pass, which calls with an absent init).
// When `totals` is given, writes each partition's total.
template <class Policy, class A, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(Policy::threads)
    scan_partitions_kernel(InIt in, OutIt out, std::int64_t n, std::int64_t tiles_per_partition,
                           const A* prefixes, maybe<A> init, A* totals, scan_mode mode, Op op) {
  using agent_t = agent_scan<Policy, A, Op>;
  __shared__ typename agent_t::temp_storage storage;
  agent_t agent(storage, op);
  const std::int64_t p = blockIdx.x;
  const auto r = partition_range::of(p, tiles_per_partition, agent_t::tile_items, n);
  maybe<A> carry = init;
  if (prefixes != nullptr && p > 0) carry = {prefixes[p], true};
  for (std::int64_t base = r.begin; base < r.end; base += agent_t::tile_items) {
    const std::int64_t left = r.end - base;
    const int valid = left < agent_t::tile_items ? static_cast<int>(left) : agent_t::tile_items;
    carry = {agent.scan_tile(in + base, out + base, valid, carry, mode), true};
  }
  if (totals != nullptr && threadIdx.x == 0) totals[p] = carry.value;
}

// scan_then_add's last pass: out[i] <- prefix(partition) (+) out[i]. In
// exclusive mode the first pass left each partition's first element unwritten
// and holds x_begin..x_{i-1} elsewhere, so the first element becomes the prefix.
template <class Policy, class A, class OutIt, class Op>
__global__ void __launch_bounds__(Policy::threads)
    add_prefixes_kernel(OutIt out, std::int64_t n, std::int64_t tiles_per_partition,
                        const A* prefixes, bool has_init, scan_mode mode, Op op) {
  const std::int64_t p = blockIdx.x;
  if (p == 0 && !has_init) return;  // the first partition is already final
  const auto r = partition_range::of(p, tiles_per_partition, Policy::tile_items, n);
  const A prefix = prefixes[p];
  for (std::int64_t i = r.begin + threadIdx.x; i < r.end; i += Policy::threads) {
    if (mode == scan_mode::exclusive && i == r.begin) {
      out[i] = prefix;
    } else {
      out[i] = op(prefix, static_cast<A>(out[i]));
    }
  }
}

}  // namespace streamscan::cuda::detail
