// Experiment: the persistent, pipelined look-back scan
// (single_pass_pipelined_scan_kernel) in several shapes against memcpy, CUB
// and the library's default vectorised kernel, in one process on the same
// buffers. Every output is compared with CUB's.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -Iinclude \
//        experiments/pipelined_scan.cu -o pipelined_scan && ./pipelined_scan
#define STREAMSCAN_PIPELINE_TRACE 1  // timeline probes; off unless a buffer is set
#include <cub/device/device_scan.cuh>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <map>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>
#include <streamscan/cuda/kernels/pipelined_scan_kernel.cuh>

#include "../tools/cuda_timing.cuh"
#include "pipeline_trace.cuh"

namespace sd = streamscan::cuda::detail;
using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;

template <int ScanWarps, int Rows, int Stages, int LookBackWarps, int ReduceWarps>
struct pipe_policy {
  static constexpr int scan_warps = ScanWarps, rows = Rows, stages = Stages, look_back_warps = LookBackWarps,
                       reduce_warps = ReduceWarps;
  static constexpr unsigned look_back_sleep_ns = 1024;
  static constexpr int look_back_windows = 4;
};

struct buffers {
  int copies;
  std::size_t bytes;
  unsigned char *in, *out;
};

template <class A>
__global__ void fill(A* p, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<A>((i * 2654435761u + seed) % 1000u);
}

template <class A, class P>
void pipelined(const buffers& b, std::int64_t n, const A* reference, void* temp, double memcpy_ms, double cub_ms,
               bool trace_it = false) {
  using shape = sd::pipelined_shape<P, A>;
  constexpr int tile_items = shape::tile_items;
  const std::int64_t tiles = (n + tile_items - 1) / tile_items;
  const auto kernel = sd::pipelined_scan_kernel<P, A, streamscan::plus>;
  const int smem = static_cast<int>(shape::dynamic_shared_bytes);
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute");
  int per_sm = 0, sms = 0, device = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, shape::threads, smem), "occupancy");
  cuda_check(cudaGetDevice(&device), "device");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "sms");
  const std::int64_t grid = std::min<std::int64_t>(tiles, std::int64_t{sms} * per_sm);
  unsigned char* bytes = static_cast<unsigned char*>(temp);
  const std::size_t reset = 256 + sd::tile_status<A>::bytes(tiles);
  auto run = [&](int r) {
    const int c = r % b.copies;
    cuda_check(cudaMemsetAsync(bytes, 0, reset), "memset");
    kernel<<<grid, shape::threads, smem>>>(reinterpret_cast<const A*>(b.in + c * b.bytes),
                                       reinterpret_cast<A*>(b.out + c * b.bytes), n,
                                       sd::tile_status<A>(bytes + 256, tiles),
                                       reinterpret_cast<unsigned long long*>(bytes), sd::maybe<A>{A{}, false},
                                       sd::scan_mode::inclusive, streamscan::plus{});
    cuda_check(cudaGetLastError(), "launch");
  };
  const double ms = median_ms(20, run);
  run(0);
  cuda_check(cudaDeviceSynchronize(), "sync");
  const A* out = reinterpret_cast<const A*>(b.out);
  const bool ok = thrust::equal(thrust::device, out, out + n, reference);
  std::printf("  pipelined w%-2d r%-2d s%-2d l%d x%d tile %5d (%3d KiB smem, %d/SM) %9.4f ms %5.1f%% memcpy %5.2fx CUB %s\n",
              P::scan_warps, P::rows, P::stages, P::look_back_warps, P::reduce_warps, tile_items, smem / 1024, per_sm, ms, 100 * memcpy_ms / ms,
              cub_ms / ms, ok ? "ok" : "WRONG");
  if (trace_it) trace_report(run, tiles);
}

