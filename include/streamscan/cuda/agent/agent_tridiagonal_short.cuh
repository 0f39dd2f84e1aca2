// streamscan/cuda/agent/agent_tridiagonal_short.cuh - a run of rows a thread
// solves by the Thomas algorithm: a whole short system (the thomas strategy on
// systems of at most short_max_rows rows), or the own rows of one chunk of a
// partitioned system (thread chunks), whose couplings to the separators on
// either side are known (the last pass) or become the edges' two extra
// right-hand sides (the first pass).
//
// The forward sweep is a chain through every row, and a batch of short runs
// gives few threads, so each thread must keep its own loads in flight: it
// reads its rows R at a time into registers, Depth slices ahead of the slice
// it eliminates. The solve keeps the sweep's factors and forward values in the
// thread's column of shared memory ([row][thread], so the threads of a warp
// touch consecutive banks); back substitution turns the values into x there,
// and x is written out R rows at a time. The edges pass stores nothing: back
// substitution's first value is a sum over the forward values, which the sweep
// accumulates. Where rows are contiguous and every slice starts 16-byte aligned
// (Vector), whole slices move as 16-byte vectors; otherwise, and for the slice
// that crosses the run's end, a value a row, which is coalesced across the
// threads where systems interleave.
#pragma once

#include <cstdint>

#include "../thread/thread_tridiagonal.cuh"
#include "agent_tridiagonal.cuh"
#include "vector_input.cuh"

namespace streamscan::cuda {

// Rows [first, first + R) of one system: the matrix's three diagonals and the
// right-hand side.
template <class T, int R>
struct thomas_slice {
  detail::vector_of<T, R> lower, diagonal, upper, rhs;
};

// A run of n rows of one system, row 0 at `matrix` in the diagonals and at
// `rhs` in b and x; has_left / has_right: a separator row precedes / follows,
// whose x (the last pass) is left / right.
template <class T>
struct thomas_run {
  std::int64_t matrix, rhs;
  int n;
  bool has_left, has_right;
  T left, right;

  // Chunk c of system `system` (a whole system: chunk 0 of 1).
  __device__ static thomas_run of(const tridiagonal_problem<T>& p, std::int64_t system, const tridiagonal_chunk& c,
                                  T left = T(0), T right = T(0)) {
    return {p.matrix_at(system, c.start), p.rhs_at(system, c.start), c.rows, c.has_left, c.has_right, left, right};
  }
};

// How a run's rows are read and its x written.
template <class T, int R, bool Vector>
struct thomas_rows_io {
  static_assert(!Vector || (R * sizeof(T)) % 16 == 0, "a vector slice is whole 16-byte vectors");
  tridiagonal_problem<T> p;
  std::int64_t matrix;  // the run's row 0 in the diagonals
  std::int64_t rhs;     // and in b and x
  int n;

  // Rows past n read as identity rows (they are never eliminated).
  __device__ __forceinline__ thomas_slice<T, R> load(int first) const {
    thomas_slice<T, R> s;
    if (Vector && first + R <= n) {
      s.lower = detail::load_vector<T, R>(p.lower + matrix + first);
      s.diagonal = detail::load_vector<T, R>(p.diagonal + matrix + first);
      s.upper = detail::load_vector<T, R>(p.upper + matrix + first);
      s.rhs = detail::load_vector<T, R>(p.rhs + rhs + first);
      return s;
    }
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const bool in = first + k < n;
      const std::int64_t at = static_cast<std::int64_t>(first + k) * p.element_stride;
      s.lower.x[k] = in ? p.lower[matrix + at] : T(0);
      s.diagonal.x[k] = in ? p.diagonal[matrix + at] : T(1);
      s.upper.x[k] = in ? p.upper[matrix + at] : T(0);
      s.rhs.x[k] = in ? p.rhs[rhs + at] : T(0);
    }
    return s;
  }

  // x's rows [first, first + R) from the thread's column (row i at i * pitch).
  __device__ __forceinline__ void store(int first, const T* column, int pitch) const {
    if (Vector && first + R <= n) {
      detail::vector_of<T, R> v;
#pragma unroll
      for (int k = 0; k < R; ++k) v.x[k] = column[(first + k) * pitch];
      detail::store_vector<T, R>(p.x + rhs + first, v);
      return;
    }
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (first + k < n) p.x[rhs + static_cast<std::int64_t>(first + k) * p.element_stride] = column[(first + k) * pitch];
  }
};

