// streamscan/cuda/util/uninitialized.cuh - raw, aligned storage for a T.
//
// Shared memory cannot hold types with constructors; the value types we scan
// are trivially copyable, so placing one in suitably aligned bytes is valid.
#pragma once

namespace streamscan::cuda::detail {

template <class T>
struct alignas(T) uninitialized {
  unsigned char bytes[sizeof(T)];
  __device__ __forceinline__ T& get() { return *reinterpret_cast<T*>(bytes); }
  __device__ __forceinline__ const T& get() const { return *reinterpret_cast<const T*>(bytes); }
};

}  // namespace streamscan::cuda::detail
