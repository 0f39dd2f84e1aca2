// streamscan/cuda/agent/look_back.cuh - how a tile learns its exclusive prefix
// from its predecessors' status words. Shared by every single-pass algorithm.
//
//  * chained (StreamScan, seed 000 sec. 3.2): one thread waits for exactly its
//    predecessor's inclusive prefix. Each prefix is one op on the previous one,
//    so floating-point results do not depend on timing.
//  * decoupled (Merrill & Garland; seed 001 sec. 2.2): warp 0 inspects the 32
//    nearest predecessors at once, folds their aggregates up to the nearest
//    inclusive prefix, and walks further back while none is found.
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
template <class A, class Status, class Op>
__device__ A look_back_decoupled(const Status& status, std::int64_t tile, Op& op, unsigned max_sleep_ns = 1024) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  A running{};
  bool have_running = false;
  for (std::int64_t nearest = tile - 1;; nearest -= 32) {
    // Lane l inspects tile nearest - l. Tile 0 always publishes P, so lanes
    // past it (negative tiles) lie beyond the P that ends the walk.
    const std::int64_t pred = nearest - lane;
    A value{};
    tile_flag flag = tile_prefix;
    spin_backoff backoff(max_sleep_ns);
    while (true) {
      if (pred >= 0) flag = status.peek(pred, value);
      if (!__any_sync(0xffffffffu, flag == tile_invalid)) break;
      backoff.pause();
    }
    const unsigned prefixes = __ballot_sync(0xffffffffu, flag == tile_prefix);
    const int lanes = prefixes ? __ffs(prefixes) : 32;  // lanes [0, lanes) take part
    // Fold lanes [0, lanes) in sequence order: a higher lane is an earlier
    // tile, so it goes on the left of op.
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const A other = shfl_down(0xffffffffu, value, d);
      if ((lane & (2 * d - 1)) == 0 && lane + d < lanes) value = op(other, value);
    }
    value = shfl_idx(0xffffffffu, value, 0);  // lane 0 holds the window's fold
    running = have_running ? op(value, running) : value;
    have_running = true;
    if (prefixes) return running;
  }
}

}  // namespace streamscan::cuda::detail
