#include "cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <streamscan/tuning/choose.hpp>

namespace streamscan_tool {

const std::vector<std::string>& bench_types() {
  static const std::vector<std::string> v = {"int32", "float", "uint64", "vec4i", "double",
                                             "int64", "int32_user", "int32_user_exact", "mat2u"};
  return v;
}
const std::vector<std::string>& bench_inputs() {
  static const std::vector<std::string> v = {"cold", "warm"};
  return v;
}
const std::vector<std::string>& bench_primitives() {
  static const std::vector<std::string> v = {"scan", "segmented", "select", "segmented_reduce", "sort", "spmv", "tridiagonal"};
  return v;
}
const std::vector<std::string>& scan_bench_algorithms() {
  static const std::vector<std::string> v = {"memcpy",        "cub",     "thrust",             "reduce_then_scan",
                                             "scan_then_add", "chained", "decoupled_lookback", "automatic"};
  return v;
}
const std::vector<std::string>& bench_algorithms() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> names = scan_bench_algorithms();
    names.push_back(opt_in_transform_input);
    for (const char* sort : {"onesweep", "double_buffer", "split", "quicksort"}) names.push_back(sort);
    for (const char* spmv : {"cusparse", "prepared", "row_groups", "merge_path", "nonzero_split", "segmented_scan"})
      names.push_back(spmv);
    for (const char* tri : {"thomas_pcr", "hybrid", "cyclic_reduction", "parallel_cyclic_reduction", "partitioned",
                            "thomas", "warp_pcr"})
      names.push_back(tri);
    return names;
  }();
  return v;
}
const std::vector<std::string>& sort_key_types() {
  static const std::vector<std::string> v = {"uint32", "uint64", "float", "pairs"};
  return v;
}
const std::vector<std::string>& sort_distributions() {
  static const std::vector<std::string> v = {"uniform", "and2", "and3", "and4", "sorted"};
  return v;
}
const std::vector<std::string>& spmv_matrices() {
  static const std::vector<std::string> v = {"uniform16", "powerlaw", "short", "poisson2d", "poisson3d", "rmat"};
  return v;
}
const std::vector<std::string>& tune_types() {
  static const std::vector<std::string> v = {"int32", "uint64", "vec4i"};
  return v;
}
const std::vector<std::string>& tune_algorithms() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> names;
    for (const streamscan::tuning::algorithm a : streamscan::tuning::all_algorithms)
      names.push_back(streamscan::tuning::to_string(a));
    return names;
  }();
  return v;
}

bool wants(const bench_options& o, const std::string& a) {
  return std::find(o.algorithms.begin(), o.algorithms.end(), a) != o.algorithms.end();
}

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

long long parse_integer(const std::string& flag, const std::string& text, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || v < lo || v > hi)
    throw usage_error(flag + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                      ", got '" + text + "'");
  return v;
}

std::vector<std::string> parse_list(const std::string& flag, const std::string& text,
                                    const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item == "all") {
      for (const auto& a : allowed)
        if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), item) == allowed.end())
      throw usage_error(flag + ": unknown value '" + item + "' (choose from " + joined(allowed) + ", or all)");
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  }
  if (out.empty()) throw usage_error(flag + " expects a comma-separated list (" + joined(allowed) + ")");
  return out;
}

progress_mode parse_progress(const std::string& text) {
  if (text == "auto") return progress_mode::automatic;
  if (text == "on") return progress_mode::on;
  if (text == "off") return progress_mode::off;
  throw usage_error("--progress expects auto, on or off, got '" + text + "'");
}

// Walks the arguments of one subcommand: `value()` takes the next one.
// `--flag=value` is the same as `--flag value`.
struct cursor {
  int argc;
  const char* const* argv;
  int i;
  std::string flag;
  std::string inline_value;  // after '=' in the current argument
  bool has_inline = false;