// Calls f(i, lower, diagonal, upper, rhs) for rows i = 0 .. n - 1 in order, R
// rows a slice, Depth slices read ahead of the one being passed on.
template <class T, int R, int Depth, bool Vector, class F>
__device__ __forceinline__ void thomas_rows(const thomas_rows_io<T, R, Vector>& io, F&& f) {
  const int n = io.n;
  thomas_slice<T, R> ahead[Depth];
#pragma unroll
  for (int d = 0; d < Depth; ++d)
    if (d * R < n) ahead[d] = io.load(d * R);
  // n is the batch's (or the chunk's, the same in a warp but at a system's
  // last chunk), so these branches rarely split a warp.
  for (int first = 0; first < n; first += Depth * R) {
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      const int at = first + d * R;
      if (at >= n) break;
      const thomas_slice<T, R> s = ahead[d];
      if (at + Depth * R < n) ahead[d] = io.load(at + Depth * R);
#pragma unroll
      for (int k = 0; k < R; ++k)
        if (at + k < n) f(at + k, s.lower.x[k], s.diagonal.x[k], s.upper.x[k], s.rhs.x[k]);
    }
  }
}

// Solves the run (at most what the columns hold), its known separators moved
// into the right-hand side, and writes x: factor and value are the thread's
// two columns of shared memory, row i at i * pitch. Returns false on an
// unusable pivot.
template <class T, int R, int Depth, bool Vector>
__device__ bool agent_thomas_short(const tridiagonal_problem<T>& p, const thomas_run<T>& run, T* factor, T* value,
                                   int pitch) {
  const thomas_rows_io<T, R, Vector> io{p, run.matrix, run.rhs, run.n};
  const int n = run.n;
  T u = T(0), y = T(0);
  bool ok = true;
  thomas_rows<T, R, Depth>(io, [&](int i, T l, T d, T up, T b) {
    if (i == 0 && run.has_left) b -= l * run.left;
    if (i + 1 == n && run.has_right) b -= up * run.right;
    thomas_step(l, d, up, b, i == 0, i + 1 == n, u, y, ok);
    factor[i * pitch] = u;
    value[i * pitch] = y;
  });
  // y is x's last row; back substitution writes x over the values.
  for (int i = n - 2; i >= 0; --i) {
    y = value[i * pitch] - factor[i * pitch] * y;
    value[i * pitch] = y;
  }
  for (int first = 0; first < n; first += R) io.store(first, value, pitch);
  return ok;
}

// The edges of a chunk's run: the first and last values of y = A^-1 b,
// v = A^-1 (lower_0 e_0) (the coupling to the separator before) and
// w = A^-1 (upper_last e_last) (to the one after), A the run's own rows, in one
// forward sweep that stores nothing. Back substitution's first value is
// x_0 = sum_j q_j y_j over the forward values y_j, q_j the product of -u_k
// over the factors before row j, so it accumulates as the sweep goes; w's
// right-hand side is 0 but in the last row, and so are its forward values.
// Returns false on an unusable pivot.
template <class T, int R, int Depth, bool Vector>
__device__ bool agent_thomas_edges(const tridiagonal_problem<T>& p, const thomas_run<T>& run,
                                   tridiagonal_edges<T>& edges) {
  const thomas_rows_io<T, R, Vector> io{p, run.matrix, run.rhs, run.n};
  const int n = run.n;
  T u = T(0), y = T(0), v = T(0), w = T(0), q = T(1), y0 = T(0), v0 = T(0), w0 = T(0);
  bool ok = true;
  thomas_rows<T, R, Depth>(io, [&](int i, T l, T d, T up, T b) {
    const bool first = i == 0, last = i + 1 == n;
    const T lo = first ? T(0) : l;
    const T inverse = thomas_inverse_pivot(lo, d, u, ok);
    y = (b - lo * y) * inverse;
    v = ((first && run.has_left ? l : T(0)) - lo * v) * inverse;
    w = (last && run.has_right ? up : T(0)) * inverse;
    y0 += q * y;
    v0 += q * v;
    w0 += q * w;
    u = last ? T(0) : up * inverse;
    q *= -u;
  });
  edges = {y0, y, v0, v, w0, w};
  return ok;
}

}  // namespace streamscan::cuda
