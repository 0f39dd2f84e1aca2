// streamscan/cuda/kernels/linear_recurrence_kernels.cuh - the linear
// recurrence's kernels: one tile a block, its shared memory and its agent
// (agent/agent_linear_recurrence.cuh). Grad: the gradient pass; Vector: the
// rows kernel's 16-byte runs. Dense rows run the plain scan's vectorised
// kernel instead (single_pass_vector_scan_kernel through
// agent/recurrence_tile_io.cuh), or, where sequences are many, one warp a
// sequence (recurrence_chunks_kernel).
#pragma once

#include <cstdint>

#include "../agent/agent_linear_recurrence.cuh"
#include "../agent/agent_row_chunks.cuh"
#include "../agent/recurrence_tile_io.cuh"
#include "../thread/thread_linear_recurrence.cuh"
#include "single_pass_scan_kernel.cuh"

namespace streamscan::cuda::detail {

template <class T, int Threads, int Items, bool Grad, bool Vector>
__global__ void __launch_bounds__(Threads)
    recurrence_rows_kernel(recurrence_problem<T> q, std::int64_t n, std::int64_t lead, std::int64_t tiles,
                           tile_status<recurrence_pair<typename recurrence_value<T>::state>> status,
                           unsigned long long* counter) {
  using agent = agent_recurrence_rows<T, Threads, Items, Grad, Vector>;
  __shared__ typename agent::temp_storage storage;
  agent{q, n, lead, tiles, status, counter, storage}.run();
}

template <class T, int Threads, int Items, bool Grad>
__global__ void __launch_bounds__(Threads)
    recurrence_lanes_kernel(recurrence_problem<T> q, std::int64_t groups, std::int64_t steps_tiles,
                            tile_status<recurrence_pair<typename recurrence_value<T>::state>> status,
                            unsigned long long* counter) {
  using agent = agent_recurrence_lanes<T, Threads, Items, Grad>;
  __shared__ typename agent::temp_storage storage;
  agent{q, groups, steps_tiles, status, counter, storage}.run();
}

// One warp a sequence (scan order, agent_row_chunks.cuh), Threads / 32
// sequences a block, at least MinBlocks blocks an SM; Stages > 0: the chunks
// ahead staged in shared memory (agent_row_chunks_staged), else in registers.
template <int Threads, int Rows, int MinBlocks, bool Prefetch, int Stages, class IO>
__global__ void __launch_bounds__(Threads, MinBlocks)
    recurrence_chunks_kernel(IO io, std::int64_t sequences, std::int64_t length) {
  const std::int64_t seq = static_cast<std::int64_t>(blockIdx.x) * (Threads / 32) + threadIdx.x / 32;
  if constexpr (Stages > 0) {
    using agent = agent_row_chunks_staged<Threads, Rows, Stages, IO, recurrence_compose>;
    __shared__ typename agent::temp_storage storage;
    if (seq < sequences) agent{io, storage}.run(seq, length);
  } else {
    if (seq < sequences) agent_row_chunks<Threads, Rows, IO, recurrence_compose, Prefetch>{io}.run(seq, length);
  }
}

}  // namespace streamscan::cuda::detail
