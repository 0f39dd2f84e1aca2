// The GPU half of the streamscan command in a build without CUDA, or one that
// compiled the real GPU half only to check it (STREAMSCAN_CUDA_CHECK_ONLY).
#include <stdexcept>

#include "tool.hpp"

namespace streamscan_tool {

#ifdef STREAMSCAN_GPU_HALF_CHECK_ONLY
#define STREAMSCAN_NO_GPU_REASON \
  "this streamscan was built without its GPU half: no GPU was found when it was configured (scripts/configure)"
#else
#define STREAMSCAN_NO_GPU_REASON "this streamscan was built without CUDA (no nvcc found)"
#endif

gpu_probe probe_gpu() { return {false, {}, STREAMSCAN_NO_GPU_REASON}; }

namespace {
[[noreturn]] void unavailable() { throw std::runtime_error(STREAMSCAN_NO_GPU_REASON); }
}  // namespace

int gpu_bench(const bench_options&, bench_report&) { unavailable(); }
int gpu_bench_segmented(const bench_options&, bench_report&) { unavailable(); }
int gpu_bench_select(const bench_options&, bench_report&) { unavailable(); }
int gpu_bench_segmented_reduce(const bench_options&, bench_report&) { unavailable(); }
int gpu_bench_sort(const bench_options&, bench_report&) { unavailable(); }
int gpu_bench_spmv(const bench_options&, bench_report&) { unavailable(); }
int gpu_bench_tridiagonal(const bench_options&, bench_report&) { unavailable(); }
int gpu_tune(const tune_options&) { unavailable(); }
int gpu_verify(const verify_options&) { unavailable(); }

}  // namespace streamscan_tool
