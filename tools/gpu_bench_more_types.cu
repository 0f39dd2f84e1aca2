// `streamscan bench` on the GPU, scans of the value types that are not the
// tuner's (fill.hpp's visit_more_bench_type): float, double, int64, int32 with
// user-written sums, 2x2 matrix products. A unit of its own so that it
// compiles beside gpu_bench.cu.
#include <string>

#include "gpu_bench_scan.cuh"

namespace streamscan_tool {

bool gpu_bench_more_type(const bench_options& o, const std::string& type, int log2n, bool warm, bench_report& rep,
                         progress& bar) {
  return visit_more_bench_type(type, [&](auto tag, const char* name, auto op) {
    scan_bench::bench_one<typename decltype(tag)::type>(o, name, log2n, warm, op, rep, bar);
  });
}

}  // namespace streamscan_tool
