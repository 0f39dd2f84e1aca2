// streamscan/cuda/agent/look_back.cuh - how a tile learns its exclusive prefix
// from its predecessors' status words. Shared by every single-pass algorithm.
//
//  * chained (StreamScan, seed 000 sec. 3.2): one thread waits for exactly its
//    predecessor's inclusive prefix. Each prefix is one op on the previous one,
//    so floating-point results do not depend on timing.
//  * decoupled (Merrill & Garland; seed 001 sec. 2.2): warp 0 inspects the 32
//    nearest predecessors at once, walks further back while none holds an
//    inclusive prefix, and folds the aggregates after the nearest one, left to
//    right, so that results are deterministic too.
#pragma once

#include <cstdint>

#include "../../detail/segmented_scan.hpp"
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
// The prefix is folded strictly left to right: from the nearest inclusive
// prefix P_j, then A_{j+1}, ..., A_{tile-1}, one op at a time. Every P is made
// the same way (P_i = P_{i-1} (+) A_i), so whichever P a tile happens to find,
// it applies the same operations in the same order as the chain would: results
// are bit-for-bit run-to-run deterministic, floating point included. Usually
// the nearest P is a tile or two away, so the serial fold is short.
template <class A, class Status, class Op>
__device__ A look_back_decoupled(const Status& status, std::int64_t tile, Op& op, unsigned max_sleep_ns = 1024) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned all = 0xffffffffu;
  // Lane l inspects tile `window - l`; waits until none of those is X.
  // Tile 0 always publishes P, so lanes past it (negative tiles) lie beyond
  // the P that ends the walk and read as P.
  auto inspect = [&](std::int64_t window, A& value) {
    const std::int64_t pred = window - lane;
    tile_flag flag = tile_prefix;
    spin_backoff backoff(max_sleep_ns);
    while (true) {
      if (pred >= 0) flag = status.peek(pred, value);
      if (!__any_sync(all, flag == tile_invalid)) break;
      backoff.pause();
    }
    return __ballot_sync(all, flag == tile_prefix);
  };
  // Folds lanes [0, from] of `value` into acc, highest lane (earliest tile) first.
  auto fold = [&](A acc, const A& value, int from) {
    for (int l = from; l >= 0; --l) acc = op(acc, shfl_idx(all, value, l));
    return acc;
  };

  // Walk back to the nearest window holding a P.
  std::int64_t window = tile - 1;
  A value{};
  unsigned prefixes;
  while ((prefixes = inspect(window, value)) == 0) window -= 32;
  int p = __ffs(prefixes) - 1;
  A acc = fold(shfl_idx(all, value, p), value, p - 1);
  // Then forward through the nearer windows, re-read in order. A tile that
  // has turned P since is a valid new start: it holds the same fold.
  for (window += 32; window <= tile - 1; window += 32) {
    prefixes = inspect(window, value);
    if (prefixes) {
      p = __ffs(prefixes) - 1;
      acc = fold(shfl_idx(all, value, p), value, p - 1);
    } else {
      acc = fold(acc, value, 31);
    }
  }
  return acc;
}

// A tile total that no predecessor can change (a segmented scan's total over
// a tile holding a segment head: (a, b) -> b when b has one) is already the
// tile's inclusive prefix, so it is published as P at once and later tiles'
// look-backs stop there; with short segments, at the nearest tile. The same
// bits as P = P_prev (+) total, so results stay deterministic.
template <class A>
__device__ bool total_is_prefix(const A&) {
  return false;
}
template <class V>
__device__ bool total_is_prefix(const streamscan::detail::seg_pair<V>& total) {
  return total.head;
}

}  // namespace streamscan::cuda::detail
