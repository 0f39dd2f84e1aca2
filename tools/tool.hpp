// The streamscan command: what its GPU half (gpu_*.cu, or no_gpu.cpp in a
// build without CUDA) and its CPU half (cpu_tool.cpp) offer to main.
#pragma once

#include <string>

#include "cli.hpp"
#include "report.hpp"

namespace streamscan_tool {

struct gpu_probe {
  bool present = false;
  std::string name;  // e.g. "NVIDIA H200 (sm_90, 132 SMs)"
  std::string why_not;
};

gpu_probe probe_gpu();

// Each returns the process exit status (0 ok, 1 a check failed); run-time
// errors are thrown as std::exception.
int gpu_bench(const bench_options& opt, bench_report& report);
// gpu_bench's value types, one unit each half: false where the name is not the half's.
bool gpu_bench_tune_type(const bench_options& opt, const std::string& type, int log2n, bool warm,
                         bench_report& report, progress& bar);
bool gpu_bench_more_type(const bench_options& opt, const std::string& type, int log2n, bool warm,
                         bench_report& report, progress& bar);
int gpu_bench_segmented(const bench_options& opt, bench_report& report);  // --primitives segmented
int gpu_bench_select(const bench_options& opt, bench_report& report);     // --primitives select
int gpu_bench_segmented_reduce(const bench_options& opt, bench_report& report);  // --primitives segmented_reduce
int gpu_bench_sort(const bench_options& opt, bench_report& report);       // --primitives sort
int gpu_bench_spmv(const bench_options& opt, bench_report& report);       // --primitives spmv
int gpu_bench_tridiagonal(const bench_options& opt, bench_report& report);  // --primitives tridiagonal
int gpu_tune(const tune_options& opt);
int gpu_verify(const verify_options& opt);

int cpu_bench(const bench_options& opt, bench_report& report);
int cpu_verify(const verify_options& opt);

// The compiled-in candidate policies of every strategy (no GPU needed).
void list_candidates();

}  // namespace streamscan_tool
