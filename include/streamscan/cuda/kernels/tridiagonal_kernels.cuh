// streamscan/cuda/kernels/tridiagonal_kernels.cuh - the batched tridiagonal
// solver's kernels (the method: agent/agent_tridiagonal.cuh and
// block/block_tridiagonal.cuh; the launches: dispatch/dispatch_tridiagonal.cuh).
//
// `fail`, when not null, receives (atomicMin) the lowest system that met an
// unusable pivot; it starts at all ones.
#pragma once

#include <cstdint>

#include "../../tuning/tridiagonal.hpp"
#include "../agent/agent_tridiagonal.cuh"
#include "../agent/agent_tridiagonal_short.cuh"
#include "../block/block_tridiagonal.cuh"
#include "../thread/thread_tridiagonal.cuh"
#include "../warp/warp_tridiagonal.cuh"

namespace streamscan::cuda {

// A block per (system, chunk) in a grid-stride loop, the padded chunk of
// `padded` rows in dynamic shared memory (block_tridiagonal_storage::bytes);
// pcr_rows: where cyclic reduction hands over to parallel cyclic reduction;
// thread_rows: the Thomas-PCR hybrid instead (pcr_rows >= 2 blockDim.x). EDGES: solve for b and both
// couplings, keep the edges; else solve for b with the separators (if
// chunks > 1) known, and write x.
template <class T, bool EDGES>
__global__ void __launch_bounds__(tuning::tridiagonal_shape_for(sizeof(T)).max_threads,
                                  tuning::tridiagonal_shape_for(sizeof(T)).min_blocks) tridiagonal_chunk_kernel(tridiagonal_problem<T> p, std::int64_t systems, std::int64_t chunk_rows,
                                         std::int64_t chunks, int padded, int pcr_rows, bool thread_rows,
                                         const T* separators,
                                         tridiagonal_edges<T>* edges, unsigned long long* fail) {
  constexpr int K = EDGES ? 3 : 1;
  extern __shared__ unsigned char tridiagonal_smem[];
  const block_tridiagonal_storage<T, K> sys{reinterpret_cast<T*>(tridiagonal_smem), padded,
                                            pcr_rows < padded ? pcr_rows : padded};
  for (std::int64_t job = blockIdx.x; job < systems * chunks; job += gridDim.x) {
    const std::int64_t system = job / chunks, k = job % chunks;
    const tridiagonal_chunk c = tridiagonal_chunk::of(k, chunks, chunk_rows, p.n);
    const T* sep = separators != nullptr ? separators + system * (chunks - 1) : nullptr;
    const T left = !EDGES && c.has_left ? sep[k - 1] : T(0);
    const T right = !EDGES && c.has_right ? sep[k] : T(0);
    load_tridiagonal_chunk(p, sys, system, c, left, right);
    // The edges pass needs only the chunk's first and last rows.
    const bool bad = thread_rows ? block_tridiagonal_solve_thread_rows<T, K>(sys)
                                 : block_tridiagonal_solve<T, K>(sys, EDGES ? c.rows : 0);
    if (bad && fail != nullptr && threadIdx.x == 0) atomicMin(fail, static_cast<unsigned long long>(system));
    if constexpr (EDGES)
      store_tridiagonal_edges(sys, c, edges + job);
    else
      store_tridiagonal_chunk(p, sys, system, c, right);
    __syncthreads();  // the next job reuses the shared memory
  }
}

// The separators' system: a thread per (system, separator k), from the
// separator rows and the edges of the chunks on either side. Written strided,
// chunks - 1 rows a system, right-hand side = solution array `reduced_rhs`.
template <class T>
__global__ void tridiagonal_separators_kernel(tridiagonal_problem<T> p, std::int64_t systems, std::int64_t chunk_rows,
                                              std::int64_t chunks, const tridiagonal_edges<T>* edges, T* lower,
                                              T* diagonal, T* upper, T* reduced_rhs) {
  const std::int64_t per = chunks - 1;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < systems * per;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t system = t / per, k = t % per, row = (k + 1) * chunk_rows - 1;
    const std::int64_t at = p.matrix_at(system, row);
    const T a = p.lower[at], b = p.diagonal[at], c = p.upper[at], d = p.rhs[p.rhs_at(system, row)];
    const tridiagonal_edges<T> before = edges[system * chunks + k], after = edges[system * chunks + k + 1];
    lower[t] = -a * before.v_last;
    diagonal[t] = b - a * before.w_last - c * after.v_first;
    upper[t] = -c * after.w_first;
    reduced_rhs[t] = d - a * before.y_last - c * after.y_first;
  }
}

// The Thomas algorithm, a thread per system; factors: n values per system,
// system-minor (coalesced across threads).
template <class T>
__global__ void tridiagonal_thomas_kernel(tridiagonal_problem<T> p, std::int64_t systems, T* factors,
                                          unsigned long long* fail) {
  for (std::int64_t system = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; system < systems;
       system += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t m = p.matrix_at(system, 0), r = p.rhs_at(system, 0);
    const bool ok = thread_thomas(p.lower + m, p.diagonal + m, p.upper + m, p.rhs + r, p.x + r, factors + system, p.n,
                                  p.element_stride, systems);
    if (!ok && fail != nullptr) atomicMin(fail, static_cast<unsigned long long>(system));
  }
}