  // Reads argument i: the flag, and its value when written with '='. A
  // value after '=' that the flag did not take is an error.
  void take(int at) {
    finish();
    i = at;
    flag = argv[i];
    has_inline = false;
    const std::size_t eq = flag.find('=');
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_inline = true;
    }
  }
  void finish() {
    if (has_inline) throw usage_error(flag + " takes no value (got '" + flag + "=" + inline_value + "')");
  }
  std::string value() {
    if (has_inline) {
      has_inline = false;
      return inline_value;
    }
    if (i + 1 >= argc) throw usage_error(flag + " needs a value");
    return argv[++i];
  }
};

}  // namespace

std::vector<int> parse_log2_sizes(const std::string& flag, const std::string& text) {
  auto exponent = [&](std::string t) {
    if (t.rfind("2^", 0) == 0) t = t.substr(2);
    return static_cast<int>(parse_integer(flag, t, 0, 40));
  };
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const std::size_t dots = item.find("..");
    if (dots == std::string::npos) {
      out.push_back(exponent(item));
      continue;
    }
    std::string rest = item.substr(dots + 2);
    int step = 1;
    if (const std::size_t colon = rest.find(':'); colon != std::string::npos) {
      step = static_cast<int>(parse_integer(flag, rest.substr(colon + 1), 1, 40));
      rest = rest.substr(0, colon);
    }
    const int lo = exponent(item.substr(0, dots)), hi = exponent(rest);
    if (hi < lo) throw usage_error(flag + ": range '" + item + "' runs backwards");
    for (int e = lo; e <= hi; e += step) out.push_back(e);
  }
  if (out.empty()) throw usage_error(flag + " expects sizes as exponents of 2, e.g. 16..30:2 or 20,24,28");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

