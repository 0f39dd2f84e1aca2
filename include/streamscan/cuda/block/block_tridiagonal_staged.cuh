// streamscan/cuda/block/block_tridiagonal_staged.cuh - a block's S short
// tridiagonal systems staged in shared memory, a thread per system solving its
// own by the Thomas algorithm.
//
// A thread per system walks its system row by row; straight from global memory
// in the strided layout, the threads of a warp would read S rows S systems
// apart (one sector each). Staged, the block reads its systems' rows
// cooperatively, consecutive threads consecutive rows of a system (one
// coalesced stream when the rows are contiguous), into [system][row] arrays of
// an odd pitch, so that thread s walking system s while its neighbours walk
// theirs touches a different bank each (float: pitch odd in 4-byte words;
// double: odd in 8-byte words, conflict-free per half-warp). The forward sweep
// overwrites upper with its factors and rhs with the forward values, back
// substitution writes x into rhs (thread_thomas with x = rhs, factors = upper),
// and the block writes x back as it read b.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../thread/thread_tridiagonal.cuh"

namespace streamscan::cuda {

// The staged systems: each system's matrix and right-hand side offsets (set by
// the caller, a thread per system, before load), then lower, diagonal, upper
// and rhs, `systems` x pitch values each, system s's row i at s * pitch + i.
template <class T>
struct block_thomas_storage {
  unsigned char* base;
  int systems;  // S: systems a block stages (at most its threads)
  int rows;     // most rows a system may have
  __host__ __device__ static int pitch_for(int rows) { return rows | 1; }
  __host__ __device__ static std::size_t bytes(int systems, int rows) {
    return 2 * static_cast<std::size_t>(systems) * sizeof(std::int64_t) +
           4 * static_cast<std::size_t>(systems) * pitch_for(rows) * sizeof(T);
  }
  __device__ int pitch() const { return pitch_for(rows); }
  __device__ std::int64_t* matrix_offset() const { return reinterpret_cast<std::int64_t*>(base); }
  __device__ std::int64_t* rhs_offset() const { return matrix_offset() + systems; }
  __device__ T* array(int k) const {  // 0 lower, 1 diagonal, 2 upper, 3 rhs
    return reinterpret_cast<T*>(base + 2 * static_cast<std::size_t>(systems) * sizeof(std::int64_t)) +
           static_cast<std::size_t>(k) * systems * pitch();
  }
};

// Loads rows [0, n) of the block's first `count` systems, element i of system s
// at matrix_offset()[s] + i (lower, diagonal, upper) and rhs_offset()[s] + i
// (rhs): consecutive threads take consecutive rows of the count x n rows. The
// offsets must be in place (a barrier after writing them); a barrier must
// follow before the systems are solved.
template <class T>
__device__ void block_thomas_load(const block_thomas_storage<T>& st, const T* lower, const T* diagonal, const T* upper,
                                  const T* rhs, int n, int count) {
  const int pitch = st.pitch();
  T* const l = st.array(0);
  T* const d = st.array(1);
  T* const u = st.array(2);
  T* const b = st.array(3);
  const unsigned total = static_cast<unsigned>(count) * static_cast<unsigned>(n);
#pragma unroll 4
  for (unsigned t = threadIdx.x; t < total; t += blockDim.x) {
    const unsigned s = t / static_cast<unsigned>(n), i = t - s * static_cast<unsigned>(n);
    const std::int64_t m = st.matrix_offset()[s] + i, r = st.rhs_offset()[s] + i;
    const int at = static_cast<int>(s) * pitch + static_cast<int>(i);
    l[at] = lower[m];
    d[at] = diagonal[m];
    u[at] = upper[m];
    b[at] = rhs[r];
  }
}

// Thread s solves staged system s of n rows in place (thread_thomas: upper
// receives the forward factors, rhs the solution). False on an unusable pivot.
template <class T>
__device__ bool block_thomas_solve(const block_thomas_storage<T>& st, int s, int n) {
  const int at = s * st.pitch();
  T* const u = st.array(2) + at;
  T* const b = st.array(3) + at;
  return thread_thomas(st.array(0) + at, st.array(1) + at, u, b, b, u, n, 1, 1);
}

// Writes the solutions of the first `count` staged systems to x, element i of
// system s at rhs_offset()[s] + i, as block_thomas_load read them. A barrier
// must precede (after the solves).
template <class T>
__device__ void block_thomas_store(const block_thomas_storage<T>& st, T* x, int n, int count) {
  const int pitch = st.pitch();
  const T* const b = st.array(3);
  const unsigned total = static_cast<unsigned>(count) * static_cast<unsigned>(n);
#pragma unroll 4
  for (unsigned t = threadIdx.x; t < total; t += blockDim.x) {
    const unsigned s = t / static_cast<unsigned>(n), i = t - s * static_cast<unsigned>(n);
    x[st.rhs_offset()[s] + i] = b[static_cast<int>(s) * pitch + static_cast<int>(i)];
  }
}

}  // namespace streamscan::cuda
