// streamscan/cuda/util/async_copy.cuh - 16-byte asynchronous copies from
// global to shared memory (cp.async, sm_80 and later) in groups a thread
// commits and waits for, as thin inline-PTX wrappers. The copies bypass L1
// (.cg): what they stage is read once.
#pragma once

#include <cstdint>

namespace streamscan::cuda::detail {

// 16 bytes from global `src` to shared `dst`, both 16-byte aligned.
__device__ __forceinline__ void async_copy_16(void* dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
#else
  *static_cast<uint4*>(dst) = *static_cast<const uint4*>(src);
#endif
}

// Closes the thread's current group of copies (an empty group is a group).
__device__ __forceinline__ void async_copy_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// Waits until at most Pending of the thread's groups are still in flight.
template <int Pending>
__device__ __forceinline__ void async_copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

}  // namespace streamscan::cuda::detail
