// streamscan/cuda/util/bulk_copy.cuh - the Hopper bulk copy engine
// (cp.async.bulk: global -> shared without registers or threads) and the
// shared-memory transaction barrier it signals (mbarrier), as thin inline-PTX
// wrappers. sm_90 and later; callers check `bulk_copy_available`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace streamscan::cuda::detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define STREAMSCAN_BULK_COPY 1
#else
#define STREAMSCAN_BULK_COPY 0
#endif

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// One mbarrier: `arrivals` arrivals plus the bytes announced by
// arrive_expect_tx complete a phase; phases alternate parity 0, 1, 0, ...
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned arrivals) {
#if STREAMSCAN_BULK_COPY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
#endif
}

// Makes initialised barriers visible to the copy engine (the async proxy).
__device__ __forceinline__ void mbarrier_init_fence() {
#if STREAMSCAN_BULK_COPY
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
#if STREAMSCAN_BULK_COPY
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
#if STREAMSCAN_BULK_COPY
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
#endif
}

// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
#if STREAMSCAN_BULK_COPY
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "wait:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @!done bra wait;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
#endif
}

// True when the phase of parity `parity` has completed (may wait a while).
__device__ __forceinline__ bool mbarrier_try_wait(std::uint64_t* bar, unsigned parity) {
#if STREAMSCAN_BULK_COPY
  std::uint32_t done;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(shared_address(bar)), "r"(parity)
      : "memory");
  return done != 0;
#else
  return true;
#endif
}

// Orders this thread's earlier generic writes to shared memory before later
// accesses of the async proxy (the copy engine refilling the same bytes).
__device__ __forceinline__ void fence_proxy_async_shared() {
#if STREAMSCAN_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from
// global to shared memory; completion counts `bytes` against `bar`'s phase.
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
#if STREAMSCAN_BULK_COPY
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#endif
}

// Asks the bulk copy engine to bring `bytes` (a multiple of 16; the address
// 16-byte aligned) from global memory into L2, with no registers, no
// completion and no effect on correctness: a hint, before sm_90 none.
__device__ __forceinline__ void prefetch_to_l2(const void* src, unsigned bytes) {
#if STREAMSCAN_BULK_COPY
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
#endif
}

// The whole 16-byte units inside [p, p + bytes) into L2 (prefetch_to_l2),
// for ranges of any alignment: rounded inwards, so nothing outside is asked.
__device__ __forceinline__ void prefetch_range_to_l2(const void* p, std::size_t bytes) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t lo = (a + 15) & ~std::uintptr_t{15}, hi = (a + bytes) & ~std::uintptr_t{15};
  if (hi > lo) prefetch_to_l2(reinterpret_cast<const void*>(lo), static_cast<unsigned>(hi - lo));
}

}  // namespace streamscan::cuda::detail
