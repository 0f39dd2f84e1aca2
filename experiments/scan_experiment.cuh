// scan_experiment.cuh - what the scan experiments share: a status check that
// exits, deterministic small-integer inputs, and input and output buffers
// rotated over a footprint past L2, so that no call finds the last one's data
// there, with a third buffer for the reference output; memcpy, CUB and the
// library's call timed on them; both libraries' temp storage.
#pragma once

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>
#include <streamscan/status.hpp>

#include "../tools/cuda_timing.cuh"

namespace scan_experiment {

inline void ok(const streamscan::status& s) {
  if (!s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::exit(1);
  }
}

// Values in [-100, 100], a hash of the position and `salt`: sums of any
// grouping are exact, so outputs compare bit for bit.
template <class T>
__global__ void fill(T* p, std::int64_t n, unsigned salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(static_cast<int>((static_cast<unsigned>(i) * 2654435761u ^ salt) % 201) - 100);
}

// `sets` pairs of n-value input and output buffers filling about
// `footprint_mib` (at least `min_sets`), inputs filled, and `expect`.
template <class T>
struct rotating_buffers {
  std::int64_t n;
  std::size_t bytes;
  int sets;
  std::vector<T*> in, out;
  T* expect = nullptr;

  rotating_buffers(std::int64_t count, std::size_t footprint_mib, int min_sets)
      : n(count), bytes(static_cast<std::size_t>(count) * sizeof(T)) {
    sets = static_cast<int>(std::max<std::size_t>(min_sets, (footprint_mib << 20) / (2 * bytes)));
    in.resize(sets);
    out.resize(sets);
    for (int s = 0; s < sets; ++s) {
      streamscan_tool::cuda_check(cudaMalloc(&in[s], bytes), "cudaMalloc");
      streamscan_tool::cuda_check(cudaMalloc(&out[s], bytes), "cudaMalloc");
      fill<<<264, 256>>>(in[s], n, 17u * s + 1);
    }
    streamscan_tool::cuda_check(cudaMalloc(&expect, bytes), "cudaMalloc");
  }
  ~rotating_buffers() {
    for (int s = 0; s < sets; ++s) {
      cudaFree(in[s]);
      cudaFree(out[s]);
    }
    cudaFree(expect);
  }
  rotating_buffers(const rotating_buffers&) = delete;

  // Median ms of `repeats` calls of f(input, output), each on the next pair.
  template <class F>
  double median_ms(int repeats, F f) const {
    return streamscan_tool::median_ms(repeats, [&](int r) { f(static_cast<const T*>(in[r % sets]), out[r % sets]); })
        .median_ms;
  }
  // ... of cudaMemcpyAsync device to device, CUB's InclusiveSum (its temp
  // storage given) and the library's inclusive_scan (two-phase, `temp`).
  double memcpy_ms(int repeats) const {
    return median_ms(repeats, [&](const T* i, T* o) {
      streamscan_tool::cuda_check(cudaMemcpyAsync(o, i, bytes, cudaMemcpyDeviceToDevice), "memcpy");
    });
  }
  double cub_ms(int repeats, void* temp, std::size_t temp_bytes) const {
    return median_ms(repeats, [&](const T* i, T* o) {
      std::size_t b = temp_bytes;
      streamscan_tool::cuda_check(cub::DeviceScan::InclusiveSum(temp, b, i, o, n), "cub::DeviceScan::InclusiveSum");
    });
  }
  double library_ms(int repeats, void* temp, std::size_t temp_bytes) const {
    return median_ms(repeats, [&](const T* i, T* o) {
      ok(streamscan::cuda::inclusive_scan(temp, temp_bytes, i, o, n, streamscan::plus{}));
    });
  }
  rotating_buffers& operator=(const rotating_buffers&) = delete;
};

// CUB's and the library's temp storage for inclusive sums of n values (the
// library's at least `at_least` bytes, and `slack` bytes past them), sized by
// their size queries on (in, out) and freed with the object.
template <class T>
struct scan_temps {
  void* cub = nullptr;
  std::size_t cub_bytes = 0;
  unsigned char* ours = nullptr;
  std::size_t our_bytes = 0;

  scan_temps(const T* in, T* out, std::int64_t n, std::size_t at_least = 0, std::size_t slack = 0) {
    streamscan_tool::cuda_check(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, n), "cub sizing");
    ok(streamscan::cuda::inclusive_scan(nullptr, our_bytes, in, out, n, streamscan::plus{}));
    our_bytes = std::max(our_bytes, at_least);
    streamscan_tool::cuda_check(cudaMalloc(&cub, cub_bytes), "cudaMalloc");
    streamscan_tool::cuda_check(cudaMalloc(&ours, our_bytes + slack), "cudaMalloc");
  }
  ~scan_temps() {
    cudaFree(cub);
    cudaFree(ours);
  }
  scan_temps(const scan_temps&) = delete;
  scan_temps& operator=(const scan_temps&) = delete;
};

}  // namespace scan_experiment
