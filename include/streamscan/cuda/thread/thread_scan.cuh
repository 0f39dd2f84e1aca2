// streamscan/cuda/thread/thread_scan.cuh - sequential reduce/scan of one
// thread's registers (the "row" of [StreamScan]'s matrix scan).
//
// No identity element is assumed: an optional prefix is carried as (value, flag).
#pragma once

namespace streamscan::cuda {

template <int N, class T, class Op>
__device__ __forceinline__ T thread_reduce(const T (&items)[N], Op& op) {
  T acc = items[0];
#pragma unroll
  for (int i = 1; i < N; ++i) acc = op(acc, items[i]);
  return acc;
}

// items[i] <- prefix (+) items[0] (+) ... (+) items[i]; prefix only if has_prefix.
template <int N, class T, class Op>
__device__ __forceinline__ void thread_inclusive_scan(T (&items)[N], Op& op, const T& prefix,
                                                      bool has_prefix) {
  if (has_prefix) items[0] = op(prefix, items[0]);
#pragma unroll
  for (int i = 1; i < N; ++i) items[i] = op(items[i - 1], items[i]);
}

// items[i] <- prefix (+) items[0] (+) ... (+) items[i-1]. Without a prefix,
// items[0] is left unspecified (there is no identity to put there).
template <int N, class T, class Op>
__device__ __forceinline__ void thread_exclusive_scan(T (&items)[N], Op& op, const T& prefix,
                                                      bool has_prefix) {
  T running = has_prefix ? op(prefix, items[0]) : items[0];
  if (has_prefix) items[0] = prefix;
#pragma unroll
  for (int i = 1; i < N; ++i) {
    const T x = items[i];
    items[i] = running;
    running = op(running, x);
  }
}

}  // namespace streamscan::cuda
