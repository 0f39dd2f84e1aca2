// `streamscan tune`: times every compiled-in candidate shape of each
// algorithm (tuning/choose.hpp) on this GPU, re-times each winner against the
// built-in default (tune_rule.hpp) and writes those that beat it to the
// tuning file (streamscan/tuning.hpp), which the library's dispatch reads at
// run time.
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

#include "gpu_buffers.cuh"
#include "tool.hpp"
#include "tune_rule.hpp"

namespace streamscan_tool {
namespace {

namespace st = streamscan::tuning;

// Inputs the non-scan algorithms need beside the values: a byte flag per
// value (select_flagged, split) and head bits (segmented_scan: segments of 64
// values on average), both derived from the position by a hash.
__device__ inline std::uint32_t tune_hash(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}
__global__ void tune_side_inputs(unsigned char* flags, std::uint32_t* heads, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    flags[i] = tune_hash(i) % 2;
    if (i % 32 == 0) {
      std::uint32_t w = 0;
      for (int b = 0; b < 32; ++b) w |= (tune_hash(~(i + b)) % 64 == 0 ? 1u : 0u) << b;
      heads[i / 32] = w;
    }
  }
}

// Keeps about half of any value: the low bit of its first byte.
struct keep_half {
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return (reinterpret_cast<const unsigned char*>(&x)[0] & 1) != 0;
  }
};

// A size range's end as tune prints it: "0", "2^20" or "max".
std::string size_label(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::max()) return "max";
  int e = 0;
  while ((std::int64_t{1} << e) < v) ++e;
  return v == 0 ? "0" : "2^" + std::to_string(e);
}

struct tuner {
  tuner(const tune_options& opt, std::string gpu_name, int compute) : o(opt), gpu(std::move(gpu_name)), cc(compute) {}
  const tune_options& o;
  std::string gpu;
  int cc = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool out_of_time = false;
  std::vector<st::entry> found;     // the winners kept: what the file gets
  std::vector<st::entry> measured;  // every key measured, kept or not: its old entries go
  std::vector<std::string> lines;   // what was kept or dropped and why, one line per entry
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

  // One call of algorithm `a` with the named policy into rotation slot r,
  // writing the selected count (select calls) to *count.
  template <class T, class Op>
  static streamscan::status call(st::algorithm a, const char* policy, void* temp, std::size_t& bytes,
                                 const rotating_buffers<T>& buf, int r, std::int64_t n, Op op,
                                 const unsigned char* flags, const std::uint32_t* heads, std::int64_t* count) {
    namespace sc = streamscan::cuda;
    switch (a) {
      case st::algorithm::decoupled_lookback:
      case st::algorithm::chained:
      case st::algorithm::reduce_then_scan:
      case st::algorithm::scan_then_add: {
        const streamscan::scan_strategy s = a == st::algorithm::chained            ? streamscan::scan_strategy::chained
                                            : a == st::algorithm::reduce_then_scan ? streamscan::scan_strategy::reduce_then_scan
                                            : a == st::algorithm::scan_then_add    ? streamscan::scan_strategy::scan_then_add
                                                                                   : streamscan::scan_strategy::decoupled_lookback;
        return sc::inclusive_scan(temp, bytes, buf.in(r), buf.out(r), n, op, nullptr, {s, policy});
      }
      case st::algorithm::segmented_scan:
        return sc::segmented_inclusive_scan(temp, bytes, buf.in(r), buf.out(r), n, streamscan::head_bits(heads), op,
                                            nullptr, streamscan::segmented_options{{}, {{}, policy}});
      case st::algorithm::select_if:
        return sc::select_if(temp, bytes, buf.in(r), buf.out(r), n, n, count, keep_half{}, nullptr, {{}, policy});
      case st::algorithm::select_flagged:
        return sc::select_flagged(temp, bytes, buf.in(r), flags, buf.out(r), n, n, count, nullptr, {{}, policy});
      case st::algorithm::partition:
        return sc::partition(temp, bytes, buf.in(r), buf.out(r), n, count, keep_half{}, nullptr, {{}, policy});
      case st::algorithm::split:
        return sc::split(temp, bytes, buf.in(r), flags, buf.out(r), n, count, nullptr, {{}, policy});
    }
    return streamscan::status::ok();
  }

