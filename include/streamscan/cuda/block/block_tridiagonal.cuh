// streamscan/cuda/block/block_tridiagonal.cuh - one tridiagonal system of N
// rows (a power of two) solved by a thread block in shared memory.
//
// Cyclic reduction ([ScanPrimitives] 4.3) has the scan's shape: the forward
// reduction at stride s rewrites every equation i with (i + 1) % 2s == 0 in
// terms of x[i - 2s] and x[i + 2s] (the up-sweep), halving the unknowns; the
// back substitution at stride s solves the equations with (i + 1) % 2s == s
// from their solved neighbours (the down-sweep). The hybrid stops the forward
// reduction when pcr_rows unknowns remain and solves those by parallel cyclic
// reduction, where every remaining equation is rewritten at every level
// (stride 1, 2, 4, ... in the remaining set) until each stands alone. So
// pcr_rows = 1 is cyclic reduction and pcr_rows >= N parallel cyclic
// reduction.
//
// Parallel cyclic reduction works on a contiguous copy of the remaining rows,
// from one buffer into the other each level.
//
// Rows past the system are identity rows (lower = upper = rhs = 0, diagonal
// 1); row 0's lower and row N - 1's upper must be 0.
#pragma once

#include <cstddef>

#include "../thread/thread_tridiagonal.cuh"

namespace streamscan::cuda {

// The system in shared memory: lower, diagonal, upper, then K right-hand
// sides, N values each (row i at i + i / 32: the strided accesses of cyclic
// reduction spread over the banks), then two buffers of `pcr` rows each for
// parallel cyclic reduction, contiguous. On return the right-hand sides hold
// the solution.
template <class T, int K>
struct block_tridiagonal_storage {
  static constexpr int arrays = 3 + K;
  T* base;
  int rows;  // N
  int pcr;   // rows parallel cyclic reduction takes: min(pcr_rows, N)
  __host__ __device__ static int padded(int n) { return n + n / 32; }
  __host__ __device__ static std::size_t bytes(int n, int pcr) {
    return (static_cast<std::size_t>(arrays) * padded(n) + 2 * static_cast<std::size_t>(arrays) * pcr) * sizeof(T);
  }
  __device__ T* lower() const { return base; }
  __device__ T* diagonal() const { return base + padded(rows); }
  __device__ T* upper() const { return base + 2 * padded(rows); }
  __device__ T* rhs(int k) const { return base + (3 + k) * padded(rows); }
  __device__ static int at(int i) { return i + (i >> 5); }
  __device__ tridiagonal_row<T, K> load(int i) const {
    const int a = at(i);
    tridiagonal_row<T, K> r;
    r.lower = lower()[a];
    r.diagonal = diagonal()[a];
    r.upper = upper()[a];
#pragma unroll
    for (int k = 0; k < K; ++k) r.rhs[k] = rhs(k)[a];
    return r;
  }
  __device__ void store(int i, const tridiagonal_row<T, K>& r) const {
    const int a = at(i);
    lower()[a] = r.lower;
    diagonal()[a] = r.diagonal;
    upper()[a] = r.upper;
#pragma unroll
    for (int k = 0; k < K; ++k) rhs(k)[a] = r.rhs[k];
  }
  // PCR buffer b (0 or 1): row j's values, array by array.
  __device__ T* buffer(int b) const { return base + arrays * padded(rows) + b * arrays * pcr; }
  __device__ tridiagonal_row<T, K> load_buffer(int b, int j) const {
    const T* p = buffer(b);
    tridiagonal_row<T, K> r;
    r.lower = p[j];
    r.diagonal = p[pcr + j];
    r.upper = p[2 * pcr + j];
#pragma unroll
    for (int k = 0; k < K; ++k) r.rhs[k] = p[(3 + k) * pcr + j];
    return r;
  }
  __device__ void store_buffer(int b, int j, const tridiagonal_row<T, K>& r) const {
    T* p = buffer(b);
    p[j] = r.lower;
    p[pcr + j] = r.diagonal;
    p[2 * pcr + j] = r.upper;
#pragma unroll
    for (int k = 0; k < K; ++k) p[(3 + k) * pcr + j] = r.rhs[k];
  }
};

// Solves the system (sys.pcr unknowns go to parallel cyclic reduction).
// Returns, in every thread, whether some pivot was unusable.
template <class T, int K>
__device__ bool block_tridiagonal_solve(const block_tridiagonal_storage<T, K>& sys) {
  const int n = sys.rows;
  bool bad = false;
  const tridiagonal_row<T, K> none{};

  // Cyclic reduction, forward: stride s leaves n / (2s) unknowns.
  int s = 1;
  for (; n / s > sys.pcr; s *= 2) {
    const int count = n / (2 * s);
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
      const int i = 2 * s * t + 2 * s - 1;
      const bool has_right = i + s < n;
      sys.store(i, eliminate(sys.load(i), sys.load(i - s), has_right ? sys.load(i + s) : none, has_right, bad));
    }
    __syncthreads();
  }

  // Parallel cyclic reduction over the R = n / s remaining rows (j + 1) s - 1,
  // gathered into a contiguous buffer, one level a pass from buffer to buffer.
  const int remaining = n / s;
  for (int j = threadIdx.x; j < remaining; j += blockDim.x) sys.store_buffer(0, j, sys.load((j + 1) * s - 1));
  __syncthreads();
  int from = 0;
  for (int delta = 1; delta < remaining; delta *= 2, from ^= 1) {
    for (int j = threadIdx.x; j < remaining; j += blockDim.x) {
      tridiagonal_row<T, K> left{};
      left.diagonal = T(1);
      if (j >= delta) left = sys.load_buffer(from, j - delta);
      const bool has_right = j + delta < remaining;
      sys.store_buffer(from ^ 1, j,
                       eliminate(sys.load_buffer(from, j), left, has_right ? sys.load_buffer(from, j + delta) : none,
                                 has_right, bad));
    }
    __syncthreads();
  }
  for (int j = threadIdx.x; j < remaining; j += blockDim.x) {
    const tridiagonal_row<T, K> r = sys.load_buffer(from, j);
    bad |= !usable_pivot(r.diagonal);
    const int i = block_tridiagonal_storage<T, K>::at((j + 1) * s - 1);
#pragma unroll
    for (int k = 0; k < K; ++k) sys.rhs(k)[i] = r.rhs[k] / r.diagonal;
  }
  __syncthreads();

  // Cyclic reduction, back substitution: stride s solves rows (i + 1) % 2s == s.
  using storage = block_tridiagonal_storage<T, K>;
  for (s /= 2; s >= 1; s /= 2) {
    const int count = n / (2 * s);
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
      const int i = 2 * s * t + s - 1, a = storage::at(i);
      const T d = sys.diagonal()[a], l = sys.lower()[a], u = sys.upper()[a];
      bad |= !usable_pivot(d);
      const int right = storage::at(i + s), left = i >= s ? storage::at(i - s) : 0;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        T* x = sys.rhs(k);
        x[a] = (x[a] - (i >= s ? l * x[left] : T(0)) - u * x[right]) / d;
      }
    }
    __syncthreads();
  }
  return __syncthreads_or(bad) != 0;
}

}  // namespace streamscan::cuda
