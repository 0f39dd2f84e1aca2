// The scan bench of one value type at one size (`streamscan bench`, scan):
// memcpy, CUB, Thrust and every strategy, in one process on the same buffers.
// Included by the translation units that instantiate it (gpu_bench.cu,
// gpu_bench_more_types.cu), so that the value types compile in parallel.
#pragma once

#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/tuning.hpp>

#include "fill.hpp"
#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool::scan_bench {

// How many measurements one (type, size) makes, for the progress count.
inline int measurements(const bench_options& o) {
  int count = 0;
  for (const auto& a : scan_bench_algorithms()) count += wants(o, a) ? 1 : 0;
  return count + (wants(o, opt_in_transform_input) ? 2 : 0);
}

// x -> x: a transform_iterator that reads the same values as the raw input.
struct pass_through {
  template <class T>
  __host__ __device__ T operator()(const T& x) const {
    return x;
  }
};

// A raw pointer behind an iterator the vectorised kernels do not read: what a
// transform_iterator costs on the general kernel.
template <class T>
struct opaque_pointer : streamscan::detail::computed_iterator<opaque_pointer<T>, T> {
  const T* p;
  __host__ __device__ explicit opaque_pointer(const T* q) : p(q) {}
  __host__ __device__ T operator[](std::ptrdiff_t i) const { return p[i]; }
  __host__ __device__ T operator*() const { return *p; }
  __host__ __device__ opaque_pointer at(std::ptrdiff_t d) const { return opaque_pointer(p + d); }
  __host__ __device__ static std::ptrdiff_t distance(const opaque_pointer& a, const opaque_pointer& b) {
    return a.p - b.p;
  }
};

