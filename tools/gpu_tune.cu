// `streamscan tune`: times every compiled-in candidate policy of each
// strategy on this GPU and writes the winners to the tuning file
// (streamscan/tuning.hpp), which the library's dispatch reads at run time.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/tuning.hpp>

#include <cub/device/device_scan.cuh>

#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

namespace sd = streamscan::detail;
namespace st = streamscan::tuning;

// A candidate replaces the default only when at least this much faster: run
// to run noise of a median is about 1% from 2^20 up; below, where a call
// takes 10-20 us on an H200, re-measurements moved by up to 5%.
constexpr double min_gain(std::int64_t n) { return n < (std::int64_t{1} << 20) ? 0.05 : 0.02; }

struct tuner {
  tuner(const tune_options& opt, std::string gpu_name, int compute) : o(opt), gpu(std::move(gpu_name)), cc(compute) {}
  const tune_options& o;
  std::string gpu;
  int cc = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool out_of_time = false;
  std::vector<st::entry> found;
  int wrong = 0;

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // [lo, hi) of the i-th measured size: split halfway (in log2) between neighbours.
  std::pair<std::int64_t, std::int64_t> range(std::size_t i) const {
    const auto& e = o.log2_sizes;
    const std::int64_t lo = i == 0 ? 0 : std::int64_t{1} << ((e[i - 1] + e[i] + 1) / 2);
    const std::int64_t hi =
        i + 1 == e.size() ? std::numeric_limits<std::int64_t>::max() : std::int64_t{1} << ((e[i] + e[i + 1] + 1) / 2);
    return {lo, hi};
  }

  template <class T, class Op>
  void tune_type(const char* type, Op op, progress& bar) {
    constexpr bool builtin = std::is_same_v<Op, streamscan::plus>;
    for (const std::string& sname : o.strategies) {
      streamscan::scan_strategy s{};
      streamscan::strategy_from_string(sname.c_str(), s);
      const sd::candidate_set set = sd::candidates_for(s, sizeof(T));
      for (std::size_t i = 0; i < o.log2_sizes.size(); ++i) {
        bar.step(std::string(type) + " " + sname + " 2^" + std::to_string(o.log2_sizes[i]));
        if (set.count == 0 || out_of_time) continue;
        if (elapsed_s() > o.budget_s) {
          out_of_time = true;
          continue;
        }
        const std::int64_t n = std::int64_t{1} << o.log2_sizes[i];
        rotating_buffers<T> buf(n);
        {  // the reference output, from CUB
          std::size_t cub_bytes = 0;
          auto cub_call = [&](void* t) {
            if constexpr (builtin) return cub::DeviceScan::InclusiveSum(t, cub_bytes, buf.in(0), buf.reference(), n);
            else return cub::DeviceScan::InclusiveScan(t, cub_bytes, buf.in(0), buf.reference(), op, n);
          };
          cuda_check(cub_call(nullptr), "cub query");
          void* t = nullptr;
          cuda_check(cudaMalloc(&t, cub_bytes), "cudaMalloc");
          cuda_check(cub_call(t), "cub reference");
          cuda_check(cudaDeviceSynchronize(), "cub reference");
          cudaFree(t);
        }
        // One scan with candidate c into rotation slot r.
        std::vector<std::string> names(set.count);
        std::vector<void*> temps(set.count, nullptr);
        std::vector<std::size_t> temp_bytes(set.count, 0);
        for (int c = 0; c < set.count; ++c) {
          names[c] = sd::candidate_name(s, sizeof(T), c);
          streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, temp_bytes[c], buf.in(0), buf.out(0), n,
                                                                      op, nullptr, {s, names[c].c_str()}));
          cuda_check(cudaMalloc(&temps[c], temp_bytes[c]), "cudaMalloc");
        }
        auto runner = [&](int c) {
          return [&, c](int r) {
            streamscan::throw_if_error(streamscan::cuda::inclusive_scan(temps[c], temp_bytes[c], buf.in(r), buf.out(r),
                                                                        n, op, nullptr, {s, names[c].c_str()}));
          };
        };
        std::vector<double> ms(set.count, -1);
        for (int c = 0; c < set.count; ++c) {
          ms[c] = median_ms(o.repeat, runner(c));
          buf.poison();
          runner(c)(0);
          if (!buf.matches_reference()) {  // never pick a candidate that computed a wrong result
            std::fprintf(stderr, "streamscan tune: %s %s policy %s gave a WRONG result at n = 2^%d; excluded\n",
                         type, sname.c_str(), names[c].c_str(), o.log2_sizes[i]);
            ms[c] = -1;
            ++wrong;
          }
        }
        const int d = set.default_index;
        int best = d;
        for (int c = 0; c < set.count; ++c)
          if (ms[c] > 0 && (ms[best] <= 0 || ms[c] < ms[best])) best = c;
        if (best != d && ms[d] > 0) {
          // Confirm against the default, interleaved, so that a lucky median
          // or a drifting clock does not replace it.
          // Twice: below 2^20 a call takes ~10-20 us and one pass can be lucky.
          for (int pass = 0; pass < 2 && best != d; ++pass) {
            const auto [md, mb] = interleaved_median_ms(o.repeat, runner(d), runner(best));
            ms[d] = md;
            ms[best] = mb;
            if (mb > (1.0 - min_gain(n)) * md) best = d;
          }
        }
        for (void* t : temps) cudaFree(t);
        if (ms[best] <= 0) continue;
        const auto [lo, hi] = range(i);
        found.push_back(st::entry{gpu, cc, s, static_cast<int>(sizeof(T)), st::op_class<T, Op>(), lo, hi,
                                  sd::candidate_name(s, sizeof(T), best), ms[d], ms[best]});
      }
    }
  }
};

