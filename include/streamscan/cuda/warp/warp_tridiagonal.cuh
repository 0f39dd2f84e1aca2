// streamscan/cuda/warp/warp_tridiagonal.cuh - one warp solves one short
// tridiagonal system (at most 32 R rows) by parallel cyclic reduction in
// registers: row q * 32 + lane lives in slot q of the lane, neighbours arrive
// by shuffles, so no shared memory and no block barrier. The arithmetic is the
// block solver's PCR (block_pcr and its last division, block_tridiagonal.cuh)
// row for row: the same padding, the same eliminations in the same order.
#pragma once

#include <cstdint>

#include "../thread/thread_tridiagonal.cuh"

namespace streamscan::cuda {

// out[q] = slot q of lane `source` (every lane of the warp must call).
template <class T, int R>
__device__ __forceinline__ void warp_tridiagonal_shuffle(const tridiagonal_row<T, 1> (&in)[R], int source,
                                                         tridiagonal_row<T, 1> (&out)[R]) {
#pragma unroll
  for (int q = 0; q < R; ++q) {
    out[q].lower = __shfl_sync(0xffffffffu, in[q].lower, source);
    out[q].diagonal = __shfl_sync(0xffffffffu, in[q].diagonal, source);
    out[q].upper = __shfl_sync(0xffffffffu, in[q].upper, source);
    out[q].rhs[0] = __shfl_sync(0xffffffffu, in[q].rhs[0], source);
  }
}

// rows[slot], unrolled so that the rows stay in registers.
template <class T, int R>
__device__ __forceinline__ tridiagonal_row<T, 1> warp_tridiagonal_slot(const tridiagonal_row<T, 1> (&rows)[R],
                                                                       int slot) {
  tridiagonal_row<T, 1> r = rows[0];
#pragma unroll
  for (int q = 1; q < R; ++q)
    if (slot == q) r = rows[q];
  return r;
}

// PCR over the `padded` (a power of two, at most 32 R) rows the warp holds;
// afterwards slot q's rhs is x of its row. Returns, in every lane, whether
// some pivot was unusable.
template <class T, int R>
__device__ __forceinline__ bool warp_tridiagonal_solve(tridiagonal_row<T, 1> (&rows)[R], int padded, int lane) {
  bool bad = false;
  const tridiagonal_row<T, 1> none{};
  for (int delta = 1; delta < padded; delta *= 2) {
    // Row j's neighbours j -/+ delta sit in lane (lane -/+ delta) mod 32,
    // slot (j -/+ delta) / 32.
    tridiagonal_row<T, 1> below[R], above[R];
    warp_tridiagonal_shuffle<T, R>(rows, (lane - delta) & 31, below);
    warp_tridiagonal_shuffle<T, R>(rows, (lane + delta) & 31, above);
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const int j = q * 32 + lane;
      if (j >= padded) continue;
      tridiagonal_row<T, 1> left{};
      left.diagonal = T(1);
      if (j >= delta) left = warp_tridiagonal_slot<T, R>(below, (j - delta) >> 5);
      const bool has_right = j + delta < padded;
      rows[q] = eliminate(rows[q], left, has_right ? warp_tridiagonal_slot<T, R>(above, (j + delta) >> 5) : none,
                          has_right, bad);
    }
  }
#pragma unroll
  for (int q = 0; q < R; ++q)
    if (q * 32 + lane < padded) {
      bad |= !usable_pivot(rows[q].diagonal);
      rows[q].rhs[0] = rows[q].rhs[0] / rows[q].diagonal;
    }
  return __any_sync(0xffffffffu, bad);
}

}  // namespace streamscan::cuda