// One value type at one size: every scan strategy and the baselines. warm:
// the same buffers call after call (rows named TYPE/warm); else rotated.
template <class T, class Op>
void bench_one(const bench_options& o, const char* type_name, int log2n, bool warm, Op op, bench_report& rep,
               progress& bar) {
  const std::int64_t n = std::int64_t{1} << log2n;
  const std::string type_label = warm ? std::string(type_name) + "/warm" : std::string(type_name);
  const char* type = type_label.c_str();
  constexpr bool builtin = std::is_same_v<Op, streamscan::plus>;
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::size_t need = rotating_buffers<T>::footprint(n) + (std::size_t{512} << 20);
  if (need > free_b) {
    rep.skipped.push_back(std::string(type) + " 2^" + std::to_string(log2n) + ": needs " +
                          std::to_string(need >> 30) + " GiB, " + std::to_string(free_b >> 30) + " GiB free");
    for (int i = 0; i < measurements(o); ++i) bar.step(std::string(type) + " 2^" + std::to_string(log2n) + " skipped");
    return;
  }
  rotating_buffers<T> buf(n, !warm);
  const double bytes = 2.0 * static_cast<double>(buf.bytes());
  const std::string where = std::string(type) + " 2^" + std::to_string(log2n) + " ";
  auto add = [&](const std::string& algorithm, const std::string& policy, const timing& ms, bool ok) {
    rep.rows.push_back({type, log2n, n, algorithm, policy, ms, bytes, ok, 0, 0});
  };

  if (wants(o, "memcpy")) {
    bar.step(where + "memcpy");
    add("memcpy", "-", median_ms(o.repeat, [&](int r) {
          cuda_check(cudaMemcpyAsync(buf.out(r), buf.in(r), buf.bytes(), cudaMemcpyDeviceToDevice), "memcpy");
        }), true);
  }

  // CUB: InclusiveSum for the builtin sum (its fastest path), InclusiveScan
  // with the user operator otherwise. Its output is the reference.
  std::size_t cub_bytes = 0;
  auto cub_call = [&](void* t, const T* i, T* out) {
    if constexpr (builtin) return cub::DeviceScan::InclusiveSum(t, cub_bytes, i, out, n);
    else return cub::DeviceScan::InclusiveScan(t, cub_bytes, i, out, op, n);
  };
  cuda_check(cub_call(nullptr, buf.in(0), buf.reference()), "cub query");
  void* cub_temp = nullptr;
  cuda_check(cudaMalloc(&cub_temp, cub_bytes), "cudaMalloc");
  cuda_check(cub_call(cub_temp, buf.in(0), buf.reference()), "cub reference");
  if (wants(o, "cub")) {
    bar.step(where + "cub");
    const timing ms = median_ms(o.repeat, [&](int r) { cuda_check(cub_call(cub_temp, buf.in(r), buf.out(r)), "cub"); });
    add(builtin ? "cub::InclusiveSum" : "cub::InclusiveScan", "-", ms, true);
  }
  cudaFree(cub_temp);

  if (wants(o, "thrust")) {
    bar.step(where + "thrust");
    const timing ms = median_ms(o.repeat, [&](int r) {
      thrust::inclusive_scan(thrust::device, buf.in(r), buf.in(r) + n, buf.out(r), op);
    });
    buf.poison();
    thrust::inclusive_scan(thrust::device, buf.in(0), buf.in(0) + n, buf.out(0), op);
    add("thrust::inclusive_scan", "-", ms, buf.matches_reference());
  }

  // One strategy at one policy ("": its default or tuned one).
  auto bench_strategy = [&](streamscan::scan_strategy strategy, const std::string& policy) {
    const std::string name = streamscan::to_string(strategy);
    bar.step(where + name);
    const streamscan::scan_options opt{strategy, policy.empty() ? nullptr : policy.c_str()};
    streamscan::cuda::scan_plan plan;
    streamscan::throw_if_error(streamscan::cuda::describe_scan<T>(n, opt, plan, op));
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, temp_bytes, buf.in(0), buf.out(0), n, op,
                                                                nullptr, opt));
    void* temp = nullptr;
    cuda_check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    auto run_with = [&](streamscan::scan_options how) {
      return [&, how](int r) {
        streamscan::throw_if_error(
            streamscan::cuda::inclusive_scan(temp, temp_bytes, buf.in(r), buf.out(r), n, op, nullptr, how));
      };
    };
    streamscan::cuda::scan_plan default_plan;  // the built-in default for this n on this GPU
    streamscan::throw_if_error(streamscan::cuda::describe_scan<T>(n, {strategy, "default"}, default_plan, op));
    const std::string& default_policy = default_plan.policy;
    // --compare-defaults: a row at its chosen policy says which tuning-file
    // entry applies, and where it differs from the default, times both.
    const bool asked = o.compare_defaults && policy.empty();
    const bool tuned = plan.source == "tuning file";
    const bool compare = asked && tuned && plan.policy != default_policy;
    const streamscan::scan_options defaults{strategy, "default"};
    timing ms, default_ms;
    if (compare) std::tie(ms, default_ms) = interleaved_median_ms(o.repeat, run_with(opt), run_with(defaults));
    else ms = median_ms(o.repeat, run_with(opt));
    buf.poison();
    run_with(opt)(0);
    const bool is_default = policy.empty() || policy == default_policy;
    // automatic: the strategy it resolved to as well.
    const std::string shown =
        strategy == streamscan::scan_strategy::automatic ? to_string(plan.strategy) + std::string(" ") + plan.policy
                                                         : plan.policy;
    add(name, shown + (policy.empty() ? " (" + plan.source + ")" : is_default ? " (default)" : ""), ms,
        buf.matches_reference());
    if (asked) rep.rows.back().tuning_entry = tuned ? plan.policy : "no entry";
    if (compare) {
      rep.rows.back().vs_default = default_ms.median_ms / ms.median_ms;
      buf.poison();
      run_with(defaults)(0);
      add(name + " (defaults)", default_policy + " (default)", default_ms, buf.matches_reference());
    }
    cudaFree(temp);
  };
  for (const auto strategy : {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
                              streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback,
                              streamscan::scan_strategy::automatic}) {
    const std::string name = streamscan::to_string(strategy);
    if (!wants(o, name)) continue;
    // chained runs every candidate (seed 000's ablation: 2D matrix scan,
    // StreamScan's coalesced and strided 3D scans, with and without register
    // pieces); the others their default (or tuned) policy.
    std::vector<std::string> policies{""};
    if (strategy == streamscan::scan_strategy::chained) {
      policies.clear();
      namespace st = streamscan::tuning;
      const int count = st::candidates_for(st::algorithm::chained, sizeof(T)).count;
      for (int i = 0; i < count; ++i) {
        // The 2D matrix scan hands off every small tile: too slow to time
        // past 2^26.
        if (i < st::matrix_shape_count && log2n > 26) continue;
        policies.push_back(st::candidate_name(st::algorithm::chained, sizeof(T), i));
      }
    }
    for (const std::string& policy : policies) bench_strategy(strategy, policy);
  }
  // The default strategy on a transform_iterator over the input (`input(r)`).
  auto bench_input = [&](const std::string& name, auto input) {
    bar.step(where + name);
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, temp_bytes, input(0), buf.out(0), n, op));
    void* temp = nullptr;
    cuda_check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    auto run = [&](int r) {
      streamscan::throw_if_error(streamscan::cuda::inclusive_scan(temp, temp_bytes, input(r), buf.out(r), n, op));
    };
    const timing ms = median_ms(o.repeat, run);
    buf.poison();
    run(0);
    add(name, "-", ms, buf.matches_reference());
    cudaFree(temp);
  };
  if (wants(o, opt_in_transform_input)) {
    bench_input("transform_input (vectorised)",
                [&](int r) { return streamscan::make_transform_iterator(buf.in(r), pass_through{}); });
    bench_input("transform_input (general kernel)", [&](int r) {
      return streamscan::make_transform_iterator(opaque_pointer<T>(buf.in(r)), pass_through{});
    });
  }
  cuda_check(cudaDeviceSynchronize(), "bench");
}

}  // namespace streamscan_tool::scan_bench
