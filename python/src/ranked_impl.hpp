// python/src/ranked_impl.hpp - what the Python calls across ranks ask of the
// communicator itself: every rank's size (so that each rank can size its
// share of a sort's output before the sort).
#pragma once

#include <cstdint>
#include <vector>

#include "backend.hpp"
#include "calls.hpp"

#if defined(STREAMSCAN_PY_NCCL)
#include <streamscan/nccl.cuh>
#endif

namespace streamscan::python {

status ranked_sizes(std::uintptr_t comm, std::int64_t n, std::vector<std::int64_t>& sizes, int& rank,
                    const launch& l) {
#if defined(STREAMSCAN_PY_NCCL)
  const char* fn = "streamscan (Python): the ranks' sizes";
  context ctx(l);
  if (!ctx.state) return ctx.state;
  streamscan::cuda::nccl_communicator c;
  if (status s = streamscan::cuda::nccl_communicator::wrap(fn, reinterpret_cast<ncclComm_t>(comm), c); !s) return s;
  const int ranks = c.size();
  rank = c.rank();
  std::int64_t* d = nullptr;
  const std::size_t bytes = sizeof(std::int64_t) * (static_cast<std::size_t>(ranks) + 1);
  if (const cudaError_t e = cudaMallocAsync(&d, bytes, ctx.stream); e != cudaSuccess) {
    cudaGetLastError();
    return streamscan::cuda::detail::cuda_status(fn, "cudaMallocAsync", e);
  }
  sizes.assign(static_cast<std::size_t>(ranks), 0);
  cudaError_t e = cudaMemcpyAsync(d, &n, sizeof(n), cudaMemcpyHostToDevice, ctx.stream);
  status s = e == cudaSuccess ? c.all_gather(fn, d, d + 1, sizeof(std::int64_t), ctx.stream)
                              : streamscan::cuda::detail::cuda_status(fn, "cudaMemcpyAsync", e);
  if (s) {
    e = cudaMemcpyAsync(sizes.data(), d + 1, sizeof(std::int64_t) * ranks, cudaMemcpyDeviceToHost, ctx.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx.stream);
    if (e != cudaSuccess) s = streamscan::cuda::detail::cuda_status(fn, "reading the sizes", e);
  }
  cudaFreeAsync(d, ctx.stream);
  return s;
#else
  (void)comm, (void)n, (void)sizes, (void)rank, (void)l;
  return not_compiled("calls across ranks (NCCL)");
#endif
}

}  // namespace streamscan::python
