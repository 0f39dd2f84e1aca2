// streamscan/cuda/agent/recurrence_tile_io.cuh - the linear recurrence's
// forward pass as a plain single-pass scan: the tile IO through which the
// vectorised agent (agent_single_pass_scan.cuh) reads (a, b) pairs and writes
// h, for sequences laid end to end in memory (dense rows, time contiguous).
//
// Scan position k is element k (forward) or n - 1 - k (reverse), exactly as
// the plain scan's vector_tile_io. An element at its sequence's first step in
// scan order (t == 0 forward, t == length - 1 reverse) is closed: a := 0 and
// b := a h[-1] + b with the sequence's initial state, so no prefix crosses
// into another sequence, and a tile whose total is closed is its own prefix
// (tile_total_traits in agent_linear_recurrence.cuh). The agent's loads are
// warp-contiguous 16-byte vectors of a and of b; h is the scanned pair's b.
#pragma once

#include <cstdint>

#include "../../linear_recurrence.hpp"
#include "../thread/thread_linear_recurrence.cuh"
#include "tile_io.cuh"
#include "vector_input.cuh"

namespace streamscan::cuda::detail {

template <class T, bool Backward>
struct recurrence_tile_io {
  using value = recurrence_value<T>;
  using S = typename value::state;
  using value_type = recurrence_pair<S>;
  static constexpr int width = static_cast<int>(16 / sizeof(T));  // values of T in one 16-byte load
  struct vector_meta {};

  const T* a;
  const T* b;
  T* h;
  const T* initial;  // one a sequence, or null
  std::int64_t n, length;
  double inv_length;  // 1 / length

  // e mod length: a 64-bit division is ~100 instructions, and one runs every
  // vector; the double quotient is off by at most one below 2^51 elements.
  __device__ std::int64_t step_of(std::int64_t e) const {
    const std::int64_t r = e - static_cast<std::int64_t>(static_cast<double>(e) * inv_length) * length;
    return r < 0 ? r + length : r >= length ? r - length : r;
  }

  __device__ std::int64_t element(std::int64_t k) const { return Backward ? n - 1 - k : k; }
  __device__ std::int64_t first_element(std::int64_t k) const { return Backward ? n - k - width : k; }

  // The pair of element e, whose step in its sequence is t.
  __device__ value_type pair_at(std::int64_t e, std::int64_t t, S av, S bv) const {
    if (t != (Backward ? length - 1 : 0)) return {av, bv};
    if (initial != nullptr) bv = streamscan::detail::step(av, value::load(initial[e / length]), bv);
    return {S(0), bv};
  }

  __device__ void load(std::int64_t base, int s0, value_type (&v)[width], vector_meta&) const {
    const std::int64_t lowest = first_element(base + s0);
    const vector_of<T, width> va = load_vector<T, width>(a + lowest), vb = load_vector<T, width>(b + lowest);
    std::int64_t t = step_of(lowest);  // step of the lowest element; memory order below
#pragma unroll
    for (int c = 0; c < width; ++c) {
      const S ac = value::load(va.x[c]), bc = value::load(vb.x[c]);
      v[Backward ? width - 1 - c : c] = pair_at(lowest + c, t, ac, bc);
      if (++t == length) t = 0;
    }
  }
  __device__ value_type load_one(std::int64_t base, int s, vector_meta&, int) const {
    const std::int64_t e = element(base + s);
    return pair_at(e, step_of(e), value::load(a[e]), value::load(b[e]));
  }
  __device__ void store(std::int64_t base, int s0, const value_type (&v)[width], const vector_meta&) const {
    vector_of<T, width> raw;
#pragma unroll
    for (int c = 0; c < width; ++c) raw.x[Backward ? width - 1 - c : c] = value::store(v[c].b);
    store_16<T, width>(h + first_element(base + s0), raw);
  }
  __device__ void store_one(std::int64_t base, int s, const value_type& v, const vector_meta&, int) const {
    h[element(base + s)] = value::store(v.b);
  }
};

}  // namespace streamscan::cuda::detail
