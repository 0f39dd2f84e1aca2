// streamscan/cuda/agent/look_back.cuh - how a tile learns its exclusive prefix
// from its predecessors' status words (the walk; what is published and when
// is tile_prefix.cuh's). Shared by every single-pass algorithm.
//
//  * chained ([StreamScan] sec. 3.2): one thread waits for exactly its
//    predecessor's inclusive prefix. Each prefix is one op on the previous one,
//    so floating-point results do not depend on timing.
//  * decoupled ([DecoupledLookback]; [LookbackReport] sec. 2.2): a warp inspects the
//    nearest predecessors a few windows of 32 at a time, walks further back while none holds
//    an inclusive prefix, and folds the aggregates after the nearest one: left
//    to right, so that results are deterministic too, or, for exactly
//    associative operators, as trees on the way back.
#pragma once

#include <cstdint>

#include "../util/shuffle.cuh"
#include "tile_status.cuh"

namespace streamscan::cuda::detail {

// Polls a status word: first back-to-back (a predecessor is usually about to
// publish), then with exponentially growing sleeps, up to `max_ns`, so that
// spinning warps leave issue slots and memory bandwidth to the blocks they
// wait for. The chained scan caps the sleep low: every nanosecond a waiting
// block oversleeps is added to the serial chain of hand-offs.
class spin_backoff {
 public:
  __device__ explicit spin_backoff(unsigned max_ns = 1024) : max_ns_(max_ns) {}
  __device__ void pause() {
    if (++polls_ <= 8) return;
    __nanosleep(delay_ns_);
    if (delay_ns_ < max_ns_) delay_ns_ *= 2;
  }

 private:
  int polls_ = 0;
  unsigned delay_ns_ = 16;
  unsigned max_ns_;
};

// Chained: returns the inclusive prefix of tile - 1 (tile > 0). One thread.
template <class A, class Status>
__device__ A wait_for_predecessor(const Status& status, std::int64_t tile) {
  A value;
  spin_backoff backoff(64);
  while (status.peek(tile - 1, value) != tile_prefix) backoff.pause();
  return value;
}

// Decoupled: returns the exclusive prefix of `tile` (tile > 0) in every lane.
// Call with the whole of warp 0. `max_sleep_ns` caps the polling backoff.
//
// Each round trip reads `Windows` windows of 32 predecessors at once (lane l
// of window j reads tile top - 32 j - l): in the pipelined kernels a tile's
// nearest inclusive prefix lags hundreds of tiles behind (the look-back runs
// well after the reduce while new tiles keep being taken), and a walk of one
// window per round trip kept the look-back warps almost always busy.
//
// Exact = false: the prefix is folded strictly left to right, from the
// nearest P_j, then A_{j+1}, ..., A_{tile-1}, one op at a time. Every P is
// made the same way (P_i = P_{i-1} (+) A_i), so whichever P a tile happens to
// find, it applies the same operations in the same order as the chain would:
// results are bit-for-bit run-to-run deterministic, floating point included.
// The walk goes back to the nearest P without folding, then forward again.
// Exact = true (the op is exactly associative, streamscan::is_exactly_associative):
// any grouping gives the same bits, so each window folds as a tree (five
// shuffle steps) while the walk goes back, prepended to what the nearer
// windows gave, and the walk ends at the first P.
template <class A, bool Exact = false, int Windows = 4, class Status, class Op>
__device__ A look_back_decoupled(const Status& status, std::int64_t tile, Op& op, unsigned max_sleep_ns = 1024) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned all = 0xffffffffu;
  constexpr int K = Windows;
  // Lane l of window j reads tile top - 32 j - l; waits until none of those
  // is X. Tile 0 always publishes P, so lanes past it (negative tiles) lie
  // beyond the P that ends any walk and read as P. prefixes[j]: the ballot
  // of window j's P lanes.
  auto inspect = [&](std::int64_t top, A (&value)[K], unsigned (&prefixes)[K]) {
    tile_flag flag[K];
    spin_backoff backoff(max_sleep_ns);
    while (true) {
      bool waiting = false;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const std::int64_t pred = top - 32 * j - lane;
        flag[j] = pred >= 0 ? status.peek(pred, value[j]) : tile_prefix;
        waiting |= flag[j] == tile_invalid;
      }
      if (!__any_sync(all, waiting)) break;
      backoff.pause();
    }
#pragma unroll
    for (int j = 0; j < K; ++j) prefixes[j] = __ballot_sync(all, flag[j] == tile_prefix);
  };
  A value[K];
  unsigned prefixes[K];
  if constexpr (Exact) {
    // value[last] (+) ... (+) value[0] of lanes [0, last], in every lane.
    auto window_fold = [&](A v, int last) {
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const A t = shfl_down(all, v, d);
        if (lane + d <= last) v = op(t, v);
      }
      return shfl_idx(all, v, 0);
    };
    A acc{};
    bool started = false;
    for (std::int64_t top = tile - 1;; top -= 32 * K) {
      inspect(top, value, prefixes);
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const int last = prefixes[j] ? __ffs(prefixes[j]) - 1 : 31;
        const A w = window_fold(value[j], last);
        acc = started ? op(w, acc) : w;
        started = true;
        if (prefixes[j]) return acc;
      }
    }
  } else {
    // Folds lanes [0, from] of `v` into acc, highest lane (earliest tile) first.
    auto fold = [&](A acc, const A& v, int from) {
      for (int l = from; l >= 0; --l) acc = op(acc, shfl_idx(all, v, l));
      return acc;
    };
    // acc from the nearest P of a group of windows holding one, then the
    // nearer windows of the group (unrolled: the windows stay in registers).
    auto fold_from_prefix = [&]() {
      int nearest = K;
#pragma unroll
      for (int j = K - 1; j >= 0; --j)
        if (prefixes[j]) nearest = j;
      A acc{};
#pragma unroll
      for (int j = K - 1; j >= 0; --j) {
        if (j == nearest) {
          const int p = __ffs(prefixes[j]) - 1;
          acc = fold(shfl_idx(all, value[j], p), value[j], p - 1);
        } else if (j < nearest) {
          acc = fold(acc, value[j], 31);
        }
      }
      return acc;
    };
    auto any_prefix = [&]() {
      unsigned any = 0;
#pragma unroll
      for (int j = 0; j < K; ++j) any |= prefixes[j];
      return any != 0;
    };
    // Walk back to the nearest group holding a P.
    std::int64_t top = tile - 1;
    for (;; top -= 32 * K) {
      inspect(top, value, prefixes);
      if (any_prefix()) break;
    }
    A acc = fold_from_prefix();
    // Then forward through the nearer groups, re-read in order. A tile that
    // has turned P since is a valid new start: it holds the same fold.
    for (top += 32 * K; top <= tile - 1; top += 32 * K) {
      inspect(top, value, prefixes);
      if (any_prefix()) {
        acc = fold_from_prefix();
      } else {
#pragma unroll
        for (int j = K - 1; j >= 0; --j) acc = fold(acc, value[j], 31);
      }
    }
    return acc;
  }
}

}  // namespace streamscan::cuda::detail
