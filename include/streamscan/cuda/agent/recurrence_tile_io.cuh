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
#include "../util/async_copy.cuh"
#include "tile_io.cuh"
#include "vector_input.cuh"

namespace streamscan::cuda::detail {

// Scan positions, elements and steps of dense rows (both IOs).
template <class T, bool Backward>
struct recurrence_rows_io {
  using value = recurrence_value<T>;
  using S = typename value::state;
  using value_type = recurrence_pair<S>;
  static constexpr int width = static_cast<int>(16 / sizeof(T));  // values of T in one 16-byte load
  static constexpr int toward = Backward ? -1 : 1;                 // the next element in scan order
  struct vector_meta {};

  std::int64_t n, length;
  double inv_length;  // 1 / length

  // e mod length: a 64-bit division is ~100 instructions, and one runs every
  // vector; the double quotient is off by at most one below 2^51 elements.
  __device__ std::int64_t step_of(std::int64_t e) const {
    const std::int64_t r = e - static_cast<std::int64_t>(static_cast<double>(e) * inv_length) * length;
    return r < 0 ? r + length : r >= length ? r - length : r;
  }
  // Steps of a sequence's first and last element in scan order.
  __device__ std::int64_t first_step() const { return Backward ? length - 1 : 0; }
  __device__ std::int64_t last_step() const { return Backward ? 0 : length - 1; }

  __device__ std::int64_t element(std::int64_t k) const { return Backward ? n - 1 - k : k; }
  __device__ std::int64_t first_element(std::int64_t k) const { return Backward ? n - k - width : k; }
  // Slot of memory index c of a vector, and its values in scan order.
  __device__ static constexpr int slot(int c) { return Backward ? width - 1 - c : c; }
};

template <class T, bool Backward>
struct recurrence_tile_io : recurrence_rows_io<T, Backward> {
  using base_t = recurrence_rows_io<T, Backward>;
  using typename base_t::S;
  using typename base_t::value;
  using typename base_t::value_type;
  using typename base_t::vector_meta;
  using base_t::width;

  const T* a;
  const T* b;
  T* h;
  const T* initial;  // one a sequence, or null

  // The pair of element e, whose step in its sequence is t.
  __device__ value_type pair_at(std::int64_t e, std::int64_t t, S av, S bv) const {
    if (t != this->first_step()) return {av, bv};
    if (initial != nullptr) bv = streamscan::detail::step(av, value::load(initial[e / this->length]), bv);
    return {S(0), bv};
  }

  __device__ void load(std::int64_t base, int s0, value_type (&v)[width], vector_meta&) const {
    const std::int64_t lowest = this->first_element(base + s0);
    const vector_of<T, width> va = load_vector<T, width>(a + lowest), vb = load_vector<T, width>(b + lowest);
    std::int64_t t = this->step_of(lowest);  // step of the lowest element; memory order below
#pragma unroll
    for (int c = 0; c < width; ++c) {
      v[base_t::slot(c)] = pair_at(lowest + c, t, value::load(va.x[c]), value::load(vb.x[c]));
      if (++t == this->length) t = 0;
    }
  }
  __device__ value_type load_one(std::int64_t base, int s, vector_meta&, int) const {
    const std::int64_t e = this->element(base + s);
    return pair_at(e, this->step_of(e), value::load(a[e]), value::load(b[e]));
  }
  __device__ void store(std::int64_t base, int s0, const value_type (&v)[width], const vector_meta&) const {
    vector_of<T, width> raw;
#pragma unroll
    for (int c = 0; c < width; ++c) raw.x[c] = value::store(v[base_t::slot(c)].b);
    store_16<T, width>(h + this->first_element(base + s0), raw);
  }
  __device__ void store_one(std::int64_t base, int s, const value_type& v, const vector_meta&, int) const {
    h[this->element(base + s)] = value::store(v.b);
  }
};

// Backward here is the gradient's own scan direction (the forward's reverse).
template <class T, bool Backward>
struct recurrence_grad_tile_io : recurrence_rows_io<T, Backward> {
  using base_t = recurrence_rows_io<T, Backward>;
  using typename base_t::S;
  using typename base_t::value;
  using typename base_t::value_type;
  using typename base_t::vector_meta;
  using base_t::toward;
  using base_t::width;

