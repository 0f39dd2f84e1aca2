// streamscan/cuda/kernels/ranked_sort_kernels.cuh - the splitter search of
// the sort across ranks (dispatch_ranked_sort.cuh). Each rank holds its shard
// sorted; boundary q of the global order sits at global position target[q].
// The search finds the key (its sort_bits, v) at that position most
// significant digit first: in a round, every rank counts its keys below each
// candidate prefix + c * 2^shift (a binary search in its sorted shard, within
// the range that still shares the prefix), the ranks all-gather the counts,
// and every rank picks the same digit c: the largest whose global count is at
// most the target. After the last round every rank knows, for every rank and
// boundary, how many keys lie below v and how many are equal to it.
#pragma once

#include <cstdint>

#include "../agent/agent_merge.cuh"

namespace streamscan::cuda::detail {

// One boundary's search on this rank: the prefix found so far (the same on
// every rank) and this rank's keys that share it, [lo, hi).
template <class U>
struct splitter_state {
  U prefix = 0;
  std::int64_t target = 0;
  std::int64_t lo = 0, hi = 0;
};

// The counts of one round, as this rank sends them: slot 0 is this rank's
// status (0: its work so far succeeded), then for boundary q the
// 2^digit_bits + 1 counts (c = 2^digit_bits: the range's end, hi) at
// 1 + q * stride + c.
struct splitter_layout {
  int boundaries = 0;
  int stride = 0;  // 2^max digit bits + 1
  __host__ __device__ std::int64_t words() const { return 1 + static_cast<std::int64_t>(boundaries) * stride; }
};

template <class K>
__global__ void splitter_count_kernel(const K* sorted, sort_order_bits<K> order,
                                      const splitter_state<typename radix_key_traits<K>::bits_type>* state,
                                      splitter_layout layout, int shift, int digit_bits, std::int64_t* counts) {
  using U = typename radix_key_traits<K>::bits_type;
  const std::int64_t candidates = (std::int64_t{1} << digit_bits) + 1;
  const std::int64_t id = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (id >= candidates * layout.boundaries) return;
  const int q = static_cast<int>(id / candidates);
  const std::int64_t c = id % candidates;
  const auto s = state[q];
  std::int64_t lo = s.lo, hi = s.hi;
  if (c + 1 < candidates) {
    const U bound = static_cast<U>(s.prefix + (static_cast<U>(c) << shift));
    while (lo < hi) {  // the first key in [lo, hi) not below `bound`
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (order(sorted[mid]) < bound)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  counts[1 + static_cast<std::int64_t>(q) * layout.stride + c] = c + 1 < candidates ? lo : s.hi;
}

// A thread per boundary: the digit every rank picks, from every rank's counts
// (gathered: ranks x layout.words()). The global count rises with c, so the
// digit (the largest c whose global count is at most the target; c = 0
// always is, since the keys below the prefix are) is a binary search. The
// last round (shift == 0) writes, for each rank r, its keys below v and up to
// v: result[2 * (q * ranks + r) + {0, 1}], and after them every rank's
// status: result[2 * boundaries * ranks + r].
template <class U>
__global__ void splitter_choose_kernel(const std::int64_t* gathered, int ranks, int me, splitter_layout layout,
                                       int shift, int digit_bits, splitter_state<U>* state, std::int64_t* result) {
  const int q = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= layout.boundaries) return;
  const std::int64_t words = layout.words();
  const auto count = [&](int r, int c) { return gathered[r * words + 1 + static_cast<std::int64_t>(q) * layout.stride + c]; };
  const auto global = [&](int c) {
    std::int64_t total = 0;
    for (int r = 0; r < ranks; ++r) total += count(r, c);
    return total;
  };
  splitter_state<U> s = state[q];
  int lo = 0, hi = (1 << digit_bits) - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (global(mid) <= s.target)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int c = lo;
  s.prefix = static_cast<U>(s.prefix + (static_cast<U>(c) << shift));
  s.lo = count(me, c);
  s.hi = count(me, c + 1);
  state[q] = s;
  if (shift != 0) return;
  if (q == 0)
    for (int r = 0; r < ranks; ++r) result[2 * static_cast<std::int64_t>(layout.boundaries) * ranks + r] = gathered[r * words];
  for (int r = 0; r < ranks; ++r) {
    result[2 * (static_cast<std::int64_t>(q) * ranks + r)] = count(r, c);
    result[2 * (static_cast<std::int64_t>(q) * ranks + r) + 1] = count(r, c + 1);
  }
}

}  // namespace streamscan::cuda::detail
