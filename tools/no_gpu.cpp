// The GPU half of the streamscan command in a build without CUDA.
#include <stdexcept>

#include "tool.hpp"

namespace streamscan_tool {

gpu_probe probe_gpu() { return {false, {}, "this streamscan was built without CUDA (no nvcc found)"}; }

namespace {
[[noreturn]] void unavailable() { throw std::runtime_error("this streamscan was built without CUDA"); }
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
