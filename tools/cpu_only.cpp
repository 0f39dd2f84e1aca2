// The GPU half of the streamscan command when built without CUDA.
#include "tool.hpp"

namespace streamscan_tool {
gpu_probe probe_gpu() { return {false, {}, "built without CUDA"}; }
std::vector<measurement> run_gpu(const std::vector<std::int32_t>&, const std::vector<std::int32_t>&, int) { return {}; }
}  // namespace streamscan_tool