command parse_command_line(int argc, const char* const* argv) {
  command c;
  int i = 1;
  std::string sub = "bench";
  const bool named = i < argc && argv[i][0] != '-';
  if (named) sub = argv[i++];
  if (sub == "help") {
    c.kind = subcommand::help;
    if (i < argc) c.help_topic = argv[i++];
    if (!c.help_topic.empty() && c.help_topic != "bench" && c.help_topic != "tune" && c.help_topic != "verify")
      throw usage_error("help: unknown subcommand '" + c.help_topic + "' (bench, tune, verify)");
    if (i < argc) throw usage_error(std::string("help: unexpected argument '") + argv[i] + "'");
    return c;
  }
  if (sub != "bench" && sub != "tune" && sub != "verify")
    throw usage_error("unknown subcommand '" + sub + "' (bench, tune, verify, help)");
  c.kind = sub == "tune" ? subcommand::tune : sub == "verify" ? subcommand::verify : subcommand::bench;
  c.bench.primitives = {"scan"};
  c.bench.segment_lengths = {4, 64, 1024, 1 << 20};
  c.bench.keep_fractions = {0.05, 0.5, 0.95};
  c.bench.key_types = sort_key_types();
  c.bench.distributions = sort_distributions();
  c.bench.matrices = spmv_matrices();
  c.bench.types = {"int32", "float", "uint64", "vec4i"};
  c.bench.inputs = {"cold"};
  c.bench.log2_sizes = parse_log2_sizes("--sizes", "16..30:2");
  c.bench.algorithms = bench_algorithms();
  c.bench.algorithms.erase(std::find(c.bench.algorithms.begin(), c.bench.algorithms.end(), opt_in_transform_input));
  c.tune.types = tune_types();
  c.tune.algorithms = tune_algorithms();
  c.tune.log2_sizes = {18, 22, 26};

  cursor k{argc, argv, i, {}, {}, false};
  for (int at = i; at < argc; at = k.i + 1) {
    k.take(at);
    const std::string& a = k.flag;
    if (a == "--help" || a == "-h") {
      c.help_topic = named ? sub : "";
      c.kind = subcommand::help;
      return c;
    }
    if (a == "--version") {
      c.kind = subcommand::version;
      return c;
    }
    if (a == "--progress") {
      const progress_mode p = parse_progress(k.value());
      c.bench.progress = c.tune.progress = c.verify.progress = p;
    } else if (c.kind == subcommand::bench && a == "--primitives") {
      c.bench.primitives = parse_list(a, k.value(), bench_primitives());
    } else if (c.kind == subcommand::bench && a == "--segment-lengths") {
      c.bench.segment_lengths.clear();
      std::stringstream ss(k.value());
      for (std::string item; std::getline(ss, item, ',');)
        c.bench.segment_lengths.push_back(parse_integer(a, item, 1, 1LL << 40));
      if (c.bench.segment_lengths.empty()) throw usage_error("--segment-lengths expects a list such as 4,64,1024");
    } else if (c.kind == subcommand::bench && a == "--keep-fractions") {
      c.bench.keep_fractions.clear();
      std::stringstream ss(k.value());
      for (std::string item; std::getline(ss, item, ',');) {
        char* end = nullptr;
        const double f = std::strtod(item.c_str(), &end);
        if (item.empty() || end != item.c_str() + item.size() || !(f >= 0 && f <= 1))
          throw usage_error("--keep-fractions: '" + item + "' is not a fraction in [0, 1]");
        c.bench.keep_fractions.push_back(f);
      }
      if (c.bench.keep_fractions.empty()) throw usage_error("--keep-fractions expects a list such as 0.05,0.5,0.95");
    } else if (c.kind == subcommand::bench && a == "--key-types") {
      c.bench.key_types = parse_list(a, k.value(), sort_key_types());
    } else if (c.kind == subcommand::bench && a == "--distributions") {
      c.bench.distributions = parse_list(a, k.value(), sort_distributions());
    } else if (c.kind == subcommand::bench && a == "--matrices") {
      c.bench.matrices = parse_list(a, k.value(), spmv_matrices());
    } else if (c.kind == subcommand::bench && a == "--seed-table") {
      c.bench.seed_table = true;
    } else if (c.kind == subcommand::bench && a == "--types") {
      c.bench.types = parse_list(a, k.value(), bench_types());
    } else if (c.kind == subcommand::bench && a == "--inputs") {
      c.bench.inputs = parse_list(a, k.value(), bench_inputs());
    } else if (c.kind == subcommand::bench && a == "--sizes") {
      c.bench.log2_sizes = parse_log2_sizes(a, k.value());
      c.bench.sizes_given = true;
    } else if (c.kind == subcommand::bench && a == "--algorithms") {
      c.bench.algorithms = parse_list(a, k.value(), bench_algorithms());
      c.bench.algorithms_given = true;
    } else if (c.kind == subcommand::bench && a == "--repeat") {
      c.bench.repeat = static_cast<int>(parse_integer(a, k.value(), 1, 100000));
      c.bench.repeat_given = true;
    } else if (c.kind == subcommand::bench && a == "--compare-defaults") {
      c.bench.compare_defaults = true;
    } else if (c.kind == subcommand::bench && a == "--json") {
      c.bench.json = k.value();
    } else if (c.kind != subcommand::tune && a == "--cpu") {
      c.bench.cpu = c.verify.cpu = true;
    } else if (c.kind == subcommand::tune && a == "--types") {
      c.tune.types = parse_list(a, k.value(), tune_types());
    } else if (c.kind == subcommand::tune && (a == "--algorithms" || a == "--strategies")) {
      c.tune.algorithms = parse_list(a, k.value(), tune_algorithms());
    } else if (c.kind == subcommand::tune && a == "--sizes") {
      c.tune.log2_sizes = parse_log2_sizes(a, k.value());
    } else if (c.kind == subcommand::tune && a == "--repeat") {
      c.tune.repeat = static_cast<int>(parse_integer(a, k.value(), 1, 100000));
    } else if (c.kind == subcommand::tune && a == "--budget") {
      c.tune.budget_s = static_cast<double>(parse_integer(a, k.value(), 1, 86400));
    } else if (c.kind == subcommand::tune && a == "--output") {
      c.tune.output = k.value();
      if (c.tune.output.empty()) throw usage_error("--output expects a file path");
    } else if (c.kind == subcommand::tune && a == "--dry-run") {
      c.tune.dry_run = true;
    } else if (c.kind == subcommand::tune && a == "--list") {
      c.tune.list = true;
    } else if (c.kind == subcommand::verify && a == "--seed") {
      c.verify.seed = static_cast<std::uint64_t>(parse_integer(a, k.value(), 1, 0x7fffffffffffffffLL));
    } else {
      throw usage_error(sub + ": unknown argument '" + a + "' (see streamscan " + sub + " --help)");
    }
  }
  k.finish();
  const auto& p = c.bench.primitives;
  if (c.bench.seed_table && std::find(p.begin(), p.end(), "sort") == p.end())
    throw usage_error("--seed-table is part of the sort bench: add --primitives sort");
  return c;
}

