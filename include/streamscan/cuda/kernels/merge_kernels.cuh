// streamscan/cuda/kernels/merge_kernels.cuh - the stable merge of two sorted
// runs (agent_merge.cuh): a search kernel finds each tile's sources along its
// first diagonal, then a block merges each tile.
#pragma once

#include <cstdint>

#include "../agent/agent_merge.cuh"

namespace streamscan::cuda::detail {

// path[t] for t in [0, tiles]: how many of the first t * tile outputs come from a.
template <class K>
__global__ void merge_partition_kernel(const K* a, std::int64_t na, const K* b, std::int64_t nb, int tile,
                                       std::int64_t tiles, sort_order_bits<K> order, std::int64_t* path) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::int64_t diag = t * tile < na + nb ? t * tile : na + nb;
  path[t] = merge_path(a, na, b, nb, diag, order);
}

template <class K, class V, bool Pairs, int Threads, int Items>
__global__ void __launch_bounds__(Threads) merge_kernel(typename agent_merge<K, V, Pairs, Threads, Items>::params p) {
  using agent = agent_merge<K, V, Pairs, Threads, Items>;
  __shared__ typename agent::storage s;
  agent::run(p, s, blockIdx.x);
}

}  // namespace streamscan::cuda::detail
