// streamscan/cuda/dispatch/dispatch_reduce.cuh - a device-wide reduction with
// no identity element: the multi-pass scan's first pass (one total per
// partition, in a fixed order) followed by one block that folds the totals.
// The order of folding depends only on n and the device's SM count, so a
// floating-point result repeats run to run. Used by the multi-GPU scan
// (dispatch_ranked.cuh) to learn a shard's aggregate.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../../detail/validate.hpp"
#include "../../status.hpp"
#include "../../tuning/choose.hpp"
#include "../../tuning/scan.hpp"
#include "../kernels/scan_kernels.cuh"
#include "../util/runtime.cuh"
#include "dispatch_scan.cuh"

namespace streamscan::cuda::detail {

template <class A>
partition_plan reduce_plan(std::int64_t n, const device_facts& facts) {
  const int shape = tuning::default_for(tuning::algorithm::reduce_then_scan, sizeof(A), n, facts.cc_major * 10);
  return partition_plan::make(n, tuning::scan_policy_for<A>::tile_items, facts.sm_count,
                              tuning::multi_pass_shapes[shape].partitions_per_sm);
}

// Temp bytes for reduce_into (the partition totals), never 0.
template <class A>
std::size_t reduce_temp_bytes(std::int64_t n, const device_facts& facts) {
  return streamscan::detail::temp_bytes_for<A>(reduce_plan<A>(n, facts).partitions);
}

// *result <- in[0] (+) ... (+) in[n-1], for n > 0; `partials` holds
// reduce_temp_bytes<A>(n) bytes, aligned for A.
template <class A, class InIt, class Op>
status reduce_into(const char* fn, InIt in, std::int64_t n, A* result, A* partials, Op op, cudaStream_t stream,
                   const device_facts& facts) {
  using policy = tuning::scan_policy_for<A>;
  const partition_plan plan = reduce_plan<A>(n, facts);
  const auto kernel_in = reduce_partitions_kernel<policy, A, InIt, Op>;
  const auto kernel_partials = reduce_partitions_kernel<policy, A, const A*, Op>;
  if (plan.partitions == 1)
    return launch(fn, "reduce_partitions_kernel", kernel_in, 1, policy::threads, stream, in, n,
                  plan.tiles_per_partition, result, op);
  status s = launch(fn, "reduce_partitions_kernel", kernel_in, plan.partitions, policy::threads, stream, in, n,
                    plan.tiles_per_partition, partials, op);
  const std::int64_t tiles = (plan.partitions + policy::tile_items - 1) / policy::tile_items;
  if (s)
    s = launch(fn, "reduce_partitions_kernel", kernel_partials, 1, policy::threads, stream,
               static_cast<const A*>(partials), plan.partitions, tiles, result, op);
  return s;
}

}  // namespace streamscan::cuda::detail
