// The GPU half of the streamscan command.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>

#include <streamscan/cuda.cuh>

#include "cuda_timing.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {
void check(cudaError_t e, const char* what) { cuda_check(e, what); }
}  // namespace

gpu_probe probe_gpu() {
  gpu_probe p;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    p.why_not = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    cudaGetLastError();
    return p;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  p.present = true;
  p.name = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
           std::to_string(prop.multiProcessorCount) + " SMs)";
  return p;
}

std::vector<measurement> run_gpu(const std::vector<std::int32_t>& input, const std::vector<std::int32_t>& expected,
                                 int repeats) {
  const std::int64_t n = static_cast<std::int64_t>(input.size());
  const std::size_t bytes = input.size() * sizeof(std::int32_t);
  std::int32_t *d_in = nullptr, *d_out = nullptr;
  check(cudaMalloc(&d_in, bytes), "cudaMalloc");
  check(cudaMalloc(&d_out, bytes), "cudaMalloc");
  check(cudaMemcpy(d_in, input.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");

  std::vector<measurement> results;
  results.push_back({"memcpy (device to device)",
                     median_ms(repeats, [&](int) { check(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice), "memcpy"); }),
                     true});
  {  // The baseline users reach for today, on the same buffers.
    std::size_t cub_bytes = 0;
    check(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, d_in, d_out, n), "cub::DeviceScan::InclusiveSum");
    void* cub_temp = nullptr;
    check(cudaMalloc(&cub_temp, cub_bytes), "cudaMalloc");
    check(cudaMemset(d_out, 0xA7, bytes), "cudaMemset");
    const double ms = median_ms(repeats, [&](int) {
      check(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, d_in, d_out, n), "cub::DeviceScan::InclusiveSum");
    });
    std::vector<std::int32_t> out(input.size());
    check(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    results.push_back({"cub::DeviceScan::InclusiveSum", ms, out == expected});
    cudaFree(cub_temp);
  }
  for (const auto strategy : {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
                              streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback}) {
    const streamscan::scan_options opt{strategy};
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, temp_bytes, static_cast<const std::int32_t*>(d_in), d_out, n,
                                                                streamscan::plus{}, nullptr, opt));
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    check(cudaMemset(d_out, 0xA7, bytes), "cudaMemset");
    const double ms = median_ms(repeats, [&](int) {
      streamscan::throw_if_error(streamscan::cuda::inclusive_scan(temp, temp_bytes, static_cast<const std::int32_t*>(d_in),
                                                                  d_out, n, streamscan::plus{}, nullptr, opt));
    });
    std::vector<std::int32_t> out(input.size());
    check(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    results.push_back({streamscan::to_string(strategy), ms, out == expected});
    cudaFree(temp);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  return results;
}

}  // namespace streamscan_tool
