// streamscan/cuda/agent/agent_merge.cuh - what one block does in the stable
// merge of two sorted runs (merge path, [MergePath]): the block's share of
// the output is a fixed-size tile whose sources, a piece of each run, were
// found by a search along the tile's first diagonal (merge_partition_kernel).
// The block stages both pieces in shared memory, each thread finds its own
// diagonal there and merges `Items` outputs sequentially, and the tile leaves
// through shared memory in coalesced stores. Values follow their keys by the
// source position each output remembers.
//
// Order: the sort's (sort_bits: the mapped key, inverted for descending
// order, cut to [begin_bit, end_bit)); on equal bits the first run's key
// comes first, so merging the runs of lower ranks first keeps a sort stable.
#pragma once

#include <cstdint>

#include "../../sort.hpp"

namespace streamscan::cuda::detail {

// The order the merge keeps: sort_bits of a key.
template <class K>
struct sort_order_bits {
  using U = typename radix_key_traits<K>::bits_type;
  int begin_bit = 0;
  int end_bit = radix_key_traits<K>::bits;
  bool descending = false;
  __host__ __device__ U operator()(K k) const { return sort_bits(k, begin_bit, end_bit, descending); }
};

// How many of the first `diag` outputs of merging a[0, na) and b[0, nb) come
// from a (ties to a). A binary search over the diagonal; works on any memory.
template <class K>
__device__ std::int64_t merge_path(const K* a, std::int64_t na, const K* b, std::int64_t nb, std::int64_t diag,
                                   sort_order_bits<K> order) {
  std::int64_t lo = diag > nb ? diag - nb : 0;
  std::int64_t hi = diag < na ? diag : na;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    // a[mid] is among the first `diag` when it does not come after b[diag - 1 - mid].
    if (order(a[mid]) <= order(b[diag - 1 - mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <class K, class V, bool Pairs, int Threads, int Items>
struct agent_merge {
  static constexpr int tile = Threads * Items;

  struct params {
    const K* a_keys = nullptr;
    const K* b_keys = nullptr;
    const V* a_values = nullptr;
    const V* b_values = nullptr;
    std::int64_t na = 0, nb = 0;
    K* keys_out = nullptr;
    V* values_out = nullptr;
    const std::int64_t* path = nullptr;  // path[t]: a's share of the outputs before tile t (tiles + 1 of them)
    sort_order_bits<K> order;
  };

  struct storage {
    K keys[tile];
    int source[Pairs ? tile : 1];  // output j came from staged position source[j]
  };

  __device__ static void run(const params& p, storage& s, std::int64_t t) {
    const std::int64_t total = p.na + p.nb;
    const std::int64_t diag0 = t * tile;
    const std::int64_t diag1 = diag0 + tile < total ? diag0 + tile : total;
    const std::int64_t a0 = p.path[t], a1 = p.path[t + 1];
    const std::int64_t b0 = diag0 - a0;
    const int na = static_cast<int>(a1 - a0), count = static_cast<int>(diag1 - diag0);

    // Stage: a's piece, then b's, contiguous; every load of a thread in flight at once.
    K staged[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int i = threadIdx.x + k * Threads;
      if (i < count) staged[k] = i < na ? p.a_keys[a0 + i] : p.b_keys[b0 + (i - na)];
    }
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int i = threadIdx.x + k * Threads;
      if (i < count) s.keys[i] = staged[k];
    }
    __syncthreads();

    // This thread's diagonal within the tile, then its outputs in order.
    K out[Items];
    int from[Items];
    const int diag = threadIdx.x * Items < count ? threadIdx.x * Items : count;
    int i = static_cast<int>(merge_path(s.keys, na, s.keys + na, count - na, diag, p.order));
    int j = na + (diag - i);
    // The next key of each side stays in a register: one shared load an output.
    const auto at_most = [&](int at, int end) { return at < end ? at : (end > 0 ? end - 1 : 0); };
    K a_key = s.keys[at_most(i, na)], b_key = s.keys[at_most(j, count)];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool take_a = i < na && (j >= count || p.order(a_key) <= p.order(b_key));
      out[k] = take_a ? a_key : b_key;
      from[k] = take_a ? i : j;
      if (take_a)
        a_key = s.keys[at_most(++i, na)];
      else
        b_key = s.keys[at_most(++j, count)];
    }
    __syncthreads();

    // Out through shared memory: coalesced stores.
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int at = threadIdx.x * Items + k;
      if (at < count) {
        s.keys[at] = out[k];
        if constexpr (Pairs) s.source[at] = from[k];
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int at = threadIdx.x + k * Threads;
      if (at < count) p.keys_out[diag0 + at] = s.keys[at];
    }
    if constexpr (Pairs) {
      V values[Items];
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int at = threadIdx.x + k * Threads;
        if (at < count) {
          const int src = s.source[at];
          values[k] = src < na ? p.a_values[a0 + src] : p.b_values[b0 + (src - na)];
        }
      }
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int at = threadIdx.x + k * Threads;
        if (at < count) p.values_out[diag0 + at] = values[k];
      }
    }
  }
};

}  // namespace streamscan::cuda::detail
