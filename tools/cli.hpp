// The streamscan command's arguments: parsed into plain structs, apart from
// any GPU code, so that the tests can check them without a device.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace streamscan_tool {

// A bad command line: the message names the argument; exit status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class progress_mode { automatic, on, off };

struct bench_options {
  std::vector<std::string> primitives;  // scan, segmented, select, segmented_reduce, sort
  std::vector<std::int64_t> segment_lengths;  // segmented: mean segment lengths
  std::vector<double> keep_fractions;   // select: fractions of elements selected
  std::vector<std::string> key_types;      // sort: uint32, uint64, float, pairs (uint32 keys, uint32 values)
  std::vector<std::string> distributions;  // sort: uniform, and2, and3, and4, sorted
  std::vector<std::string> matrices;       // spmv: the generated matrices (spmv_matrices())
  bool seed_table = false;                 // sort: also [ScanPrimitives]' sort table (2^22, 2^28)
  std::vector<std::string> types;       // bench_types(): int32, float, uint64, vec4i, double, ...
  std::vector<std::string> inputs;      // scan on the GPU: cold (rotated buffers), warm (the same ones)
  std::vector<int> log2_sizes;          // 2^k elements
  bool sizes_given = false;             // the CPU caps the default sizes at 2^24
  std::vector<std::string> algorithms;  // memcpy, cub, thrust, and the strategies
  bool algorithms_given = false;        // chained past 2^26, split and quicksort past 2^24 run only when named
  int repeat = 20;
  bool repeat_given = false;            // the CPU runs 5 unless told
  std::string json;
  bool compare_defaults = false;        // also time built-in defaults where the tuning file differs
  bool cpu = false;
  progress_mode progress = progress_mode::automatic;
};

struct tune_options {
  std::vector<std::string> types;       // int32, uint64, vec4i
  std::vector<std::string> algorithms;  // tuning::algorithm names: the scan strategies, segmented_scan, select calls
  std::vector<int> log2_sizes;          // one measurement size per size range
  int repeat = 30;
  double budget_s = 300;
  std::string output;                   // empty: the default tuning file path
  bool dry_run = false;
  bool list = false;
  progress_mode progress = progress_mode::automatic;
};

struct verify_options {
  bool cpu = false;
  std::uint64_t seed = 0;  // 0: a fresh one, printed
  progress_mode progress = progress_mode::automatic;
};

enum class subcommand { help, version, bench, tune, verify };

struct command {
  subcommand kind = subcommand::bench;
  std::string help_topic;  // for help: "", "bench", "tune" or "verify"
  bench_options bench;
  tune_options tune;
  verify_options verify;
};

// Lists accepted by the options, in default order.
const std::vector<std::string>& bench_types();
const std::vector<std::string>& bench_inputs();  // cold, warm
const std::vector<std::string>& bench_primitives();
const std::vector<std::string>& bench_algorithms();
const std::vector<std::string>& scan_bench_algorithms();  // those of the scan bench
// A scan bench measurement run only when --algorithms names it.
inline constexpr const char* opt_in_transform_input = "transform_input";
const std::vector<std::string>& sort_key_types();
const std::vector<std::string>& sort_distributions();
const std::vector<std::string>& spmv_matrices();
const std::vector<std::string>& tune_types();
const std::vector<std::string>& tune_algorithms();

// Whether the bench runs algorithm a (named in --algorithms, or by default).
bool wants(const bench_options& o, const std::string& a);

// Parses argv[1..argc); throws usage_error.
command parse_command_line(int argc, const char* const* argv);

// The help text of a subcommand ("" for the overview).
std::string help_text(const std::string& topic);

// "16..30:2", "20,24,28", "2^20", "16..20" -> exponents (0..40). Throws usage_error naming `flag`.
std::vector<int> parse_log2_sizes(const std::string& flag, const std::string& text);

}  // namespace streamscan_tool
