// streamscan/cuda/util/grid_dependency.cuh - the device side of launches that
// overlap the kernel ahead of them (launch_overlapped, util/runtime.cuh):
// programmatic dependent launch, sm_90. Before sm_90 both are nothing (and
// the launch is a plain one).
#pragma once

namespace streamscan::cuda::detail {

// Waits until the kernel ahead in the stream has finished and its writes
// are visible. Returns at once in a kernel launched plainly.
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the kernel after this one in the stream, if launched overlapped,
// begin (it still waits for this one's writes before it reads them).
__device__ __forceinline__ void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

}  // namespace streamscan::cuda::detail