std::string help_text(const std::string& topic) {
  if (topic == "bench")
    return "usage: streamscan [bench] [options]\n"
           "  Times each scan strategy of streamscan and the baselines (memcpy device to device, CUB,\n"
           "  Thrust) in one process on the same buffers, and prints time, elements/s, GB/s of the bytes\n"
           "  a scan must move (read n + write n values), % of memcpy's rate and speedup over CUB, with\n"
           "  the policy each strategy ran with. Timing: CUDA events, one warm-up, median of the repeats;\n"
           "  inputs rotate over >= 256 MiB of buffers so that no size is timed from L2. Each output is\n"
           "  compared with CUB's. Without a GPU (or with --cpu) it times the CPU back end against\n"
           "  std::inclusive_scan and says so.\n"
           "options:\n"
           "  --primitives LIST  scan (default), segmented (int32 sums over fixed-length segments: head\n"
           "                     bits and bytes, forward and backward, against CUB InclusiveSumByKey)\n"
           "                     select (int32 compaction, partition, split: ours, seed 002's kernels,\n"
           "                     CUB DeviceSelect::If / DevicePartition::If, thrust::copy_if; 2^24, 2^28)\n"
           "                     segmented_reduce (int32 sums of fixed-length segments: offsets against\n"
           "                     CUB DeviceSegmentedReduce::Sum, head bits and bytes against ReduceByKey)\n"
           "                     sort (radix_sort_keys/_pairs by strategy and quicksort against CUB\n"
           "                     DeviceRadixSort::SortKeys/SortPairs with 32- and 64-bit num_items\n"
           "                     and thrust::sort; outputs must equal CUB's bit for bit; each run\n"
           "                     after an L2 flush; the notes under the table say what GB/s counts)\n"
           "                     spmv (y = A x, float and double, on six generated CSR matrices:\n"
           "                     the default, row_groups, merge_path and segmented_scan against\n"
           "                     cusparseSpMV CSR_ALG1/ALG2;\n"
           "                     outputs checked against a double host product)\n"
           "                     tridiagonal (batches of systems, float and double, strided and\n"
           "                     interleaved, 512x512, 4096x1024, 16x2^20 and a sweep of sizes: every\n"
           "                     strategy against cuSPARSE gtsv2StridedBatch / gtsvInterleavedBatch;\n"
           "                     outputs checked by their residual)\n"
           "  --segment-lengths L  segmented, segmented_reduce: segment lengths (default 4,64,1024,1048576)\n"
           "  --keep-fractions F select: fractions selected (default 0.05,0.5,0.95)\n"
           "  --key-types LIST   sort: uint32,uint64,float,pairs (uint32 keys with uint32 values); default all\n"
           "  --distributions L  sort: uniform, and2,and3,and4 (each key the AND of 2..4 uniform words:\n"
           "                     25.96, 17.39, 10.79 bits of entropy in 32 bits; 51.92, 34.79, 21.59 in\n"
           "                     64), sorted (uniform keys already in order); default all\n"
           "  --matrices LIST    spmv: uniform16,powerlaw,short,poisson2d,poisson3d,rmat; default all\n"
           "  --seed-table       sort: also reproduce the sort table of 'Scan Primitives for GPU Computing'\n"
           "                     (seed 003): 2^22 (its 4M) and 2^28 uniform uint32 keys, global split radix,\n"
           "                     quicksort, onesweep, CUB and the host's std::sort (one run), whatever\n"
           "                     --sizes says; printed as a table of its own after the main one\n"
           "  --types LIST       int32,float,uint64,vec4i (16-byte struct, user operator; the default\n"
           "                     four), double, int64, int32_user (int32 summed by a user-written\n"
           "                     a + b functor), int32_user_exact (the same functor declared exactly\n"
           "                     associative: streamscan::is_exactly_associative), mat2u (2x2 uint32\n"
           "                     matrix product: 16 bytes, non-commutative); all: every one\n"
           "  --inputs LIST      scan on the GPU: cold (default: inputs and outputs rotate over >= 256\n"
           "                     MiB, no size timed from L2), warm (the same buffers call after call,\n"
           "                     as a loop over one array; rows named TYPE/warm)\n"
           "  --sizes SIZES      exponents of 2: 16..30:2 (default; up to 2^24 on the CPU), 20,24,28, 2^26;\n"
           "                     sizes that do not fit in device memory are skipped and reported\n"
           "  --algorithms LIST  scan: memcpy,cub,thrust,reduce_then_scan,scan_then_add,chained,\n"
           "                     decoupled_lookback,automatic (chained: every shape; its 2D matrix\n"
           "                     shapes only up to 2^26; automatic: what a call that names no\n"
           "                     strategy runs); sort: memcpy,cub,thrust,onesweep,double_buffer,split,\n"
           "                     quicksort (split and quicksort only up to 2^24 unless named here);\n"
           "                     spmv: memcpy,cusparse,automatic,prepared (the default after\n"
           "                     spmv_prepare),row_groups,merge_path,nonzero_split,segmented_scan;\n"
           "                     tridiagonal: memcpy,cusparse,automatic,thomas_pcr,hybrid,cyclic_reduction,\n"
           "                     parallel_cyclic_reduction,partitioned,thomas,warp_pcr (n <= 64);\n"
           "                     default all but transform_input (scan, named only: the default\n"
           "                     strategy reading a transform_iterator over the input, in its\n"
           "                     vectorised kernel and, for comparison, in the general one)\n"
           "  --repeat R         timed runs per measurement (default 20; 5 on the CPU)\n"
           "  --json FILE        also write the results as JSON (scripts/plot-bench draws them)\n"
           "  --compare-defaults scan: a 'vs default' column names each strategy row's tuning-file entry\n"
           "                     ('no entry' where none applies); where the entry picks another policy\n"
           "                     than the built-in default, times both, interleaved, shows the default's\n"
           "                     time / the tuned one's there and the default as 'STRATEGY (defaults)'\n"
           "  --cpu              benchmark the CPU back end even when a GPU is present\n"
           "  --progress MODE    auto (on when stderr is a terminal), on, off\n"
           "environment: STREAMSCAN_TUNING_FILE (see streamscan tune --help)\n";
  if (topic == "tune")
    return "usage: streamscan tune [options]\n"
           "  Searches the compiled-in policies of each algorithm on this GPU (threads per block, loads in\n"
           "  flight per thread, pipeline stages, block scan algorithm, partitions per SM; `--list` shows\n"
           "  them) for each value size, operator class and size range: the scan strategies, the\n"
           "  segmented scan and the select calls. It never loses to the built-in default: each\n"
           "  winner is re-timed against the default in the same process, interleaved, and written\n"
           "  to the tuning file (which the library reads at run time, streamscan/tuning.hpp) only\n"
           "  when the median over the rounds of its time / the default's is below 1 by more than\n"
           "  the noise (those ratios' standard deviation in % of their mean) and by at least 2% (5%\n"
           "  below 2^20 values). Prints one line per entry: what was kept or dropped, and why.\n"
           "options:\n"
           "  --types LIST       int32 (4-byte, builtin op; float shares its entry), uint64 (8-byte),\n"
           "                     vec4i (16-byte, user op); default all\n"
           "  --algorithms LIST  decoupled_lookback,chained,reduce_then_scan,scan_then_add,segmented_scan,\n"
           "                     select_if,select_flagged,partition,split; default all (--strategies: the same)\n"
           "  --sizes SIZES      one measurement size per range, exponents of 2 (default 18,22,26: ranges\n"
           "                     [0,2^20), [2^20,2^24), [2^24,...) split halfway between them)\n"
           "  --repeat R         timed runs per candidate (default 30); a winner is re-timed in 2 x R\n"
           "                     rounds, interleaved with the default\n"
           "  --budget SECONDS   stop searching after this long, keep what was found (default 300)\n"
           "  --output FILE      where to write (default: $STREAMSCAN_TUNING_FILE, else\n"
           "                     $XDG_CACHE_HOME/streamscan/tuning-v2.txt, else\n"
           "                     ~/.cache/streamscan/tuning-v2.txt); entries of other GPUs are kept\n"
           "  --dry-run          measure, re-time and print, write nothing\n"
           "  --list             print the candidate policies and exit\n"
           "  --progress MODE    auto, on, off\n";
  if (topic == "verify")
    return "usage: streamscan verify [options]\n"
           "  Checks every primitive of the library against a sequential host oracle on this machine's\n"
           "  GPU (or the CPU back end without one), outputs poisoned first, at sizes 0, 1, tile-1, tile,\n"
           "  tile+1, a few tiles and a random large size:\n"
           "    scans (inclusive, with init, exclusive) with every strategy and compiled-in policy: int32,\n"
           "      uint64 and float sums (to a rounding bound) and a non-commutative 2x2 matrix product;\n"
           "    segmented and backward scans, enumerate, distribute (head flags, head bits, offsets) and\n"
           "      segmented_reduce, per scan strategy;\n"
           "    select_if and select_flagged per compaction strategy, partition, stable_partition, split,\n"
           "      split_and_segment;\n"
           "    radix_sort_keys (uint32, float, uint64) and radix_sort_pairs per sort strategy, both\n"
           "      orders; quicksort per pivot rule; spmv per strategy (float/int32, double/int64); coo_to_csr\n"
           "      checked and not;\n"
           "      tridiagonal_solve per strategy (float, double; strided and interleaved).\n"
           "  Prints pass/fail per primitive and strategy. Exit 0 when all pass.\n"
           "options:\n"
           "  --seed S           random seed (default: a fresh one, printed)\n"
           "  --cpu              check the CPU back end even when a GPU is present\n"
           "  --progress MODE    auto, on, off\n";
  return "usage: streamscan [SUBCOMMAND] [options]\n"
         "  Scan-based GPU primitives: is streamscan right on this GPU, and faster than what you use?\n"
         "subcommands:\n"
         "  bench    (default) time every scan strategy against memcpy, CUB and Thrust\n"
         "  tune     search the policies on this GPU and write the tuning file the library reads\n"
         "  verify   check every primitive against a host oracle on this GPU\n"
         "  help [SUBCOMMAND]   this text, or a subcommand's\n"
         "options: --help (also after a subcommand), --version; every '--flag VALUE' may be written\n"
         "  '--flag=VALUE'\n"
         "exit status: 0 success; 1 a check failed or a run-time error; 2 bad arguments\n";
}

}  // namespace streamscan_tool
