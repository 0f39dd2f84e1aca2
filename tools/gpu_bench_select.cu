// `streamscan bench --primitives select` on the GPU: int32 compaction,
// partition and split at selection fractions (--keep-fractions), against
// memcpy, CUB DeviceSelect::If / DevicePartition::If and thrust::copy_if, in
// one process on the same buffers (sizes past L2 only: no rotation).
//
// Bytes each must move: compaction 4n read + 4 x selected written (the
// select_flagged row adds the n flag bytes); partition and stable_partition 8n;
// split 9n (values in and out, flags). Rows of type "int32/keepF" are
// compactions (vs CUB = DeviceSelect::If), "int32/partF" partitions and
// splits (vs CUB = DevicePartition::If). seed 002's kernels appear as
// multi_level, hybrid and warp_atomic (Figure 13's comparison on this GPU).
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

constexpr std::int32_t value_range = 1 << 24;

// Uniform values in [0, 2^24): a fraction f is selected by x < f * 2^24.
__global__ void fill_uniform_kernel(std::int32_t* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = static_cast<std::uint64_t>(i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    p[i] = static_cast<std::int32_t>(h >> 40);
  }
}

struct below {
  std::int32_t threshold;
  __host__ __device__ bool operator()(std::int32_t x) const { return x < threshold; }
};
struct not_below {
  std::int32_t threshold;
  __host__ __device__ bool operator()(std::int32_t x) const { return x >= threshold; }
};

__global__ void flags_kernel(const std::int32_t* in, unsigned char* flags, std::int64_t n, below pred) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    flags[i] = pred(in[i]);
}

std::int64_t read_count(const std::int64_t* d) {
  std::int64_t h = 0;
  cuda_check(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), "read count");
  return h;
}

