// `streamscan bench` on the GPU, scans: the driver, and the tuner's value
// types (int32, uint64, vec4i); gpu_bench_more_types.cu holds the others.
#include <stdexcept>
#include <string>

#include "gpu_bench_scan.cuh"

namespace streamscan_tool {

bool gpu_bench_tune_type(const bench_options& o, const std::string& type, int log2n, bool warm, bench_report& rep,
                         progress& bar) {
  return visit_tune_type(type, [&](auto tag, const char* name, auto op) {
    scan_bench::bench_one<typename decltype(tag)::type>(o, name, log2n, warm, op, rep, bar);
  });
}

int gpu_bench(const bench_options& o, bench_report& rep) {
  warm_up_gpu();
  rep.repeat = o.repeat;
  if (o.compare_defaults) {
    const auto file = streamscan::tuning::active();
    const std::string state = file->state == streamscan::tuning::load_result::loaded  ? "read"
                              : file->state == streamscan::tuning::load_result::absent ? "absent"
                                                                                        : "ignored: " + file->message;
    rep.notes.push_back("--compare-defaults: tuning file " + (file->path.empty() ? "turned off" : file->path) +
                        " (" + state + ")");
  }
  progress bar(o.progress, static_cast<int>(o.types.size() * o.inputs.size() * o.log2_sizes.size()) *
                               scan_bench::measurements(o));
  for (const auto& input : o.inputs)
    for (const auto& t : o.types)
      for (const int e : o.log2_sizes) {
        const bool warm = input == "warm";
        if (!gpu_bench_tune_type(o, t, e, warm, rep, bar) && !gpu_bench_more_type(o, t, e, warm, rep, bar))
          throw std::invalid_argument("unknown value type '" + t + "'");
      }
  bar.done();
  return all_verified(rep) ? 0 : 1;
}

}  // namespace streamscan_tool
