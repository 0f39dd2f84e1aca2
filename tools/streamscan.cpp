// streamscan - scans a default input on the GPU if there is one, otherwise
// with the CPU back end, and says what it did and how fast.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
               "usage: streamscan [--n N] [--repeat R] [--cpu]\n"
               "  Inclusive scan (sum) of N random int32 values with every strategy, timed\n"
               "  (median of R runs) and checked against a sequential host scan.\n"
               "  --n N       elements (default 2^26 on a GPU, 2^24 on the CPU); accepts 2^K\n"
               "  --repeat R  timed runs per strategy (default 20 on a GPU, 5 on the CPU)\n"
               "  --cpu       use the CPU back end even when a GPU is present\n");
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
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--cpu") {
      force_cpu = true;
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
      for (const auto strategy : {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add}) {
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
  std::printf("%-28s %12s %14s %12s %10s\n", "algorithm", "median ms", "Gelements/s", "GB/s", "verified");
  bool all_ok = true;
  for (const auto& r : results) {
    const double s = r.median_ms / 1e3;
    std::printf("%-28s %12.4f %14.2f %12.1f %10s\n", r.what.c_str(), r.median_ms, n / s / 1e9, bytes / s / 1e9,
                r.verified ? "yes" : "NO");
    all_ok = all_ok && r.verified;
  }
  std::printf("GB/s counts the %g bytes a scan must move (read n + write n); median of %d runs.\n", bytes,
              repeats);
  return all_ok ? 0 : 1;
}
