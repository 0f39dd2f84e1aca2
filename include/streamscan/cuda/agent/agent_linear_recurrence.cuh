// streamscan/cuda/agent/agent_linear_recurrence.cuh - one tile of a linear
// recurrence (semantics: streamscan/linear_recurrence.hpp; shapes:
// tuning/linear_recurrence.hpp). Two tile shapes, both single-pass with the
// decoupled look-back, both running either pass:
//
//  * forward pass: element (a[t], b[t]) at scan position p; p == 0 is
//    "closed" (a := 0, b := a h[-1] + b with the initial state), so no
//    prefix ever crosses into another sequence; out h[t] = x[p].
//  * gradient pass (scan positions run the other way in time): element
//    (a at scan position p - 1, dh[t]), closed at p == 0; out grad_b[t] =
//    x[p], grad_a[t] = x[p] * (h at scan position p + 1, or the initial state
//    at the sequence's far end), grad_initial[s] = a[t] x[p] there. The a and
//    h of the neighbouring position come from the thread's own run, and from
//    one extra load at each end of it.
//
// Rows (time_stride == 1): sequences end to end in scan order, f = s * length
// + p; a thread owns `Items` consecutive positions, 16-byte vectors where they
// are consecutive in memory (dense rows, or rows whose length and strides are
// multiples of Items), backward runs reversed in registers; the tile's
// statuses are the plain scan's (tile_prefix.cuh), and a tile whose total is
// closed publishes it as its inclusive prefix at once (a tile that holds a
// sequence start: short sequences never wait).
//
// Lanes (other layouts): lane l of every warp owns sequence 32 g + l, warp w
// positions [k H + w Items, + Items) of tile (k, g) (H = warps x Items); each
// lane looks back along its own sequence's chain of statuses (one status word
// per tile and sequence; tiles are taken k-major, so a predecessor is mostly
// done long before).
#pragma once

#include <cstdint>
#include <cstring>

#include "../../linear_recurrence.hpp"
#include "../thread/thread_linear_recurrence.cuh"
#include "../util/shuffle.cuh"
#include "../warp/warp_scan.cuh"
#include "look_back.cuh"
#include "tile_id.cuh"
#include "tile_prefix.cuh"
#include "tile_status.cuh"

namespace streamscan::cuda::detail {

// A closed total does not depend on what came before: it is its tile's
// inclusive prefix.
template <class S>
struct tile_total_traits<recurrence_pair<S>> {
  __device__ static bool is_prefix(const recurrence_pair<S>& t) { return t.a == S(0); }
};

// What a kernel reads and writes. T: the storage type.
template <class T>
struct recurrence_problem {
  const T* a = nullptr;
  const T* b = nullptr;  // forward: b; gradient: dh
  T* out = nullptr;      // forward: h; gradient: grad_b
  const T* initial = nullptr;
  const T* hist = nullptr;     // gradient: the forward's h
  T* grad_a = nullptr;         // gradient
  T* grad_initial = nullptr;   // gradient, optional
  std::int64_t sequences = 0, length = 0, channels = 1, time_stride = 1, channel_stride = 0, batch_stride = 0;
  bool backward = false;  // scan positions run toward lower t
  bool dense = false;     // time_stride == 1 and sequence s starts at s * length

