// streamscan/cuda/agent/look_back.cuh - how a tile learns its exclusive prefix
// from its predecessors' status words (the walk; what is published and when
// is tile_prefix.cuh's). Shared by every single-pass algorithm.
//
//  * chained ([StreamScan] sec. 3.2): one thread waits for exactly its
//    predecessor's inclusive prefix. Each prefix is one op on the previous one,
//    so floating-point results do not depend on timing.
//  * decoupled ([DecoupledLookback]; [LookbackReport] sec. 2.2): a warp inspects the
//    nearest predecessors a few windows of 32 at a time, walks further back while none holds
//    an inclusive prefix, and folds the aggregates after the nearest one. For exactly
//    associative operators as trees on the way back (look_back_decoupled); for the
//    others in a grouping fixed in advance, so that results are deterministic too
//    (look_back_grouped).
#pragma once

#include <cstdint>

#include "../util/shuffle.cuh"
#include "../warp/warp_scan.cuh"
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

// Decoupled, for exactly associative operators (streamscan::is_exactly_associative:
// any grouping gives the same bits): returns the exclusive prefix of `tile`
// (tile > 0) in every lane. Call with the whole of warp 0. `max_sleep_ns` caps
// the polling backoff.
//
// Each round trip reads `Windows` windows of 32 predecessors at once (lane l
// of window j reads tile top - 32 j - l): in the pipelined kernels a tile's
// nearest inclusive prefix lags hundreds of tiles behind (the look-back runs
// well after the reduce while new tiles keep being taken), and a walk of one
// window per round trip kept the look-back warps almost always busy. Each
// window folds as a tree (five shuffle steps) while the walk goes back,
// prepended to what the nearer windows gave, and the walk ends at the first P.
template <class A, int Windows = 4, class Status, class Op>
__device__ A look_back_decoupled(const Status& status, std::int64_t tile, Op& op, unsigned max_sleep_ns = 1024) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned all = 0xffffffffu;
  constexpr int K = Windows;
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
    // Lane l of window j reads tile top - 32 j - l; waits until none of those
    // is X. Tile 0 always publishes P, so lanes past it (negative tiles) lie
    // beyond the P that ends any walk and read as P.
    A value[K];
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
    for (int j = 0; j < K; ++j) {
      const unsigned prefixes = __ballot_sync(all, flag[j] == tile_prefix);
      const int last = prefixes ? __ffs(prefixes) - 1 : 31;
      const A w = window_fold(value[j], last);
      acc = started ? op(w, acc) : w;
      started = true;
      if (prefixes) return acc;
    }
  }
}

// What look_back_grouped gives a tile: its exclusive prefix, and, for a
// window's last tile, the inclusive prefix through its window (what it
// publishes as P; other tiles get only their window's part of it).
template <class A>
struct grouped_prefix {
  A exclusive;
  A through_window;
};

// Decoupled, for any associative operator (the only walk of plain scans; it
// keeps floating-point sums deterministic): the same bits whatever the timing,
// because every prefix is one expression fixed in advance. Tiles are grouped in
// aligned windows of 32 (window u: tiles 32u .. 32u + 31). A tile's term T is
// what its status holds before any walk: its aggregate, or a value it published
// as P at once (tile 0 with the init; a segmented total that starts a segment,
// which no earlier term can change). Within a window, F_u(l) is the Kogge-Stone
// fold of terms 0..l (warp_scan::inclusive: one tree for each l, whatever lanes
// above l hold). Across windows, Q_u = Q_{u-1} (+) F_u(31), Q_0 = F_0(31): the
// prefix through window u, the only P a look-back publishes (by the window's
// last tile). The exclusive prefix of tile 32 w + i is Q_{w-1} (+) F_w(i - 1)
// (Q_{w-1} when i = 0, F_0(i - 1) in window 0).
//
// The walk: the nearest window end holding P gives some Q_u (read with the
// tile's own window: one round trip when Q_{w-1} is out), then the windows
// after it fold forward one op each, `Windows` windows read a round trip and
// each folded as a tree; a window whose end has turned P since is a new start
// with the same bits. Against a left-to-right fold of every tile this makes a
// walk of k tiles k/32 ops in sequence instead of k. Call with the whole of
// warp 0, tile > 0; `total` is the tile's own term (the last lane of its
// window's fold).
template <class A, int Windows = 4, class Status, class Op>
__device__ grouped_prefix<A> look_back_grouped(const Status& status, std::int64_t tile, const A& total, Op& op,
                                               unsigned max_sleep_ns = 1024) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned all = 0xffffffffu;
  constexpr int K = Windows;
  const std::int64_t w = tile / 32;
  const int i = static_cast<int>(tile % 32);
  // Lane l of window j reads tile 32 (first + j) + l, for the windows before
  // `end`, until none is X; ends[j]: whether window j's last tile is P.
  auto read = [&](std::int64_t first, std::int64_t end, A (&value)[K], bool (&ends)[K]) {
    tile_flag flag[K];
    spin_backoff backoff(max_sleep_ns);
    while (true) {
      bool waiting = false;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        flag[j] = tile_aggregate;
        if (first + j < end) flag[j] = status.peek(32 * (first + j) + lane, value[j]);
        waiting |= flag[j] == tile_invalid;
      }
      if (!__any_sync(all, waiting)) break;
      backoff.pause();
    }