  template <class T, class Op>
  void tune_type(const char* type, Op op, progress& bar) {
    constexpr bool builtin = std::is_same_v<Op, streamscan::plus>;
    for (const std::string& aname : o.algorithms) {
      st::algorithm a{};
      st::algorithm_from_string(aname.c_str(), a);
      const st::candidate_list list = st::candidates_for(a, sizeof(T));
      const bool selects = !st::has_operator(a);
      for (std::size_t i = 0; i < o.log2_sizes.size(); ++i) {
        bar.step(std::string(type) + " " + aname + " 2^" + std::to_string(o.log2_sizes[i]));
        // The select calls take no operator: one entry per value size, from the builtin pass.
        if (list.count == 0 || out_of_time || (selects && !builtin)) continue;
        if (elapsed_s() > o.budget_s) {
          out_of_time = true;
          continue;
        }
        const std::int64_t n = std::int64_t{1} << o.log2_sizes[i];
        const int d = st::default_for(a, sizeof(T), n, cc);
        rotating_buffers<T> buf(n);
        device_array<unsigned char> flags(n);
        device_array<std::uint32_t> heads(n / 32 + 1);
        device_array<std::int64_t> count(1);
        tune_side_inputs<<<1024, 256>>>(flags.p, heads.p, n);
        cuda_check(cudaGetLastError(), "tune_side_inputs");
        auto read_count = [&] {
          std::int64_t k = n;
          if (selects) cuda_check(cudaMemcpy(&k, count.p, sizeof k, cudaMemcpyDeviceToHost), "reading the count");
          return k;
        };
        std::vector<std::string> names(list.count);
        std::vector<void*> temps(list.count, nullptr);
        std::vector<std::size_t> temp_bytes(list.count, 0);
        for (int c = 0; c < list.count; ++c) {
          names[c] = st::candidate_name(a, sizeof(T), c);
          streamscan::throw_if_error(call(a, names[c].c_str(), nullptr, temp_bytes[c], buf, 0, n, op, flags.p,
                                          heads.p, count.p));
          cuda_check(cudaMalloc(&temps[c], temp_bytes[c]), "cudaMalloc");
        }
        auto runner = [&](int c) {
          return [&, c](int r) {
            streamscan::throw_if_error(call(a, names[c].c_str(), temps[c], temp_bytes[c], buf, r, n, op, flags.p,
                                            heads.p, count.p));
          };
        };
        // The reference: the built-in default's output (every default is
        // checked against a host oracle by the test suite).
        runner(d)(0);
        cuda_check(cudaMemcpy(buf.reference(), buf.out(0), buf.bytes(), cudaMemcpyDeviceToDevice), "reference");
        const std::int64_t reference_count = read_count();
        std::vector<double> ms(list.count, -1);
        for (int c = 0; c < list.count; ++c) {
          ms[c] = median_ms(o.repeat, runner(c));
          buf.poison();
          runner(c)(0);
          const std::int64_t k = read_count();
          if (k != reference_count || !device_equal(buf.out(0), buf.reference(), k)) {
            // never pick a candidate that computed a wrong result
            std::fprintf(stderr, "streamscan tune: %s %s policy %s gave a WRONG result at n = 2^%d; excluded\n",
                         type, aname.c_str(), names[c].c_str(), o.log2_sizes[i]);
            ms[c] = -1;
            ++wrong;
          }
        }
        int best = d;
        for (int c = 0; c < list.count; ++c)
          if (ms[c] > 0 && (ms[best] <= 0 || ms[c] < ms[best])) best = c;
        const auto [lo, hi] = range(i);
        st::entry e{gpu, cc, a, static_cast<int>(sizeof(T)), selects ? st::no_operator : st::op_class<T, Op>(),
                    lo, hi, names[best], ms[d], ms[best]};
        measured.push_back(e);
        std::string line = std::string(type) + " 2^" + std::to_string(o.log2_sizes[i]) + " " + aname + " [" +
                           size_label(lo) + ", " + size_label(hi) + "): ";
        if (ms[d] <= 0) {
          line += "the default " + names[d] + " computed a wrong result; nothing kept";
        } else if (best == d) {
          line += "the default " + names[d] + " was the fastest of " + std::to_string(list.count) +
                  " candidates; nothing to write";
        } else {
          // Re-time the winner against the default, interleaved in rounds, so
          // that a lucky median or a drifting clock does not replace it.
          const auto [default_rounds, winner_rounds] = interleaved_rounds_ms(2 * o.repeat, runner(d), runner(best));
          const keep_decision k = decide_keep(default_rounds, winner_rounds, min_gain(n));
          line += describe(k, names[best]) + " (over the default " + names[d] + ")";
          e.default_ms = k.default_ms;
          e.tuned_ms = k.winner_ms;
          if (k.keep) found.push_back(e);
        }
        lines.push_back(line);
        for (void* t : temps) cudaFree(t);
      }
    }
  }
};

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
  std::printf("streamscan tune on %s (sm_%d), budget %.0f s, median of %d per candidate; each winner re-timed "
              "against the built-in default in %d interleaved rounds\n",
              prop.name, t.cc, o.budget_s, o.repeat, 2 * o.repeat);
  {
    progress bar(o.progress, static_cast<int>(o.types.size() * o.algorithms.size() * o.log2_sizes.size()));
    for (const auto& type : o.types) {
      if (!visit_tune_type(type, [&](auto tag, const char* name, auto op) {
            t.tune_type<typename decltype(tag)::type>(name, op, bar);
          }))
        throw std::invalid_argument("unknown value type '" + type + "'");
    }
  }
  for (const std::string& line : t.lines) std::printf("%s\n", line.c_str());
  std::printf("kept %zu of %zu entries: a winner is kept only when faster than the default by more than the "
              "noise of its re-timing and at least %.0f%% (%.0f%% below 2^20)\n",
              t.found.size(), t.measured.size(), 100 * min_gain(std::int64_t{1} << 20),
              100 * min_gain(0));
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
  // Keep what the existing file holds for other GPUs and keys, if it can be
  // trusted; a key measured now loses its old entries even where nothing was
  // kept (the default won).
  st::table merged;
  const st::load_result old = st::load(path);
  if (old.state == st::load_result::ignored)
    std::printf("replacing the existing tuning file, which could not be used: %s\n", old.message.c_str());
  if (old.state == st::load_result::loaded)
    for (const auto& e : old.contents.entries) {
      bool replaced = false;
      for (const auto& f : t.measured) replaced = replaced || st::detail::same_key(e, f);
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