  __host__ __device__ std::int64_t row(std::int64_t s) const {
    return channels == 1 ? s * batch_stride : (s / channels) * batch_stride + (s % channels) * channel_stride;
  }
  // The element of scan position p of sequence s.
  __host__ __device__ std::int64_t at(std::int64_t s, std::int64_t p) const {
    return row(s) + (backward ? length - 1 - p : p) * time_stride;
  }
};

// 16-byte vectors of a run of V values at p + lowest (aligned), reversed in
// registers when `reverse`.
template <int V, class T>
__device__ __forceinline__ void load_run(const T* p, std::int64_t lowest, bool reverse, T (&v)[V]) {
  static_assert(V * sizeof(T) % 16 == 0, "whole 16-byte vectors");
  constexpr int words = static_cast<int>(V * sizeof(T) / 16);
  uint4 w[words];
  const uint4* src = reinterpret_cast<const uint4*>(p + lowest);
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = src[i];
  T t[V];
  memcpy(t, w, sizeof t);
#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = reverse ? t[V - 1 - k] : t[k];
}
template <int V, class T>
__device__ __forceinline__ void store_run(T* p, std::int64_t lowest, bool reverse, const T (&v)[V]) {
  constexpr int words = static_cast<int>(V * sizeof(T) / 16);
  T t[V];
#pragma unroll
  for (int k = 0; k < V; ++k) t[k] = reverse ? v[V - 1 - k] : v[k];
  uint4 w[words];
  memcpy(w, t, sizeof w);
  uint4* dst = reinterpret_cast<uint4*>(p + lowest);
#pragma unroll
  for (int i = 0; i < words; ++i) dst[i] = w[i];
}

// The (a, b) pair of one position, from the run's raw values. head: p == 0;
// s: the sequence (for its initial state).
template <bool Grad, class T, class S>
__device__ __forceinline__ recurrence_pair<S> recurrence_element(const recurrence_problem<T>& q, bool head,
                                                                 std::int64_t s, S a_here, S a_before, S b) {
  using value = recurrence_value<T>;
  if constexpr (Grad) {
    (void)q, (void)s, (void)a_here;
    return {head ? S(0) : a_before, b};
  } else {
    (void)a_before;
    if (!head) return {a_here, b};
    if (q.initial != nullptr) b = streamscan::detail::step(a_here, value::load(q.initial[s]), b);
    return {S(0), b};
  }
}

// Rows: one tile of Threads x Items scan positions of the sequences laid end
// to end. Vector: the problem allows 16-byte runs (checked by the dispatch).
template <class T, int Threads, int Items, bool Grad, bool Vector>
struct agent_recurrence_rows {
  using value = recurrence_value<T>;
  using S = typename value::state;
  using pair = recurrence_pair<S>;
  static constexpr int warps = Threads / 32;
  static constexpr int tile_items = Threads * Items;
  using prefix_op = tile_prefix_op<pair, recurrence_compose, look_back_kind::decoupled>;

  struct temp_storage {
    pair warp_total[warps];
    std::int64_t tile;
    typename prefix_op::temp_storage prefix;
  };

  // Scan position -> (sequence in scan order, step), advanced one at a time.
  struct cursor {
    std::int64_t seq, p;
    __device__ void advance(std::int64_t length) {
      if (++p == length) {
        p = 0;
        ++seq;
      }
    }
  };

  const recurrence_problem<T>& q;
  std::int64_t n, lead, tiles;  // n = sequences x length scan positions; lead fillers before position 0
  const tile_status<pair>& status;
  unsigned long long* counter;
  temp_storage& storage;

  __device__ std::int64_t sequence(std::int64_t seq) const { return q.backward ? q.sequences - 1 - seq : seq; }
  __device__ std::int64_t offset(std::int64_t seq, std::int64_t p) const { return q.at(sequence(seq), p); }

  // The lowest element of a whole run in memory (vector runs only: dense rows,
  // or a run inside one row).
  __device__ std::int64_t run_lowest(std::int64_t f0, const cursor& start) const {
    if (q.dense) return q.backward ? n - Items - f0 : f0;
    return q.row(sequence(start.seq)) + (q.backward ? q.length - Items - start.p : start.p);
  }

  __device__ void run() {
    if (threadIdx.x == 0) storage.tile = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
    __syncthreads();
    const std::int64_t tile = storage.tile;
    const std::int64_t f0 = tile * tile_items + static_cast<std::int64_t>(threadIdx.x) * Items - lead;
    const std::int64_t fc = f0 < 0 ? 0 : f0;
    const cursor start{fc / q.length, fc % q.length};
    const int skip = f0 < 0 ? static_cast<int>(-f0 < Items ? -f0 : Items) : 0;  // filler slots first

    // Load: the run's a, b (dh), and for the gradient h, plus the neighbours.
    T av[Items], bv[Items], hv[Items];
    const bool whole = f0 >= 0 && f0 + Items <= n;
    if (Vector && whole) {
      // Lowest element of the run: the run is consecutive in memory.
      const std::int64_t lowest = run_lowest(f0, start);
      load_run<Items>(q.a, lowest, q.backward, av);
      load_run<Items>(q.b, lowest, q.backward, bv);
      if constexpr (Grad) load_run<Items>(q.hist, lowest, q.backward, hv);
    } else {
      cursor c = start;
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        av[k] = bv[k] = hv[k] = T{};
        if (k < skip || f0 + k >= n) continue;
        const std::int64_t at = offset(c.seq, c.p);
        av[k] = q.a[at];
        bv[k] = q.b[at];
        if constexpr (Grad) hv[k] = q.hist[at];
        c.advance(q.length);
      }
    }
    S a_first = S(0), h_after = S(0);  // gradient: a before the run, h after it (same sequence only)
    if constexpr (Grad) {
      // Only a run that holds a position reads its neighbour: the last tile's
      // threads past n have a cursor past the last sequence.
      if (skip < Items && fc < n && start.p > 0) a_first = value::load(q.a[offset(start.seq, start.p - 1)]);
      const std::int64_t f_last = f0 + Items - 1;
      if (f_last >= 0 && f_last < n - 1) {
        const std::int64_t seq = f_last / q.length, p = f_last % q.length;
        if (p + 1 < q.length) h_after = value::load(q.hist[offset(seq, p + 1)]);
      }
    }

