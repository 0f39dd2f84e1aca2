// streamscan/cuda/agent/agent_tridiagonal.cuh - a thread block's part of a
// batched tridiagonal solve: one chunk of one system (a whole system when it is
// not partitioned) brought into shared memory with its couplings, solved, and
// written back (semantics: streamscan/tridiagonal.hpp).
//
// A partitioned system of n rows is cut into chunks of B rows; chunk k covers
// [kB, min((k+1)B, n)) and, unless it is the last, its last row is the
// separator S_k, which is not part of the chunk's own system. The chunk's
// system, without its couplings lower[kB] x[kB-1] (to S_{k-1}) and upper[e-1]
// x[e] (to S_k), is T_k; its solution is x = y - S_{k-1} v - S_k w with
//   y = T_k^-1 b,  v = T_k^-1 (lower[kB] e_first),  w = T_k^-1 (upper[e-1] e_last).
// The edges pass solves all three at once and keeps their first and last
// values; the separators' equations then form a tridiagonal system in the S_k
// (tridiagonal_separators_kernel); the solve pass, with the S_k known, moves
// the couplings to the right-hand side and solves T_k once more.
#pragma once

#include <cstdint>

#include "../block/block_tridiagonal.cuh"

namespace streamscan::cuda {

// The batch as the kernels see it. A "system" is s + r * batch (matrix s,
// right-hand side r); x is addressed as the right-hand side.
template <class T>
struct tridiagonal_problem {
  const T* lower;
  const T* diagonal;
  const T* upper;
  const T* rhs;
  T* x;
  std::int64_t n, batch, system_stride, element_stride, rhs_stride;
  __device__ std::int64_t matrix_at(std::int64_t system, std::int64_t i) const {
    return (system % batch) * system_stride + i * element_stride;
  }
  __device__ std::int64_t rhs_at(std::int64_t system, std::int64_t i) const {
    return (system / batch) * rhs_stride + matrix_at(system, i);
  }
};

// The first and last values of y, v and w of one chunk (edges pass).
template <class T>
struct tridiagonal_edges {
  T y_first, y_last, v_first, v_last, w_first, w_last;
};

// Chunk geometry: chunk k of a system cut into chunks of B rows.
struct tridiagonal_chunk {
  std::int64_t start;  // first row
  int rows;            // rows of the chunk's own system (the separator excluded)
  bool has_left;       // a separator precedes
  bool has_right;      // a separator follows (the row after the chunk's own)
  __device__ static tridiagonal_chunk of(std::int64_t k, std::int64_t chunks, std::int64_t b, std::int64_t n) {
    tridiagonal_chunk c;
    c.start = k * b;
    c.has_left = k > 0;
    c.has_right = k + 1 < chunks;
    c.rows = static_cast<int>(c.has_right ? b - 1 : n - c.start);
    return c;
  }
};

// Loads chunk c of `system` into sys, padded with identity rows. Right-hand
// side 0 is b; with K == 3 (edges pass) right-hand sides 1 and 2 are the
// couplings' columns; with K == 1 and known separators, the couplings move
// into right-hand side 0.
template <class T, int K>
__device__ void load_tridiagonal_chunk(const tridiagonal_problem<T>& p, const block_tridiagonal_storage<T, K>& sys,
                                       std::int64_t system, const tridiagonal_chunk& c, T left_value, T right_value) {
  for (int i = threadIdx.x; i < sys.rows; i += blockDim.x) {
    tridiagonal_row<T, K> r{};
    r.diagonal = T(1);
    if (i < c.rows) {
      const std::int64_t at = p.matrix_at(system, c.start + i);
      r.lower = i == 0 ? T(0) : p.lower[at];
      r.diagonal = p.diagonal[at];
      r.upper = i + 1 == c.rows ? T(0) : p.upper[at];
      r.rhs[0] = p.rhs[p.rhs_at(system, c.start + i)];
      const T couple_left = i == 0 && c.has_left ? p.lower[at] : T(0);
      const T couple_right = i + 1 == c.rows && c.has_right ? p.upper[at] : T(0);
      if constexpr (K == 3) {
        r.rhs[1] = couple_left;
        r.rhs[2] = couple_right;
      } else {
        r.rhs[0] -= couple_left * left_value + couple_right * right_value;
      }
    }
    sys.store(i, r);
  }
  __syncthreads();
}

template <class T>
__device__ void store_tridiagonal_edges(const block_tridiagonal_storage<T, 3>& sys, const tridiagonal_chunk& c,
                                        tridiagonal_edges<T>* out) {
  if (threadIdx.x == 0) {
    const int last = block_tridiagonal_storage<T, 3>::at(c.rows - 1);
    *out = {sys.rhs(0)[0], sys.rhs(0)[last], sys.rhs(1)[0], sys.rhs(1)[last], sys.rhs(2)[0], sys.rhs(2)[last]};
  }
}

// Writes the chunk's solution, and the separator after it (known) if any.
template <class T>
__device__ void store_tridiagonal_chunk(const tridiagonal_problem<T>& p, const block_tridiagonal_storage<T, 1>& sys,
                                        std::int64_t system, const tridiagonal_chunk& c, T right_value) {
  for (int i = threadIdx.x; i < c.rows; i += blockDim.x) p.x[p.rhs_at(system, c.start + i)] = sys.rhs(0)[sys.at(i)];
  if (c.has_right && threadIdx.x == 0) p.x[p.rhs_at(system, c.start + c.rows)] = right_value;
}

}  // namespace streamscan::cuda
