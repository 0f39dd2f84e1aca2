// Device buffers of the bench and the tuner: inputs and outputs rotated over
// at least 256 MiB each (four times an H200's L2), so that no size is timed
// from cache (or, warm, one of each); deterministic pseudo-random fill; a
// device-side comparison.
#pragma once

#include <cuda_runtime.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <cmath>
#include <cstdint>
#include <vector>
#include <string>
#include <type_traits>

#include "../tests/common/types.hpp"
#include "cuda_timing.cuh"
#include "fill.hpp"

namespace streamscan_tool {

using streamscan_test::vec4i;
using streamscan_test::vec4i_plus;

template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = bench_value<T>(i, seed);
}

// Equal for integers and structs; within 1e-3 relative for float, because
// implementations add in different orders.
template <class T>
struct close_enough {
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, float>) return fabsf(a - b) <= 1e-3f * fmaxf(1.0f, fabsf(b));
    else if constexpr (std::is_same_v<T, vec4i>) return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
    else if constexpr (std::is_same_v<T, streamscan_test::mat2u>) return a.a == b.a && a.b == b.b && a.c == b.c && a.d == b.d;
    else return a == b;
  }
};

template <class T>
bool device_equal(const T* a, const T* b, std::int64_t n) {
  return thrust::equal(thrust::device, a, a + n, b, close_enough<T>{});
}

// `slots` inputs and outputs of n values each, back to back; slot(r) rotates.
template <class T>
class rotating_buffers {
 public:
  static constexpr std::size_t rotation_bytes = std::size_t{256} << 20;

  // Bytes needed for n values (pools plus a reference output).
  static std::size_t footprint(std::int64_t n) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    return 2 * pool_bytes(bytes) + bytes;
  }

  // rotate = false: one input and one output slot, the same ones call after
  // call (a warm cache, as a loop over one array sees).
  explicit rotating_buffers(std::int64_t n, bool rotate = true) : n_(n) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    slots_ = rotate ? static_cast<int>(pool_bytes(bytes) / (bytes ? bytes : 1)) : 1;
    cuda_check(cudaMalloc(&in_, pool_bytes(bytes)), "cudaMalloc (input pool)");
    cuda_check(cudaMalloc(&out_, pool_bytes(bytes)), "cudaMalloc (output pool)");
    cuda_check(cudaMalloc(&reference_, bytes ? bytes : 1), "cudaMalloc (reference)");
    fill_kernel<<<1024, 256>>>(in_, n * slots_, bench_seed);
    cuda_check(cudaGetLastError(), "fill_kernel");
    cuda_check(cudaDeviceSynchronize(), "fill_kernel");
  }
  ~rotating_buffers() {
    cudaFree(in_);
    cudaFree(out_);
    cudaFree(reference_);
  }
  rotating_buffers(const rotating_buffers&) = delete;
  rotating_buffers& operator=(const rotating_buffers&) = delete;

  const T* in(int r) const { return in_ + static_cast<std::int64_t>(r % slots_) * n_; }
  T* out(int r) const { return out_ + static_cast<std::int64_t>(r % slots_) * n_; }
  T* reference() const { return reference_; }
  std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(T); }

  // Poisons slot 0's output; after a run into it, compares with the reference.
  void poison() const { cuda_check(cudaMemset(out_, 0xA7, bytes()), "cudaMemset (poison)"); }
  bool matches_reference() const { return device_equal(out_, reference_, n_); }

 private:
  static std::size_t pool_bytes(std::size_t bytes) {
    if (bytes == 0) return 1;
    return bytes >= rotation_bytes ? bytes : (rotation_bytes / bytes) * bytes;
  }
  std::int64_t n_;
  int slots_ = 1;
  T* in_ = nullptr;
  T* out_ = nullptr;
  T* reference_ = nullptr;
};

// A plain device allocation (benchmarks that do not rotate buffers: sizes past L2 only).
template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::size_t n) { cuda_check(cudaMalloc(&p, n * sizeof(T) + 16), "cudaMalloc"); }
  ~device_array() { cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  T* get() const { return p; }
  void upload(const std::vector<T>& v) {
    cuda_check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  void download(std::vector<T>& v) const {
    cuda_check(cudaMemcpy(v.data(), p, v.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
  }
};

// About 0.2 s of copying first, so that the first measurement does not pay
// for the GPU's clocks ramping up from idle.
inline void warm_up_gpu() {
  const std::size_t bytes = std::size_t{256} << 20;
  void *a = nullptr, *b = nullptr;
  cuda_check(cudaMalloc(&a, bytes), "cudaMalloc");
  cuda_check(cudaMalloc(&b, bytes), "cudaMalloc");
  for (int i = 0; i < 400; ++i) cuda_check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice), "memcpy");
  cuda_check(cudaDeviceSynchronize(), "warm-up");
  cudaFree(a);
  cudaFree(b);
}

}  // namespace streamscan_tool
