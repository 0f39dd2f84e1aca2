// streamscan - the command: bench (the main job), tune, verify.
// `streamscan --help` says what each does; tools/cli.cpp parses the arguments.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <streamscan/config.hpp>

#include "cli.hpp"
#include "report.hpp"
#include "tool.hpp"

namespace {
using namespace streamscan_tool;

std::string command_line(int argc, char** argv) {
  std::string s = "streamscan";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

// Whether --json's file can be written, asked before minutes of measuring
// rather than after (the file is created empty, then filled at the end).
bool json_writable(const std::string& path, std::string& why) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    why = std::strerror(errno);
    return false;
  }
  std::fclose(f);
  return true;
}

int bench(const command& c, const std::string& line) {
  if (std::string why; !c.bench.json.empty() && !json_writable(c.bench.json, why)) {
    std::fprintf(stderr, "streamscan: --json %s cannot be written (%s); nothing was measured\n",
                 c.bench.json.c_str(), why.c_str());
    return 2;
  }
  const gpu_probe gpu = c.bench.cpu ? gpu_probe{} : probe_gpu();
  bench_report rep;
  rep.command = line;
  int rc = 0;
  if (gpu.present) {
    rep.backend = "cuda";
    rep.device = gpu.name;
    std::printf("streamscan %s bench: cuda back end on %s\n", STREAMSCAN_VERSION_STRING, gpu.name.c_str());
    for (const auto& p : c.bench.primitives) {
      const int r = p == "segmented" ? gpu_bench_segmented(c.bench, rep)
                    : p == "select"  ? gpu_bench_select(c.bench, rep)
                    : p == "segmented_reduce" ? gpu_bench_segmented_reduce(c.bench, rep)
                    : p == "sort"    ? gpu_bench_sort(c.bench, rep)
                    : p == "spmv"    ? gpu_bench_spmv(c.bench, rep)
                    : p == "tridiagonal" ? gpu_bench_tridiagonal(c.bench, rep)
                                     : gpu_bench(c.bench, rep);
      rc = rc != 0 ? rc : r;
    }
  } else {
    rep.backend = "cpu";
    rep.device = "host CPU, " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
    rep.note = c.bench.cpu ? "--cpu given" : gpu.why_not + "; benchmarking the CPU back end instead";
    std::printf("streamscan %s bench: cpu back end (%s); %s\n", STREAMSCAN_VERSION_STRING, rep.device.c_str(),
                rep.note.c_str());
    std::printf("  baselines: std::memcpy and std::inclusive_scan (sequential); chained and decoupled_lookback\n"
                "  are GPU algorithms and run as reduce_then_scan here\n");
    if (c.bench.primitives != std::vector<std::string>{"scan"})
      std::printf("  (the CPU bench covers the plain scan only)\n");
    rc = cpu_bench(c.bench, rep);
  }
  finish_ratios(rep);
  print_table(stdout, rep);
  if (!c.bench.json.empty()) {
    write_json(c.bench.json, rep);
    std::printf("wrote %s\n", c.bench.json.c_str());
  }
  if (rc != 0) std::printf("bench: some outputs were WRONG (verified = WRONG)\n");
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  command c;
  try {
    c = parse_command_line(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "streamscan: %s\n", e.what());
    std::fprintf(stderr, "run 'streamscan --help' for usage\n");
    return 2;
  }
  try {
    switch (c.kind) {
      case subcommand::help: std::fputs(help_text(c.help_topic).c_str(), stdout); return 0;
      case subcommand::version: std::printf("streamscan %s\n", STREAMSCAN_VERSION_STRING); return 0;
      case subcommand::bench: return bench(c, command_line(argc, argv));
      case subcommand::tune: {
        if (c.tune.list) {
          list_candidates();
          return 0;
        }
        const gpu_probe gpu = probe_gpu();
        if (!gpu.present) {
          std::fprintf(stderr,
                       "streamscan tune: %s. Only the GPU back end has tunable policies; nothing was\n"
                       "measured or written. `streamscan tune --list` shows the candidates.\n",
                       gpu.why_not.c_str());
          return 1;  // a tune that measured nothing is not a success
        }
        return gpu_tune(c.tune);
      }
      case subcommand::verify: {
        if (c.verify.seed == 0) c.verify.seed = (std::uint64_t{std::random_device{}()} << 20) ^ std::random_device{}();
        const gpu_probe gpu = c.verify.cpu ? gpu_probe{} : probe_gpu();
        if (gpu.present) {
          std::printf("streamscan %s verify on %s\n", STREAMSCAN_VERSION_STRING, gpu.name.c_str());
          return gpu_verify(c.verify);
        }
        std::printf("streamscan %s verify: %s; checking the CPU back end\n", STREAMSCAN_VERSION_STRING,
                    c.verify.cpu ? "--cpu given" : gpu.why_not.c_str());
        return cpu_verify(c.verify);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamscan: %s\n", e.what());
    return 1;
  }
  return 0;
}
