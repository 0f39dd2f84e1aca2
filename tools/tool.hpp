// The streamscan command: shared declarations of its CPU and GPU halves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamscan_tool {

struct measurement {
  std::string what;      // e.g. "reduce_then_scan"
  double median_ms = 0;  // median over the repeats
  bool verified = false; // output equal to the host reference
};

struct gpu_probe {
  bool present = false;
  std::string name;  // e.g. "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
  std::string why_not;
};

gpu_probe probe_gpu();

// Scans `input` (int32, plus) on the GPU with every strategy and times, on the
// same buffers, a device-to-device memcpy and CUB's InclusiveSum beside it.
std::vector<measurement> run_gpu(const std::vector<std::int32_t>& input, const std::vector<std::int32_t>& expected,
                                 int repeats);

}  // namespace streamscan_tool
