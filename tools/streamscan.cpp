// streamscan - scans a default input on the GPU if there is one, otherwise
// with the CPU back end, and says what it did and how fast.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <streamscan/config.hpp>
#include <streamscan/cpu.hpp>

#include "tool.hpp"

namespace {

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: streamscan [--n N] [--repeat R] [--cpu] [--json FILE]\n"
               "  Inclusive scan (sum) of N random int32 values with every strategy, timed\n"
               "  (median of R runs) and checked against a sequential host scan.\n"
               "  --n N       elements (default 2^26 on a GPU, 2^24 on the CPU); accepts 2^K\n"
               "  --repeat R  timed runs per strategy (default 20 on a GPU, 5 on the CPU)\n"
               "  --cpu       use the CPU back end even when a GPU is present\n"
               "  --json FILE also write the results as JSON\n");
}

std::int64_t parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  long long v = 0;
  if (std::strncmp(text, "2^", 2) == 0) {
    const long long e = std::strtoll(text + 2, &end, 10);
    v = (e >= 0 && e < 62) ? (1LL << e) : -1;
  } else {
    v = std::strtoll(text, &end, 10);
  }
  if (end == text || *end != '\0' || v < 0) {
    std::fprintf(stderr, "streamscan: %s expects a non-negative count, got '%s'\n", flag, text);
    std::exit(2);
  }
  return v;
}

template <class F>
double cpu_median_ms(int repeats, F f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = -1;
  int repeats = -1;
  bool force_cpu = false;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--cpu") {
      force_cpu = true;
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else if ((a == "--n" || a == "--repeat") && i + 1 < argc) {
      const std::int64_t v = parse_count(argv[i], argv[i + 1]);
      ++i;
      if (a == "--n") n = v;
      else repeats = static_cast<int>(std::max<std::int64_t>(1, v));
    } else {
      std::fprintf(stderr, "streamscan: unknown or incomplete argument '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }

  const streamscan_tool::gpu_probe gpu = force_cpu ? streamscan_tool::gpu_probe{} : streamscan_tool::probe_gpu();
  if (n < 0) n = gpu.present ? (std::int64_t{1} << 26) : (std::int64_t{1} << 24);
  if (repeats < 0) repeats = gpu.present ? 20 : 5;

  std::mt19937 rng(12345);
  std::vector<std::int32_t> input(static_cast<std::size_t>(n));
  for (auto& x : input) x = static_cast<std::int32_t>(rng() % 201) - 100;
  std::vector<std::int32_t> expected(input.size());
  std::int32_t acc = 0;
  for (std::size_t i = 0; i < input.size(); ++i) expected[i] = acc += input[i];

  std::vector<streamscan_tool::measurement> results;
  std::printf("streamscan %s: inclusive scan (plus) of %lld int32 values\n", STREAMSCAN_VERSION_STRING,
              static_cast<long long>(n));
  try {
    if (gpu.present) {
      std::printf("back end: cuda on %s\n", gpu.name.c_str());
      results = streamscan_tool::run_gpu(input, expected, repeats);
    } else {
      std::printf("back end: cpu (%u hardware threads)%s%s\n", std::thread::hardware_concurrency(),
                  force_cpu ? "" : "; no GPU: ", force_cpu ? "" : gpu.why_not.c_str());
      std::vector<std::int32_t> out(input.size());
      for (const auto strategy : {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
                                  streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback}) {
        const double ms = cpu_median_ms(repeats, [&] {
          streamscan::cpu::inclusive_scan(input.data(), out.data(), n, streamscan::plus{}, {strategy});
        });
        results.push_back({streamscan::to_string(strategy), ms, out == expected});
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamscan: %s\n", e.what());
    return 1;
  }

  // A scan must read n and write n elements: 8 bytes per int32 element.
  const double bytes = 8.0 * static_cast<double>(n);
  double memcpy_ms = 0, cub_ms = 0;
  for (const auto& r : results) {
    if (r.what.rfind("memcpy", 0) == 0) memcpy_ms = r.median_ms;
    if (r.what.rfind("cub::", 0) == 0) cub_ms = r.median_ms;
  }
  std::printf("%-30s %10s %12s %10s %9s %8s %9s\n", "algorithm", "median ms", "Gelements/s", "GB/s", "% memcpy",
              "vs CUB", "verified");
  bool all_ok = true;
  for (const auto& r : results) {
    const double s = r.median_ms / 1e3;
    char pct[32] = "-", vs[32] = "-";
    if (memcpy_ms > 0) std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * memcpy_ms / r.median_ms);
    if (cub_ms > 0) std::snprintf(vs, sizeof vs, "%.2fx", cub_ms / r.median_ms);
    std::printf("%-30s %10.4f %12.2f %10.1f %9s %8s %9s\n", r.what.c_str(), r.median_ms, n / s / 1e9,
                bytes / s / 1e9, pct, vs, r.verified ? "yes" : "NO");
    all_ok = all_ok && r.verified;
  }
  std::printf("GB/s counts the %g bytes a scan must move (read n + write n); median of %d runs.\n", bytes,
              repeats);
  if (!json_path.empty()) {
    std::FILE* f = std::fopen(json_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "streamscan: cannot write --json file '%s'\n", json_path.c_str());
      return 2;
    }
    std::fprintf(f, "{\n  \"version\": \"%s\",\n  \"backend\": \"%s\",\n  \"device\": \"%s\",\n",
                 STREAMSCAN_VERSION_STRING, gpu.present ? "cuda" : "cpu", gpu.present ? gpu.name.c_str() : "host CPU");
    char date[32] = "";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::fprintf(f, "  \"date\": \"%s\",\n", date);
    std::fprintf(f, "  \"type\": \"int32\",\n  \"operator\": \"plus\",\n  \"n\": %lld,\n  \"repeats\": %d,\n",
                 static_cast<long long>(n), repeats);
    std::fprintf(f, "  \"bytes_moved\": %.0f,\n  \"results\": [\n", bytes);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      std::fprintf(f, "    {\"algorithm\": \"%s\", \"median_ms\": %.6f, \"gb_per_s\": %.2f, \"verified\": %s}%s\n",
                   r.what.c_str(), r.median_ms, bytes / (r.median_ms / 1e3) / 1e9, r.verified ? "true" : "false",
                   i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  return all_ok ? 0 : 1;
}