std::string size_label(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::max()) return "max";
  int e = 0;
  while ((std::int64_t{1} << e) < v) ++e;
  return v == 0 ? "0" : "2^" + std::to_string(e);
}

}  // namespace

int gpu_tune(const tune_options& o) {
  if (o.list) {
    list_candidates();
    return 0;
  }
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  tuner t(o, prop.name, prop.major * 10 + prop.minor);
  const std::string path = o.output.empty() ? st::default_path() : o.output;
  std::printf("streamscan tune on %s (sm_%d), budget %.0f s, median of %d per candidate\n", prop.name, t.cc,
              o.budget_s, o.repeat);
  {
    progress bar(o.progress, static_cast<int>(o.types.size() * o.strategies.size() * o.log2_sizes.size()));
    for (const auto& type : o.types) {
      visit_bench_type(type, [&](auto tag, const char* name, auto op) {
        t.tune_type<typename decltype(tag)::type>(name, op, bar);
      });
    }
  }
  std::printf("%-20s %6s %-8s %-10s %-18s %10s %-18s %10s %7s\n", "strategy", "bytes", "op", "n from", "default",
              "ms", "tuned", "ms", "gain");
  for (const auto& e : t.found) {
    const std::string def =
        sd::candidate_name(e.strategy, e.value_bytes, sd::candidates_for(e.strategy, e.value_bytes).default_index);
    std::printf("%-20s %6d %-8s %-10s %-18s %10.4f %-18s %10.4f %6.1f%%\n", streamscan::to_string(e.strategy),
                e.value_bytes, e.op_class.c_str(), (size_label(e.min_n) + ".." + size_label(e.max_n)).c_str(),
                def.c_str(), e.default_ms, e.policy.c_str(), e.tuned_ms, 100.0 * (e.default_ms / e.tuned_ms - 1.0));
  }
  if (t.out_of_time) std::printf("budget of %.0f s spent: the remaining keys keep their defaults\n", o.budget_s);
  std::printf("searched for %.1f s\n", t.elapsed_s());
  if (t.wrong > 0) {
    std::printf("streamscan tune: %d candidate(s) computed wrong results; nothing written\n", t.wrong);
    return 1;
  }
  if (o.dry_run) {
    std::printf("--dry-run: nothing written\n");
    return 0;
  }
  if (path.empty()) {
    std::printf("no tuning file location (STREAMSCAN_TUNING_FILE=none, or neither XDG_CACHE_HOME nor HOME set); "
                "use --output FILE\n");
    return 1;
  }
  // Keep what the existing file holds for other GPUs and keys, if it can be trusted.
  st::table merged;
  const st::load_result old = st::load(path);
  if (old.state == st::load_result::ignored)
    std::printf("replacing the existing tuning file, which could not be used: %s\n", old.message.c_str());
  if (old.state == st::load_result::loaded)
    for (const auto& e : old.contents.entries) {
      bool replaced = false;
      for (const auto& f : t.found) replaced = replaced || st::detail::same_key(e, f);
      if (!replaced) merged.entries.push_back(e);
    }
  merged.entries.insert(merged.entries.end(), t.found.begin(), t.found.end());
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    st::write(f, merged);
    if (!f) throw std::runtime_error("cannot write the tuning file '" + tmp + "'");
  }
  std::filesystem::rename(tmp, p);
  std::printf("wrote %zu entries to %s (the library reads it in every new process; STREAMSCAN_TUNING_FILE=none "
              "turns it off)\n",
              merged.entries.size(), path.c_str());
  return 0;
}

}  // namespace streamscan_tool
