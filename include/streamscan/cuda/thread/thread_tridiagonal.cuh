// streamscan/cuda/thread/thread_tridiagonal.cuh - what one thread does to a
// tridiagonal system: eliminate an equation's couplings through its two
// neighbours (the step of cyclic and parallel cyclic reduction), and the
// Thomas algorithm over a whole system.
#pragma once

#include <cstdint>

namespace streamscan::cuda {

// A pivot the elimination may divide by: not zero, not infinite, not NaN.
template <class T>
__device__ __forceinline__ bool usable_pivot(T p) {
  const T m = p < T(0) ? -p : p;
  return m > T(0) && m <= (sizeof(T) == 4 ? T(3.4028234663852886e38) : T(1.7976931348623157e308));
}

// lower x[i - s] + diagonal x[i] + upper x[i + s] = rhs[k], k < K.
template <class T, int K>
struct tridiagonal_row {
  T lower, diagonal, upper, rhs[K];
};

// Removes row's couplings through `left` (the equation it couples to below)
// and, if has_right, `right` (above): the result couples to left's left and
// right's right neighbours. Sets bad when a pivot is unusable.
template <class T, int K>
__device__ __forceinline__ tridiagonal_row<T, K> eliminate(const tridiagonal_row<T, K>& row,
                                                           const tridiagonal_row<T, K>& left,
                                                           const tridiagonal_row<T, K>& right, bool has_right,
                                                           bool& bad) {
  bad |= !usable_pivot(left.diagonal);
  const T k1 = row.lower / left.diagonal;
  T k2 = T(0);
  if (has_right) {
    bad |= !usable_pivot(right.diagonal);
    k2 = row.upper / right.diagonal;
  }
  tridiagonal_row<T, K> out;
  out.lower = -left.lower * k1;
  out.diagonal = row.diagonal - left.upper * k1 - (has_right ? right.lower * k2 : T(0));
  out.upper = has_right ? -right.upper * k2 : T(0);
#pragma unroll
  for (int k = 0; k < K; ++k) out.rhs[k] = row.rhs[k] - left.rhs[k] * k1 - (has_right ? right.rhs[k] * k2 : T(0));
  return out;
}

// The inverse of a row's pivot in the Thomas algorithm's forward sweep, from
// its lower coupling l and diagonal and the previous row's upper factor u.
// Clears ok on an unusable pivot.
template <class T>
__device__ __forceinline__ T thomas_inverse_pivot(T l, T diagonal, T u, bool& ok) {
  const T pivot = diagonal - l * u;
  ok &= usable_pivot(pivot);
  return T(1) / pivot;
}

// One row of the Thomas algorithm's forward sweep: u and y carry the previous
// row's upper factor and forward value in, this row's out. The first row has
// no lower coupling and the last no upper one, whatever the arrays hold.
// Clears ok on an unusable pivot.
template <class T>
__device__ __forceinline__ void thomas_step(T lower, T diagonal, T upper, T rhs, bool first, bool last, T& u, T& y,
                                            bool& ok) {
  const T l = first ? T(0) : lower;
  const T inverse = thomas_inverse_pivot(l, diagonal, u, ok);
  u = last ? T(0) : upper * inverse;
  y = (rhs - l * y) * inverse;
}

// The Thomas algorithm on one system of n equations: element i of the matrix
// at matrix + i * stride, of the right-hand side at rhs + i * stride, of x at
// x + i * stride (x may be rhs); factors[i * factor_stride] holds the forward
// sweep's upper factors. Returns false on an unusable pivot.
template <class T>
__device__ bool thread_thomas(const T* lower, const T* diagonal, const T* upper, const T* rhs, T* x, T* factors,
                              std::int64_t n, std::int64_t stride, std::int64_t factor_stride) {
  bool ok = true;
  T u = 0, y = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = i * stride;
    thomas_step(i == 0 ? T(0) : lower[at], diagonal[at], i + 1 < n ? upper[at] : T(0), rhs[at], i == 0, i + 1 == n,
                u, y, ok);
    factors[i * factor_stride] = u;
    x[at] = y;
  }
  for (std::int64_t i = n - 2; i >= 0; --i) {
    const std::int64_t at = i * stride;
    y = x[at] - factors[i * factor_stride] * y;
    x[at] = y;
  }
  return ok;
}

}  // namespace streamscan::cuda