    // Thread fold, warp scan, block scan of the warp totals.
    pair x[Items];
    {
      cursor c = start;
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        if (k < skip || f0 + k >= n) {
          x[k] = {S(0), S(0)};  // closed filler: changes nothing after it
          continue;
        }
        const S a_before = k == 0 ? a_first : value::load(av[k - 1]);
        x[k] = recurrence_element<Grad>(q, c.p == 0, sequence(c.seq), value::load(av[k]), a_before,
                                        value::load(bv[k]));
        c.advance(q.length);
      }
    }
    pair agg = x[0];
#pragma unroll
    for (int k = 1; k < Items; ++k) agg = streamscan::detail::compose(agg, x[k]);
    recurrence_compose op;
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    const pair inclusive = warp_scan::inclusive(agg, op, lane);
    const pair lane_before = shfl_up(0xffffffffu, inclusive, 1);
    if (lane == 31) storage.warp_total[warp] = inclusive;
    __syncthreads();
    pair carry{};
    bool have = false;
    pair total = storage.warp_total[0];
#pragma unroll
    for (int w = 1; w < warps; ++w) total = streamscan::detail::compose(total, storage.warp_total[w]);
    prefix_op look_back{status, {pair{}, false}, op};
    tile_slot slot{};
    slot.tile = tile;
    slot.last = tile == tiles - 1;
    const maybe<pair> prefix = look_back(slot, total, storage.prefix);
    if (prefix.present) compose_into(carry, have, prefix.value);
    for (int w = 0; w < warp; ++w) compose_into(carry, have, storage.warp_total[w]);
    if (lane > 0) compose_into(carry, have, lane_before);

    // Apply and store.
    S h = have ? carry.b : S(0);  // nothing before: the run starts a sequence
    T ov[Items];
    cursor c = start;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      h = streamscan::detail::step(x[k].a, h, x[k].b);
      ov[k] = value::store(h);
      if constexpr (Grad) {
        if (k < skip || f0 + k >= n) continue;
        const bool tail = c.p == q.length - 1;
        const std::int64_t s = sequence(c.seq);
        S h_next = k + 1 < Items ? value::load(hv[k + 1]) : h_after;
        if (tail) h_next = q.initial != nullptr ? value::load(q.initial[s]) : S(0);
        hv[k] = value::store(h * h_next);  // grad_a, in hv's place
        if (tail && q.grad_initial != nullptr) q.grad_initial[s] = value::store(value::load(av[k]) * h);
        c.advance(q.length);
      }
    }
    if (Vector && whole) {
      const std::int64_t lowest = run_lowest(f0, start);
      store_run<Items>(q.out, lowest, q.backward, ov);
      if constexpr (Grad) store_run<Items>(q.grad_a, lowest, q.backward, hv);
    } else {
      c = start;
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        if (k < skip || f0 + k >= n) continue;
        const std::int64_t at = offset(c.seq, c.p);
        q.out[at] = ov[k];
        if constexpr (Grad) q.grad_a[at] = hv[k];
        c.advance(q.length);
      }
    }
  }
};

// Lanes: tile (k, g) is sequences [32 g, 32 g + 32) x scan positions
// [k H, (k + 1) H), H = Threads / 32 x Items.
template <class T, int Threads, int Items, bool Grad>
struct agent_recurrence_lanes {
  using value = recurrence_value<T>;
  using S = typename value::state;
  using pair = recurrence_pair<S>;
  static constexpr int warps = Threads / 32;
  static constexpr int tile_steps = warps * Items;

  struct temp_storage {
    pair part[warps][32];
    pair prefix[32];
    bool has_prefix[32];
    std::int64_t tile;
  };