#pragma unroll
    for (int j = 0; j < K; ++j) ends[j] = __ballot_sync(all, flag[j] == tile_prefix) >> 31;
  };

  // One round trip for the common case: the tile's own window (lanes below
  // i, waited for until none is X) and the ends of the 32 windows before it
  // (lane l: window w - 1 - l; X or A there only means "no Q yet").
  A value[K];
  bool ends[K];
  value[0] = total;
  A end_value{};
  tile_flag end_flag = tile_invalid;
  {
    const std::int64_t end_window = w - 1 - lane;
    tile_flag flag = tile_aggregate;
    spin_backoff backoff(max_sleep_ns);
    while (true) {
      if (lane < i) flag = status.peek(32 * w + lane, value[0]);
      if (end_window >= 0) end_flag = status.peek(32 * end_window + 31, end_value);
      if (!__any_sync(all, flag == tile_invalid)) break;
      backoff.pause();
    }
  }
  // Terms 0..i-1 from the statuses, i the tile's own. Lanes above i take
  // lane 0's term, so that the fold only ever sees real terms.
  const A first_term = shfl_idx(all, value[0], 0);
  const A term = lane < i ? value[0] : lane == i ? total : first_term;
  const A own = warp_scan::inclusive(term, op, lane);
  const A before = shfl_idx(all, own, i > 0 ? i - 1 : 0);  // F_w(i - 1)
  const A through = shfl_idx(all, own, i);                  // F_w(i)
  if (w == 0) return {before, through};

  // Q_{w-1}: the nearest window end holding P, 32 window ends a round trip.
  A q{};
  std::int64_t start = -1;  // the window whose Q is q; -1: none, window 0 starts the fold
  for (std::int64_t top = w - 1; top >= 0; top -= 32) {
    if (top != w - 1) {
      const std::int64_t window = top - lane;
      end_flag = window >= 0 ? status.peek(32 * window + 31, end_value) : tile_invalid;
    }
    const unsigned found = __ballot_sync(all, end_flag == tile_prefix);
    if (found) {
      const int l = __ffs(found) - 1;
      q = shfl_idx(all, end_value, l);
      start = top - l;
      break;
    }
  }
  // Then forward through windows start + 1 .. w - 1, K a round trip.
  for (std::int64_t first = start + 1; first < w; first += K) {
    read(first, w, value, ends);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      if (first + j >= w) break;
      if (ends[j]) {  // this window's end has turned P: Q of this window, the same bits
        q = shfl_idx(all, value[j], 31);
      } else {
        const A f = shfl_idx(all, warp_scan::inclusive(value[j], op, lane), 31);
        q = first + j == 0 ? f : op(q, f);
      }
    }
  }
  // Only a window's last tile publishes the prefix through its window: the
  // others skip that op (warp-uniform).
  return {i > 0 ? op(q, before) : q, i == 31 ? op(q, through) : through};
}

}  // namespace streamscan::cuda::detail