void bench_fraction(const bench_options& o, int log2n, double fraction, bench_report& rep, progress& bar) {
  const std::int64_t n = std::int64_t{1} << log2n;
  char label[32];
  std::snprintf(label, sizeof label, "%.2f", fraction);
  const std::string keep_type = std::string("int32/keep") + label, part_type = std::string("int32/part") + label;
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (static_cast<double>(n) * 22 + (512 << 20) > static_cast<double>(free_b)) {
    rep.skipped.push_back(keep_type + " 2^" + std::to_string(log2n) + ": not enough device memory");
    return;
  }
  device_array<std::int32_t> in(n), out(n), selected(n), rejected(n);
  device_array<unsigned char> flags(n);
  device_array<std::int64_t> count(1);
  const below pred{static_cast<std::int32_t>(fraction * value_range)};
  fill_uniform_kernel<<<1024, 256>>>(in.p, n, bench_seed);
  flags_kernel<<<1024, 256>>>(in.p, flags.p, n, pred);
  cuda_check(cudaDeviceSynchronize(), "fill");

  // References: the selected and the rejected, each in input order (CUB).
  std::size_t cub_bytes = 0, part_bytes = 0;
  cuda_check(cub::DeviceSelect::If(nullptr, cub_bytes, in.p, selected.p, count.p, n, pred), "cub query");
  cuda_check(cub::DevicePartition::If(nullptr, part_bytes, in.p, out.p, count.p, n, pred), "cub query");
  device_array<unsigned char> cub_temp(cub_bytes > part_bytes ? cub_bytes : part_bytes);
  cuda_check(cub::DeviceSelect::If(cub_temp.p, cub_bytes, in.p, rejected.p, count.p, n, not_below{pred.threshold}),
             "cub");
  cuda_check(cub::DeviceSelect::If(cub_temp.p, cub_bytes, in.p, selected.p, count.p, n, pred), "cub");
  const std::int64_t k = read_count(count.p);

  const double compact_bytes = 4.0 * n + 4.0 * k;
  auto add = [&](const std::string& type, const std::string& algorithm, double bytes, const timing& ms, bool ok) {
    rep.rows.push_back({type, log2n, n, algorithm, "-", ms, bytes, ok, 0, 0});
  };
  const std::string where = keep_type + " 2^" + std::to_string(log2n) + " ";
  auto poison = [&] { cuda_check(cudaMemset(out.p, 0xA7, 4 * n), "poison"); };
  // Checks: compaction in order; unordered (sorted copies); partition forms.
  auto ordered_ok = [&](std::int64_t got) { return got == k && device_equal(out.p, selected.p, k); };
  auto unordered_ok = [&](std::int64_t got) {
    if (got != k) return false;
    device_array<std::int32_t> a(k), b(k);
    cuda_check(cudaMemcpy(a.p, out.p, 4 * k, cudaMemcpyDeviceToDevice), "copy");
    cuda_check(cudaMemcpy(b.p, selected.p, 4 * k, cudaMemcpyDeviceToDevice), "copy");
    thrust::sort(thrust::device, a.p, a.p + k);
    thrust::sort(thrust::device, b.p, b.p + k);
    return device_equal(a.p, b.p, k);
  };

  bar.step(where + "memcpy");
  const timing memcpy_ms = median_ms(o.repeat, [&](int) {
    cuda_check(cudaMemcpyAsync(out.p, in.p, 4 * n, cudaMemcpyDeviceToDevice), "memcpy");
  });
  add(keep_type, "memcpy", 8.0 * n, memcpy_ms, true);
  add(part_type, "memcpy", 8.0 * n, memcpy_ms, true);

  // Each row: time, then check the output of the last run (in that order).
  bar.step(where + "cub select");
  poison();
  timing ms = median_ms(o.repeat, [&](int) {
    cuda_check(cub::DeviceSelect::If(cub_temp.p, cub_bytes, in.p, out.p, count.p, n, pred), "cub");
  });
  add(keep_type, "cub::DeviceSelect::If", compact_bytes, ms, ordered_ok(read_count(count.p)));

  bar.step(where + "thrust copy_if");
  poison();
  std::int64_t thrust_kept = 0;
  ms = median_ms(o.repeat, [&](int) {
    thrust_kept = thrust::copy_if(thrust::device, in.p, in.p + n, out.p, pred) - out.p;
  });
  add(keep_type, "thrust::copy_if", compact_bytes, ms, ordered_ok(thrust_kept));

  auto ours_compact = [&](std::string name, streamscan::select_strategy strategy, bool flagged,
                          const char* policy = nullptr) {
    bar.step(where + name);
    const streamscan::select_options opt{strategy, policy};
    auto call = [&](void* t, std::size_t& b) {
      return flagged ? streamscan::cuda::select_flagged(t, b, static_cast<const std::int32_t*>(in.p),
                                                        static_cast<const unsigned char*>(flags.p), out.p, n, n,
                                                        count.p, nullptr, opt)
                     : streamscan::cuda::select_if(t, b, static_cast<const std::int32_t*>(in.p), out.p, n, n,
                                                   count.p, pred, nullptr, opt);
    };
    std::size_t bytes = 0;
    streamscan::throw_if_error(call(nullptr, bytes));
    device_array<unsigned char> temp(bytes);
    auto run = [&](int) { streamscan::throw_if_error(call(temp.p, bytes)); };
    const timing run_ms = median_ms(o.repeat, run);
    poison();
    run(0);
    const std::int64_t got = read_count(count.p);
    const bool unordered =
        strategy == streamscan::select_strategy::hybrid || strategy == streamscan::select_strategy::warp_atomic;
    add(keep_type, name, compact_bytes + (flagged ? 1.0 * n : 0.0), run_ms, unordered ? unordered_ok(got) : ordered_ok(got));
    if (policy != nullptr) rep.rows.back().policy = policy;
  };
  // The stable kernel in every candidate shape; the policy column marks the
  // call's default (compaction's and partition's differ).
  namespace st = streamscan::tuning;
  int device = 0, major = 0, minor = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  cuda_check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "compute capability");
  std::vector<std::string> shapes;
  for (int i = 0; i < st::select_shape_count; ++i) shapes.push_back(st::name(st::select_shapes[i]));
  auto shape_label = [&](int i, st::algorithm a) {
    return shapes[i] + (i == st::default_for(a, sizeof(std::int32_t), n, major * 10 + minor) ? " (default)" : "");
  };
  for (int i = 0; i < st::select_shape_count; ++i) {
    ours_compact("select_if stable", streamscan::select_strategy::stable, false, shapes[i].c_str());
    rep.rows.back().policy = shape_label(i, st::algorithm::select_if);
  }
  ours_compact("select_if multi_level", streamscan::select_strategy::multi_level, false);
  ours_compact("select_if hybrid", streamscan::select_strategy::hybrid, false);
  ours_compact("select_if warp_atomic", streamscan::select_strategy::warp_atomic, false);
  // Outbox shapes run compaction only (other calls naming them run the default).
  auto compaction_only = [](int i) { return st::select_shapes[i].kind == st::shape_kind::outbox; };
  for (int i = 0; i < st::select_shape_count; ++i) {
    ours_compact("select_flagged stable", streamscan::select_strategy::stable, true, shapes[i].c_str());
    rep.rows.back().policy = shape_label(i, st::algorithm::select_flagged);
  }

  // Partitions: CUB's, ours in its order, ours stable, split.
  bar.step(where + "cub partition");
  device_array<std::int32_t> cub_part(n);
  ms = median_ms(o.repeat, [&](int) {
    cuda_check(cub::DevicePartition::If(cub_temp.p, part_bytes, in.p, cub_part.p, count.p, n, pred), "cub");
  });
  add(part_type, "cub::DevicePartition::If", 8.0 * n, ms, read_count(count.p) == k && device_equal(cub_part.p, selected.p, k));

  auto ours_part = [&](const std::string& name, double bytes, auto call, auto check) {
    bar.step(where + name);
    std::size_t tb = 0;
    streamscan::throw_if_error(call(nullptr, tb));
    device_array<unsigned char> temp(tb);
    auto run = [&](int) { streamscan::throw_if_error(call(temp.p, tb)); };
    const timing run_ms = median_ms(o.repeat, run);
    poison();
    run(0);
    add(part_type, name, bytes, run_ms, check(read_count(count.p)));
  };
  const std::int32_t* src = in.p;
  for (int i = 0; i < st::select_shape_count; ++i) {
    if (compaction_only(i)) continue;
    const std::string& shape = shapes[i];
    ours_part("partition", 8.0 * n,
              [&](void* t, std::size_t& b) {
                return streamscan::cuda::partition(t, b, src, out.p, n, count.p, pred, nullptr,
                                                   streamscan::select_options{{}, shape.c_str()});
              },
              [&](std::int64_t got) { return got == k && device_equal(out.p, cub_part.p, n); });
    rep.rows.back().policy = shape_label(i, st::algorithm::partition);
  }
  for (int i = 0; i < st::select_shape_count; ++i) {
    if (compaction_only(i)) continue;
    const std::string& shape = shapes[i];
    ours_part("stable_partition", 8.0 * n,
              [&](void* t, std::size_t& b) {
                return streamscan::cuda::stable_partition(t, b, src, out.p, n, count.p, pred, nullptr,
                                                          streamscan::select_options{{}, shape.c_str()});
              },
              [&](std::int64_t got) {
                return got == k && device_equal(out.p, selected.p, k) && device_equal(out.p + k, rejected.p, n - k);
              });
    rep.rows.back().policy = shape_label(i, st::algorithm::partition);
  }
  for (int i = 0; i < st::select_shape_count; ++i) {
    if (compaction_only(i)) continue;
    const std::string& shape = shapes[i];
    ours_part("split", 9.0 * n,
              [&](void* t, std::size_t& b) {
                return streamscan::cuda::split(t, b, src, static_cast<const unsigned char*>(flags.p), out.p, n,
                                               count.p, nullptr, streamscan::select_options{{}, shape.c_str()});
              },
              [&](std::int64_t got) {
                return got == n - k && device_equal(out.p, rejected.p, n - k) &&
                       device_equal(out.p + (n - k), selected.p, k);
              });
    rep.rows.back().policy = shape_label(i, st::algorithm::split);
  }
  cuda_check(cudaDeviceSynchronize(), "select bench");
}

}  // namespace

static int compaction_only_shapes() {
  int k = 0;
  for (const auto& shape : streamscan::tuning::select_shapes) k += shape.kind == streamscan::tuning::shape_kind::outbox ? 1 : 0;
  return k;
}

int gpu_bench_select(const bench_options& o, bench_report& rep) {
  warm_up_gpu();
  rep.repeat = o.repeat;
  const std::vector<int> sizes = o.sizes_given ? o.log2_sizes : std::vector<int>{24, 28};
  progress bar(o.progress, static_cast<int>(sizes.size() * o.keep_fractions.size()) * (7 + 5 * streamscan::tuning::select_shape_count -
                                                                                      3 * compaction_only_shapes()));
  for (const int e : sizes)
    for (const double f : o.keep_fractions) bench_fraction(o, e, f, rep, bar);
  bar.done();
  return all_verified(rep) ? 0 : 1;
}

}  // namespace streamscan_tool