  const T* a;
  const T* dh;
  const T* hist;     // the forward's h
  T* grad_a;
  T* grad_b;
  const T* initial;  // one a sequence, or null
  T* grad_initial;   // one a sequence, or null

  // Memory index of the vector element whose neighbour lies outside it: the
  // one before it in scan order (for a) and after it (for h).
  static constexpr int edge_before = Backward ? width - 1 : 0;
  static constexpr int edge_after = Backward ? 0 : width - 1;

  __device__ void load(std::int64_t base, int s0, value_type (&v)[width], vector_meta&) const {
    const std::int64_t lowest = this->first_element(base + s0);
    const vector_of<T, width> va = load_vector<T, width>(a + lowest), vd = load_vector<T, width>(dh + lowest);
    const std::int64_t t0 = this->step_of(lowest);
    // The a before the edge element in scan order, unless that one opens its sequence.
    const bool opens = this->step_of(lowest + edge_before) == this->first_step();
    const S a_outside = opens ? S(0) : value::load(a[lowest + edge_before - toward]);
    std::int64_t t = t0;
#pragma unroll
    for (int c = 0; c < width; ++c) {
      const S before = c == edge_before ? a_outside : value::load(va.x[c == edge_before ? c : c - toward]);
      v[base_t::slot(c)] = {t == this->first_step() ? S(0) : before, value::load(vd.x[c])};
      if (++t == this->length) t = 0;
    }
  }
  __device__ value_type load_one(std::int64_t base, int s, vector_meta&, int) const {
    const std::int64_t e = this->element(base + s);
    const bool opens = this->step_of(e) == this->first_step();
    return {opens ? S(0) : value::load(a[e - toward]), value::load(dh[e])};
  }

  // grad_a of element e at step t with gradient g, h_after its neighbour's h
  // (read only where the sequence goes on); the far end writes grad_initial.
  __device__ T grad_a_at(std::int64_t e, std::int64_t t, S g, S h_after) const {
    if (t != this->last_step()) return value::store(g * h_after);
    const std::int64_t s = e / this->length;
    if (grad_initial != nullptr) grad_initial[s] = value::store(value::load(a[e]) * g);
    return value::store(initial != nullptr ? g * value::load(initial[s]) : S(0));
  }
  __device__ void store(std::int64_t base, int s0, const value_type (&v)[width], const vector_meta&) const {
    const std::int64_t lowest = this->first_element(base + s0);
    const vector_of<T, width> vh = load_vector<T, width>(hist + lowest);
    const std::int64_t t0 = this->step_of(lowest);
    const bool ends = this->step_of(lowest + edge_after) == this->last_step();
    const S h_outside = ends ? S(0) : value::load(hist[lowest + edge_after + toward]);
    vector_of<T, width> gb, ga;
    std::int64_t t = t0;
#pragma unroll
    for (int c = 0; c < width; ++c) {
      const S g = v[base_t::slot(c)].b;
      gb.x[c] = value::store(g);
      const S after = c == edge_after ? h_outside : value::load(vh.x[c == edge_after ? c : c + toward]);
      ga.x[c] = grad_a_at(lowest + c, t, g, after);
      if (++t == this->length) t = 0;
    }
    store_16<T, width>(grad_b + lowest, gb);
    store_16<T, width>(grad_a + lowest, ga);
  }
  __device__ void store_one(std::int64_t base, int s, const value_type& v, const vector_meta&, int) const {
    const std::int64_t e = this->element(base + s), t = this->step_of(e);
    grad_b[e] = value::store(v.b);
    grad_a[e] = grad_a_at(e, t, v.b, t != this->last_step() ? value::load(hist[e + toward]) : S(0));
  }
};

// The same rows for the one-warp-a-sequence agent (agent_row_chunks.cuh),
// which passes a vector's row start and its position p in the row (scan
// order): a vector opens its sequence where p == 0 and closes it where
// p + width == length, so no step needs a quotient. Rows are whole vectors.
template <class T, bool Backward>
struct recurrence_chunk_io : recurrence_tile_io<T, Backward> {
  using base_t = recurrence_tile_io<T, Backward>;
  using typename base_t::S;
  using typename base_t::value;
  using typename base_t::value_type;
  using typename base_t::vector_meta;
  using base_t::width;

