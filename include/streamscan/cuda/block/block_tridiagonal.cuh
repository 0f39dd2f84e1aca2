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

// Parallel cyclic reduction of the `remaining` rows in PCR buffer 0: every row
// is rewritten through its neighbours delta = 1, 2, 4, ... away until each
// stands alone. Returns the buffer holding the final rows (x = rhs / diagonal).
template <class T, int K>
__device__ int block_pcr(const block_tridiagonal_storage<T, K>& sys, int remaining, bool& bad) {
  const tridiagonal_row<T, K> none{};
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
  return from;
}

// Cyclic reduction with parallel cyclic reduction for the last sys.pcr
// unknowns (the hybrid; pcr = 1: cyclic reduction, pcr >= N: PCR).
// ends_of > 0: only rows 0 and ends_of - 1 are wanted; one thread walks the
// back substitution's path to each (a row's solved neighbours are the ends of
// the interval around it that halves each level) instead of every thread
// solving every row. Returns, in every thread, whether some pivot was unusable.
template <class T, int K>
__device__ bool block_tridiagonal_solve(const block_tridiagonal_storage<T, K>& sys, int ends_of = 0) {
  using storage = block_tridiagonal_storage<T, K>;
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

  // PCR over the R = n / s remaining rows (j + 1) s - 1, gathered contiguously.
  const int remaining = n / s;
  for (int j = threadIdx.x; j < remaining; j += blockDim.x) sys.store_buffer(0, j, sys.load((j + 1) * s - 1));
  __syncthreads();
  const int from = block_pcr(sys, remaining, bad);
  for (int j = threadIdx.x; j < remaining; j += blockDim.x) {
    const tridiagonal_row<T, K> r = sys.load_buffer(from, j);
    bad |= !usable_pivot(r.diagonal);
    const int i = storage::at((j + 1) * s - 1);
#pragma unroll
    for (int k = 0; k < K; ++k) sys.rhs(k)[i] = r.rhs[k] / r.diagonal;
  }
  __syncthreads();

  if (ends_of > 0) {
    if (threadIdx.x == 0)
      for (int walk = 0; walk < 2; ++walk) {
        const int target = walk == 0 ? 0 : ends_of - 1;
        int lo = (target + 1) / s * s - 1, hi = lo + s;  // solved: -1 (x = 0) or PCR rows
        for (int h = s / 2; h >= 1 && lo != target; h /= 2) {
          const int mid = lo + h, a = storage::at(mid);
          // Rows h - 1 (lo = -1) are row 0's path: solved already on the second walk.
          if (lo < 0 && walk == 1) {
            if (target == mid) break;
            (target < mid ? hi : lo) = mid;
            continue;
          }
          const T d = sys.diagonal()[a], l = sys.lower()[a], u = sys.upper()[a];
          bad |= !usable_pivot(d);
#pragma unroll
          for (int k = 0; k < K; ++k) {
            T* x = sys.rhs(k);
            x[a] = (x[a] - (lo >= 0 ? l * x[storage::at(lo)] : T(0)) - u * x[storage::at(hi)]) / d;
          }
          if (target == mid) break;
          (target < mid ? hi : lo) = mid;
        }
      }
    return __syncthreads_or(bad) != 0;
  }

  // Cyclic reduction, back substitution: stride s solves rows (i + 1) % 2s == s.
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

// The Thomas-PCR hybrid: thread t owns the q = N / blockDim.x >= 3 rows
// [tq, tq + q). Sweeping down and then up its own rows (no barrier), it
// rewrites each interior row i as  a x[tq] + x[i] + c x[tq + q - 1] = d,  its
// first row in terms of the previous thread's last unknown and its own last,
// and its last row in terms of its own first and the next thread's first. The
// 2 blockDim.x first and last rows form a tridiagonal system, solved by PCR;
// each thread then reads its interior off its two solved ends. Needs
// sys.pcr >= 2 blockDim.x.
template <class T, int K>
__device__ bool block_tridiagonal_solve_thread_rows(const block_tridiagonal_storage<T, K>& sys) {
  const int q = sys.rows / blockDim.x, first = threadIdx.x * q;
  bool bad = false;
  auto scale = [&bad](tridiagonal_row<T, K>& r) {
    bad |= !usable_pivot(r.diagonal);
    const T inv = T(1) / r.diagonal;
    r.lower *= inv;
    r.upper *= inv;
#pragma unroll
    for (int k = 0; k < K; ++k) r.rhs[k] *= inv;
    r.diagonal = T(1);
  };
  // Down: row i (i >= 2) loses its coupling to x[i-1], gaining one to x[first].
  tridiagonal_row<T, K> head = sys.load(first), prev = sys.load(first + 1);
  scale(head);
  scale(prev);
  sys.store(first + 1, prev);
  for (int i = 2; i < q; ++i) {
    tridiagonal_row<T, K> r = sys.load(first + i);
    const T l = r.lower;
    r.diagonal -= l * prev.upper;
    r.lower = -l * prev.lower;
#pragma unroll
    for (int k = 0; k < K; ++k) r.rhs[k] -= l * prev.rhs[k];
    scale(r);
    sys.store(first + i, r);
    prev = r;
  }
  const tridiagonal_row<T, K> tail = prev;  // a x[first] + x[last] + c x[next first] = d
  // Up: row i (q - 3 >= i >= 1) loses its coupling to x[i+1], gaining one to x[last].
  tridiagonal_row<T, K> next = sys.load(first + q - 2);
  for (int i = q - 3; i >= 1; --i) {
    tridiagonal_row<T, K> r = sys.load(first + i);
    const T u = r.upper;
    r.lower -= u * next.lower;
    r.upper = -u * next.upper;
#pragma unroll
    for (int k = 0; k < K; ++k) r.rhs[k] -= u * next.rhs[k];
    sys.store(first + i, r);
    next = r;
  }
  // The first row, through row 1: couples to the previous last and its own last.
  {
    const T u = head.upper;
    head.diagonal -= u * next.lower;
    head.upper = -u * next.upper;
#pragma unroll
    for (int k = 0; k < K; ++k) head.rhs[k] -= u * next.rhs[k];
    scale(head);
  }
  sys.store_buffer(0, 2 * threadIdx.x, head);
  sys.store_buffer(0, 2 * threadIdx.x + 1, tail);
  __syncthreads();
  const int from = block_pcr(sys, 2 * static_cast<int>(blockDim.x), bad);
  const tridiagonal_row<T, K> x_first = sys.load_buffer(from, 2 * threadIdx.x),
                              x_last = sys.load_buffer(from, 2 * threadIdx.x + 1);
  bad |= !usable_pivot(x_first.diagonal) || !usable_pivot(x_last.diagonal);
  using storage = block_tridiagonal_storage<T, K>;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const T x0 = x_first.rhs[k] / x_first.diagonal, x1 = x_last.rhs[k] / x_last.diagonal;
    T* x = sys.rhs(k);
    for (int i = 1; i + 1 < q; ++i) {
      const int a = storage::at(first + i);
      x[a] -= sys.lower()[a] * x0 + sys.upper()[a] * x1;
    }
    x[storage::at(first)] = x0;
    x[storage::at(first + q - 1)] = x1;
  }
  return __syncthreads_or(bad) != 0;
}

}  // namespace streamscan::cuda
