// What the streamscan command measured, and how it shows it: the table, the
// JSON file and the progress line. Shared by the GPU and CPU halves.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "cli.hpp"

namespace streamscan_tool {

// One measurement: the median of `samples` timed runs and how much they spread.
// Header-only: the experiments time through cuda_timing.cuh without the tool.
struct timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double noise_pct = 0;  // the samples' standard deviation in % of their mean
  int samples = 0;

  // From the samples, in any order.
  static timing of(std::vector<double> ms) {
    timing t;
    if (ms.empty()) return t;
    std::sort(ms.begin(), ms.end());
    t.samples = static_cast<int>(ms.size());
    t.median_ms = ms[ms.size() / 2];
    t.min_ms = ms.front();
    t.max_ms = ms.back();
    const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / t.samples;
    double squares = 0;
    for (const double x : ms) squares += (x - mean) * (x - mean);
    t.noise_pct = t.samples > 1 && mean > 0 ? 100.0 * std::sqrt(squares / (t.samples - 1)) / mean : 0.0;
    return t;
  }
  static timing once(double ms) { return of({ms}); }  // a single run (no spread)
  operator double() const { return median_ms; }
};

struct bench_row {
  std::string type;       // int32, float, uint64, vec4i
  int log2n = 0;
  std::int64_t n = 0;
  std::string algorithm;  // memcpy, cub::InclusiveSum, reduce_then_scan, ...
  std::string policy;     // candidate policy and where it came from, "-" for baselines
  timing time;
  double bytes = 0;       // bytes the operation must move
  bool verified = false;
  double pct_memcpy = 0;  // filled by finish_ratios (0: no memcpy row)
  double speedup = 0;     // filled by finish_ratios: baseline's median / this row's (0: no baseline row)
  std::string baseline{};  // filled by finish_ratios: the algorithm `speedup` compares with
  // --compare-defaults, a strategy at its chosen policy: the tuning file's
  // policy for this row, or "no entry"; and the built-in default's median /
  // this row's, timed interleaved (0: not compared, e.g. the entry names the
  // default).
  std::string tuning_entry{};
  double vs_default = 0;
  double ms() const { return time.median_ms; }
};

struct bench_report {
  std::string backend;  // "cuda" or "cpu"
  std::string device;   // e.g. "NVIDIA H200 (sm_90, 132 SMs)"
  std::string note;     // e.g. why the CPU back end ran
  std::string command;  // the command line
  int repeat = 0;
  std::vector<bench_row> rows;
  std::vector<std::string> skipped;  // "vec4i 2^30: needs 48 GiB"
  std::vector<std::string> notes;    // lines printed after the table (what a primitive counts, extra tables)
};

// memcpy / peer ratios of every row, from the rows of the same type and size;
// where a group has several peer rows, the fastest is the baseline. The peer
// is CUB (cuSPARSE for SpMV) on the GPU; on the CPU the rows are
// "std::memcpy" and "std::inclusive_scan".
void finish_ratios(bench_report& r);

bool all_verified(const bench_report& r);

// The JSON's layout version: 2 added per-row min_ms, max_ms, samples,
// noise_pct, speedup and baseline (speedup_vs_cub stays, for CUB and cuSPARSE
// baselines only) and writes null for a figure that is not finite. Rows of
// schema 2 also carry tuning_entry and vs_default (bench_row; "" and 0 unless
// --compare-defaults), fields a reader of older files must not require.
constexpr int bench_json_schema = 2;

void print_table(std::FILE* to, const bench_report& r);
// Throws std::runtime_error when the file cannot be written.
void write_json(const std::string& path, const bench_report& r);

std::string utc_now();  // 2026-11-21T23:59:00Z
// A JSON number with that many decimals, or null where v is infinite or NaN
// (JSON has neither).
std::string json_number(double v, int decimals);

// "[ 12/96] int32 2^24 chained" on one rewritten line of stderr, when enabled
// (auto: stderr is a terminal).
class progress {
 public:
  progress(progress_mode mode, int total);
  ~progress();
  void step(const std::string& what);
  void done();

 private:
  bool on_;
  int total_, count_ = 0;
  std::size_t width_ = 0;
};

}  // namespace streamscan_tool