template <class A>
void run_type(const char* name, int log2n, std::int64_t extra = 0) {
  const std::int64_t n = (std::int64_t{1} << log2n) + extra;
  buffers b;
  b.bytes = (sizeof(A) * n + 255) / 256 * 256;  // every copy 256-byte aligned
  b.copies = static_cast<int>(std::max<std::size_t>(1, (std::size_t{512} << 20) / b.bytes));
  cuda_check(cudaMalloc(&b.in, b.bytes * b.copies), "malloc");
  cuda_check(cudaMalloc(&b.out, b.bytes * b.copies), "malloc");
  A* reference = nullptr;
  cuda_check(cudaMalloc(&reference, b.bytes), "malloc");
  for (int c = 0; c < b.copies; ++c) fill<<<1024, 256>>>(reinterpret_cast<A*>(b.in + c * b.bytes), n, 17u);
  std::size_t temp_bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, reinterpret_cast<const A*>(b.in), reference, n);
  temp_bytes = std::max<std::size_t>(temp_bytes, 256 + 16 * (n / 256 + 1));
  void* temp = nullptr;
  cuda_check(cudaMalloc(&temp, temp_bytes), "malloc");
  cuda_check(cudaDeviceSynchronize(), "fill");
  // Bring the clocks up.
  for (int i = 0; i < 20; ++i) cudaMemcpyAsync(b.out, b.in, b.bytes, cudaMemcpyDeviceToDevice);
  const double memcpy_ms = median_ms(20, [&](int r) {
    const int c = r % b.copies;
    cudaMemcpyAsync(b.out + c * b.bytes, b.in + c * b.bytes, b.bytes, cudaMemcpyDeviceToDevice);
  });
  const double cub_ms = median_ms(20, [&](int r) {
    const int c = r % b.copies;
    std::size_t tb = temp_bytes;
    cub::DeviceScan::InclusiveSum(temp, tb, reinterpret_cast<const A*>(b.in + c * b.bytes),
                                  reinterpret_cast<A*>(b.out + c * b.bytes), n);
  });
  cub::DeviceScan::InclusiveSum(temp, temp_bytes, reinterpret_cast<const A*>(b.in), reference, n);
  std::printf("%s 2^%d%+lld: memcpy %.4f ms, CUB %.4f ms (%.1f%%)\n", name, log2n, static_cast<long long>(extra), memcpy_ms, cub_ms, 100 * memcpy_ms / cub_ms);
  {
    std::size_t tb = 0;
    (void)streamscan::cuda::inclusive_scan(nullptr, tb, reinterpret_cast<const A*>(b.in), reinterpret_cast<A*>(b.out), n);
    void* t2 = nullptr;
    cuda_check(cudaMalloc(&t2, tb), "malloc");
    const double ms = median_ms(20, [&](int r) {
      const int c = r % b.copies;
      std::size_t x = tb;
      (void)streamscan::cuda::inclusive_scan(t2, x, reinterpret_cast<const A*>(b.in + c * b.bytes),
                                             reinterpret_cast<A*>(b.out + c * b.bytes), n);
    });
    cuda_check(cudaDeviceSynchronize(), "sync");
    std::size_t x = tb;
    (void)streamscan::cuda::inclusive_scan(t2, x, reinterpret_cast<const A*>(b.in), reinterpret_cast<A*>(b.out), n);
    cuda_check(cudaDeviceSynchronize(), "sync");
    const bool ok = thrust::equal(thrust::device, reinterpret_cast<A*>(b.out), reinterpret_cast<A*>(b.out) + n, reference);
    std::printf("  library default (one tile per block)              %9.4f ms %5.1f%% memcpy %5.2fx CUB %s\n", ms,
                100 * memcpy_ms / ms, cub_ms / ms, ok ? "ok" : "WRONG");
    cudaFree(t2);
  }
  pipelined<A, pipe_policy<8, 8, 6, 2, 2>>(b, n, reference, temp, memcpy_ms, cub_ms, log2n == 28);
  pipelined<A, pipe_policy<8, 8, 6, 3, 3>>(b, n, reference, temp, memcpy_ms, cub_ms);
  pipelined<A, pipe_policy<8, 8, 6, 6, 2>>(b, n, reference, temp, memcpy_ms, cub_ms);
  pipelined<A, pipe_policy<8, 12, 4, 2, 2>>(b, n, reference, temp, memcpy_ms, cub_ms);
  pipelined<A, pipe_policy<8, 16, 3, 3, 3>>(b, n, reference, temp, memcpy_ms, cub_ms, log2n == 28);
  pipelined<A, pipe_policy<16, 8, 3, 3, 3>>(b, n, reference, temp, memcpy_ms, cub_ms);
  pipelined<A, pipe_policy<16, 4, 6, 3, 3>>(b, n, reference, temp, memcpy_ms, cub_ms);
  cudaFree(b.in);
  cudaFree(b.out);
  cudaFree(reference);
  cudaFree(temp);
}