  const recurrence_problem<T>& q;
  std::int64_t groups, steps_tiles;  // sequence groups of 32; tiles along each sequence
  const tile_status<pair>& status;   // word (k, s) at k * groups * 32 + s
  unsigned long long* counter;
  temp_storage& storage;

  __device__ void run() {
    if (threadIdx.x == 0) storage.tile = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
    __syncthreads();
    const std::int64_t tile = storage.tile, k = tile / groups, g = tile % groups;
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    const std::int64_t s = g * 32 + lane, p0 = k * tile_steps + static_cast<std::int64_t>(warp) * Items;
    const bool live = s < q.sequences;
    const std::int64_t row = live ? q.row(s) : 0;
    const std::int64_t dt = q.backward ? -q.time_stride : q.time_stride;
    const std::int64_t at0 = row + (q.backward ? q.length - 1 - p0 : p0) * q.time_stride;
    auto inside = [&](int j) { return live && p0 + j < q.length; };

    T av[Items], bv[Items], hv[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      av[j] = bv[j] = hv[j] = T{};
      if (!inside(j)) continue;
      av[j] = q.a[at0 + j * dt];
      bv[j] = q.b[at0 + j * dt];
      if constexpr (Grad) hv[j] = q.hist[at0 + j * dt];
    }
    S a_first = S(0), h_after = S(0);
    if constexpr (Grad) {
      if (live && p0 > 0 && p0 < q.length) a_first = value::load(q.a[at0 - dt]);
      if (live && p0 + Items < q.length) h_after = value::load(q.hist[at0 + Items * dt]);
    }
    pair x[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      if (!inside(j)) {
        x[j] = {S(0), S(0)};
        continue;
      }
      const S a_before = j == 0 ? a_first : value::load(av[j - 1]);
      x[j] = recurrence_element<Grad>(q, p0 + j == 0, s, value::load(av[j]), a_before, value::load(bv[j]));
    }
    pair agg = x[0];
#pragma unroll
    for (int j = 1; j < Items; ++j) agg = streamscan::detail::compose(agg, x[j]);
    storage.part[warp][lane] = agg;
    __syncthreads();

    // Warp 0: the tile's total per sequence, published, and the look-back
    // along the sequence's own chain.
    if (warp == 0) {
      pair total = storage.part[0][lane];
#pragma unroll
      for (int w = 1; w < warps; ++w) total = streamscan::detail::compose(total, storage.part[w][lane]);
      const std::int64_t stride = groups * 32;
      const bool last = k == steps_tiles - 1, closed = k == 0 || total.a == S(0);
      pair prefix{};
      bool has = false;
      if (live) {
        if (!last) status.publish(k * stride + s, closed ? tile_prefix : tile_aggregate, total);
        if (k > 0) {
          spin_backoff backoff;
          for (std::int64_t j = k - 1;;) {
            pair v;
            const tile_flag flag = status.peek(j * stride + s, v);
            if (flag == tile_invalid) {
              backoff.pause();
              continue;
            }
            prefix = has ? streamscan::detail::compose(v, prefix) : v;
            has = true;
            if (flag == tile_prefix) break;
            --j;
          }
          if (!last && !closed) status.publish(k * stride + s, tile_prefix, streamscan::detail::compose(prefix, total));
        }
      }
      storage.prefix[lane] = prefix;
      storage.has_prefix[lane] = has;
    }
    __syncthreads();
    pair carry{};
    bool have = false;
    if (storage.has_prefix[lane]) compose_into(carry, have, storage.prefix[lane]);
    for (int w = 0; w < warp; ++w) compose_into(carry, have, storage.part[w][lane]);

    S h = have ? carry.b : S(0);
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      if (!inside(j)) continue;
      h = streamscan::detail::step(x[j].a, h, x[j].b);
      q.out[at0 + j * dt] = value::store(h);
      if constexpr (Grad) {
        const bool tail = p0 + j == q.length - 1;
        S h_next = j + 1 < Items ? value::load(hv[j + 1]) : h_after;
        if (tail) h_next = q.initial != nullptr ? value::load(q.initial[s]) : S(0);
        q.grad_a[at0 + j * dt] = value::store(h * h_next);
        if (tail && q.grad_initial != nullptr) q.grad_initial[s] = value::store(value::load(av[j]) * h);
      }
    }
  }
};

}  // namespace streamscan::cuda::detail