  __device__ void load(std::int64_t start, std::int64_t p, value_type (&v)[width], vector_meta&) const {
    const std::int64_t lowest = this->first_element(start + p);
    pairs(start, p, load_vector<T, width>(this->a + lowest), load_vector<T, width>(this->b + lowest), v);
  }

  // agent_row_chunks_staged: a vector's a and b as two 16-byte pieces.
  static constexpr int staged_parts = 2;
  __device__ void stage(std::int64_t start, std::int64_t p, unsigned char* base, int index, int count) const {
    const std::int64_t lowest = this->first_element(start + p);
    async_copy_16(base + 16 * index, this->a + lowest);
    async_copy_16(base + 16 * (count + index), this->b + lowest);
  }
  __device__ void load_staged(const unsigned char* base, int index, int count, std::int64_t start, std::int64_t p,
                              value_type (&v)[width], vector_meta&) const {
    pairs(start, p, *reinterpret_cast<const vector_of<T, width>*>(base + 16 * index),
          *reinterpret_cast<const vector_of<T, width>*>(base + 16 * (count + index)), v);
  }

  // The pairs of a vector at position p of the row opening at start.
  __device__ void pairs(std::int64_t start, std::int64_t p, const vector_of<T, width>& va,
                        const vector_of<T, width>& vb, value_type (&v)[width]) const {
#pragma unroll
    for (int c = 0; c < width; ++c) v[base_t::slot(c)] = {value::load(va.x[c]), value::load(vb.x[c])};
    if (p == 0) v[0] = this->pair_at(this->element(start), this->first_step(), v[0].a, v[0].b);
  }
  __device__ void store(std::int64_t start, std::int64_t p, const value_type (&v)[width],
                        const vector_meta& meta) const {
    base_t::store(start + p, 0, v, meta);
  }
};

template <class T, bool Backward>
struct recurrence_grad_chunk_io : recurrence_grad_tile_io<T, Backward> {
  using base_t = recurrence_grad_tile_io<T, Backward>;
  using typename base_t::S;
  using typename base_t::value;
  using typename base_t::value_type;
  using typename base_t::vector_meta;
  using base_t::edge_after;
  using base_t::edge_before;
  using base_t::toward;
  using base_t::width;

  __device__ void load(std::int64_t start, std::int64_t p, value_type (&v)[width], vector_meta&) const {
    const std::int64_t lowest = this->first_element(start + p);
    const vector_of<T, width> va = load_vector<T, width>(this->a + lowest),
                              vd = load_vector<T, width>(this->dh + lowest);
    // The a before the vector in scan order, unless the vector opens its sequence.
    const S a_outside = p == 0 ? S(0) : value::load(this->a[lowest + edge_before - toward]);
#pragma unroll
    for (int c = 0; c < width; ++c)
      v[base_t::slot(c)] = {c == edge_before ? a_outside : value::load(va.x[c == edge_before ? c : c - toward]),
                            value::load(vd.x[c])};
  }
  __device__ void store(std::int64_t start, std::int64_t p, const value_type (&v)[width], const vector_meta&) const {
    const std::int64_t lowest = this->first_element(start + p);
    const vector_of<T, width> vh = load_vector<T, width>(this->hist + lowest);
    const bool ends = p + width == this->length;
    const S h_outside = ends ? S(0) : value::load(this->hist[lowest + edge_after + toward]);
    vector_of<T, width> gb, ga;
#pragma unroll
    for (int c = 0; c < width; ++c) {
      const S g = v[base_t::slot(c)].b;
      gb.x[c] = value::store(g);
      if (c != edge_after) {
        ga.x[c] = value::store(g * value::load(vh.x[c == edge_after ? c : c + toward]));
      } else {
        ga.x[c] = ends ? this->grad_a_at(lowest + c, this->last_step(), g, S(0)) : value::store(g * h_outside);
      }
    }
    store_16<T, width>(this->grad_b + lowest, gb);
    store_16<T, width>(this->grad_a + lowest, ga);
  }
};

}  // namespace streamscan::cuda::detail