// Mode 4, for compute-sanitizer: one untimed call of the default pipelined
// shape per size, around its tile edges, checked against CUB.
void sanitizer_sizes() {
  using P = pipe_policy<8, 8, 6, 2, 2>;
  using shape = sd::pipelined_shape<P, std::int32_t>;
  const auto kernel = sd::pipelined_scan_kernel<P, std::int32_t, streamscan::plus>;
  const int smem = static_cast<int>(shape::dynamic_shared_bytes);
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute");
  constexpr std::int64_t T = shape::tile_items;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{3}, T - 1, T + 5, 7 * T + 3, 40 * T}) {
    std::int32_t *in, *out, *ref;
    cuda_check(cudaMalloc(&in, n * 4), "malloc");
    cuda_check(cudaMalloc(&out, n * 4), "malloc");
    cuda_check(cudaMalloc(&ref, n * 4), "malloc");
    fill<<<64, 256>>>(in, n, 5u);
    std::size_t cub_bytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n);
    const std::int64_t tiles = (n + T - 1) / T;
    const std::size_t temp_bytes = std::max<std::size_t>(cub_bytes, 256 + sd::tile_status<std::int32_t>::bytes(tiles));
    void* temp;
    cuda_check(cudaMalloc(&temp, temp_bytes), "malloc");
    cub::DeviceScan::InclusiveSum(temp, cub_bytes, in, ref, n);
    cuda_check(cudaMemset(temp, 0, temp_bytes), "memset");
    const int grid = static_cast<int>(std::min<std::int64_t>(tiles, 8));  // several blocks, several rounds each
    kernel<<<grid, shape::threads, smem>>>(in, out, n,
                                           sd::tile_status<std::int32_t>(static_cast<unsigned char*>(temp) + 256, tiles),
                                           static_cast<unsigned long long*>(temp), sd::maybe<std::int32_t>{0, false},
                                           sd::scan_mode::inclusive, streamscan::plus{});
    cuda_check(cudaDeviceSynchronize(), "pipelined");
    std::printf("n=%lld %s\n", static_cast<long long>(n), thrust::equal(thrust::device, out, out + n, ref) ? "ok" : "WRONG");
    cudaFree(in);
    cudaFree(out);
    cudaFree(ref);
    cudaFree(temp);
  }
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a timeout
  const int only = argc > 1 ? std::atoi(argv[1]) : 0;
  if (only == 4) {
    sanitizer_sizes();
    return 0;
  }
  if (!only || only == 1)
    for (int e : {28, 30, 26, 24, 22, 20}) run_type<std::int32_t>("int32", e);
  if (!only || only == 2)
    for (int e : {27, 25, 23}) run_type<std::uint64_t>("uint64", e);
  if (!only || only == 3) {
    run_type<std::int32_t>("int32", 20, 12345);
    run_type<std::int32_t>("int32", 24, -3);
    run_type<std::uint64_t>("uint64", 16, -7);
    run_type<std::uint64_t>("uint64", 4, 1);
  }
  return 0;
}