// Job `job`'s system and chunk for the thread kernels below: consecutive
// threads take consecutive chunks of a system where its rows are contiguous,
// and the same chunk of consecutive systems where systems interleave, so that
// a warp's loads are coalesced either way.
template <class T>
__device__ __forceinline__ void thread_chunk_job(const tridiagonal_problem<T>& p, std::int64_t job,
                                                 std::int64_t systems, std::int64_t chunks, std::int64_t& system,
                                                 std::int64_t& k) {
  if (p.element_stride == 1) {
    system = job / chunks;
    k = job % chunks;
  } else {
    k = job / systems;
    system = job % systems;
  }
}

// A thread per (system, chunk) in a grid-stride loop, solving the chunk's own
// rows with its separators known (agent/agent_tridiagonal_short.cuh) and
// writing x there and at the separator after it: the thomas strategy on short
// systems (a chunk a system: chunks = 1, chunk_rows = n), and the last pass of
// a partitioned system cut into thread chunks. The block's threads' columns
// are in dynamic shared memory, 2 chunk_rows blockDim.x values; R rows a
// slice, Depth slices ahead (the shape's short_slice_rows and short_depth).
// System numbering and the pivot report are tridiagonal_thomas_kernel's.
template <class T, int R, int Depth, bool Vector>
__global__ void __launch_bounds__(tuning::tridiagonal_shape_for(sizeof(T)).short_threads)
    tridiagonal_thread_chunks_kernel(tridiagonal_problem<T> p, std::int64_t systems, std::int64_t chunk_rows,
                                     std::int64_t chunks, const T* separators, unsigned long long* fail) {
  extern __shared__ __align__(16) unsigned char tridiagonal_thread_smem[];
  const int pitch = static_cast<int>(blockDim.x);
  T* const factor = reinterpret_cast<T*>(tridiagonal_thread_smem) + threadIdx.x;
  T* const value = factor + chunk_rows * pitch;
  for (std::int64_t job = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; job < systems * chunks;
       job += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t system, k;
    thread_chunk_job(p, job, systems, chunks, system, k);
    const tridiagonal_chunk c = tridiagonal_chunk::of(k, chunks, chunk_rows, p.n);
    const T* sep = separators + system * (chunks - 1);
    const T right = c.has_right ? sep[k] : T(0);
    const thomas_run<T> run = thomas_run<T>::of(p, system, c, c.has_left ? sep[k - 1] : T(0), right);
    if (!agent_thomas_short<T, R, Depth, Vector>(p, run, factor, value, pitch) && fail != nullptr)
      atomicMin(fail, static_cast<unsigned long long>(system));
    if (c.has_right) p.x[p.rhs_at(system, c.start + c.rows)] = right;
  }
}

// The first pass of a partitioned system cut into thread chunks: a thread per
// (system, chunk) keeps the chunk's edges (agent_thomas_edges), no shared
// memory.
template <class T, int R, int Depth, bool Vector>
__global__ void __launch_bounds__(tuning::tridiagonal_shape_for(sizeof(T)).short_threads)
    tridiagonal_thread_edges_kernel(tridiagonal_problem<T> p, std::int64_t systems, std::int64_t chunk_rows,
                                    std::int64_t chunks, tridiagonal_edges<T>* edges, unsigned long long* fail) {
  for (std::int64_t job = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; job < systems * chunks;
       job += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t system, k;
    thread_chunk_job(p, job, systems, chunks, system, k);
    const thomas_run<T> run = thomas_run<T>::of(p, system, tridiagonal_chunk::of(k, chunks, chunk_rows, p.n));
    if (!agent_thomas_edges<T, R, Depth, Vector>(p, run, edges[system * chunks + k]) && fail != nullptr)
      atomicMin(fail, static_cast<unsigned long long>(system));
  }
}

// warp_pcr: a warp per system (warp/warp_tridiagonal.cuh), blockDim.x / 32
// systems a block, in a grid-stride loop; systems of at most 32 R rows, padded
// to `padded` rows with identity rows (as load_tridiagonal_chunk pads).
template <class T, int R>
__global__ void __launch_bounds__(tuning::tridiagonal_shape_for(sizeof(T)).warp_block_threads)
    tridiagonal_warp_kernel(tridiagonal_problem<T> p, std::int64_t systems, int padded, unsigned long long* fail) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::int64_t warps = blockDim.x / 32;
  // The condition is the same for the whole warp, as its shuffles need.
  for (std::int64_t system = blockIdx.x * warps + threadIdx.x / 32; system < systems; system += gridDim.x * warps) {
    const std::int64_t m = p.matrix_at(system, 0), r = p.rhs_at(system, 0);
    tridiagonal_row<T, 1> rows[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const std::int64_t j = q * 32 + lane;
      tridiagonal_row<T, 1> row{};
      row.diagonal = T(1);
      if (j < p.n) {
        const std::int64_t at = m + j * p.element_stride;
        row.lower = j == 0 ? T(0) : p.lower[at];
        row.diagonal = p.diagonal[at];
        row.upper = j + 1 == p.n ? T(0) : p.upper[at];
        row.rhs[0] = p.rhs[r + j * p.element_stride];
      }
      rows[q] = row;
    }
    const bool bad = warp_tridiagonal_solve<T, R>(rows, padded, lane);
    if (bad && fail != nullptr && lane == 0) atomicMin(fail, static_cast<unsigned long long>(system));
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const std::int64_t j = q * 32 + lane;
      if (j < p.n) p.x[r + j * p.element_stride] = rows[q].rhs[0];
    }
  }
}

}  // namespace streamscan::cuda
