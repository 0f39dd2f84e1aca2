// streamscan/cuda/agent/agent_tridiagonal_short.cuh - one short tridiagonal
// system a thread, by the Thomas algorithm (the thomas strategy on systems of
// at most short_max_rows rows).
//
// The forward sweep is a chain through every row, and a batch of short systems
// gives few threads, so each thread must keep its own loads in flight: it
// reads its rows R at a time into registers, Depth slices ahead of the slice
// it eliminates. The sweep's factors and forward values go to the thread's
// column of shared memory ([row][thread], so the threads of a warp touch
// consecutive banks); back substitution turns the values into x there, and x
// is written out R rows at a time. Where a system's rows are contiguous and
// every slice starts 16-byte aligned (Vector), whole slices move as 16-byte
// vectors; otherwise, and for the slice that crosses n, a value a row, which
// is coalesced across the threads where systems interleave.
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

// Where one system's rows are, and how they are read and x written.
template <class T, int R, bool Vector>
struct thomas_rows_io {
  static_assert(!Vector || (R * sizeof(T)) % 16 == 0, "a vector slice is whole 16-byte vectors");
  tridiagonal_problem<T> p;
  std::int64_t matrix;  // the system's row 0 in the diagonals
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

// Solves `system` of p (p.n rows, at most what the columns hold): factor and
// value are the thread's two columns of shared memory, row i at i * pitch.
// Returns false on an unusable pivot.
template <class T, int R, int Depth, bool Vector>
__device__ bool agent_thomas_short(const tridiagonal_problem<T>& p, std::int64_t system, T* factor, T* value,
                                   int pitch) {
  const thomas_rows_io<T, R, Vector> io{p, p.matrix_at(system, 0), p.rhs_at(system, 0), static_cast<int>(p.n)};
  const int n = io.n;
  thomas_slice<T, R> ahead[Depth];
#pragma unroll
  for (int d = 0; d < Depth; ++d)
    if (d * R < n) ahead[d] = io.load(d * R);
  T u = T(0), y = T(0);
  bool ok = true;
  // n is the batch's, so every branch on it is the same for the whole warp.
  for (int first = 0; first < n; first += Depth * R) {
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      const int at = first + d * R;
      if (at >= n) break;
      const thomas_slice<T, R> s = ahead[d];
      if (at + Depth * R < n) ahead[d] = io.load(at + Depth * R);
#pragma unroll
      for (int k = 0; k < R; ++k) {
        const int i = at + k;
        if (i < n) {
          thomas_step(s.lower.x[k], s.diagonal.x[k], s.upper.x[k], s.rhs.x[k], i == 0, i + 1 == n, u, y, ok);
          factor[i * pitch] = u;
          value[i * pitch] = y;
        }
      }
    }
  }
  // y is x's last row; back substitution writes x over the values.
  for (int i = n - 2; i >= 0; --i) {
    y = value[i * pitch] - factor[i * pitch] * y;
    value[i * pitch] = y;
  }
  for (int first = 0; first < n; first += R) io.store(first, value, pitch);
  return ok;
}

}  // namespace streamscan::cuda
