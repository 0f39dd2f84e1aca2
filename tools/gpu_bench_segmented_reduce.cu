// `streamscan bench --primitives segmented_reduce` on the GPU: int32 sums of
// fixed-length segments, in one process on the same buffers. Two groups of
// rows, each with its own CUB reference:
//   offsets: ours by segment_offsets against cub::DeviceSegmentedReduce::Sum;
//   heads:   ours by head_bits and head_flags against cub::DeviceReduce::ReduceByKey
//            (keys = segment numbers, what a head description is to CUB).
// GB/s counts the bytes each call must move: 4n values in, 4m sums out, plus
// the description (8(m+1) offsets, n/8 bits, n flag bytes; CUB's keys 4n in
// and 4m out).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>

#include <cstdint>
#include <string>

#include <streamscan/cuda.cuh>

#include "gpu_bench_segments.cuh"
#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

void bench_reduce_length(const bench_options& o, int log2n, std::int64_t length, bench_report& rep, progress& bar) {
  const std::int64_t n = std::int64_t{1} << log2n;
  const std::int64_t m = (n + length - 1) / length;
  const std::string offsets_group = "int32/seg" + std::to_string(length) + "/offsets";
  const std::string heads_group = "int32/seg" + std::to_string(length) + "/heads";
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  // in, keys, memcpy's copy and our temp (n accumulators) 4n each, flags n, bits, outputs.
  if (static_cast<double>(n) * 18 + static_cast<double>(m) * 40 + (512 << 20) > static_cast<double>(free_b)) {
    rep.skipped.push_back("segmented_reduce int32/seg" + std::to_string(length) + " 2^" + std::to_string(log2n) +
                          ": not enough device memory");
    return;
  }
  device_array<std::int32_t> in(n), copy(n), keys(n), out(m), ref(m), ref_keys(m);
  device_array<std::int64_t> offsets(m + 1), runs(1), count(1);
  device_array<unsigned char> flags(n);
  device_array<std::uint32_t> bits((n + 31) / 32);
  fill_kernel<<<1024, 256>>>(in.p, n, bench_seed);
  make_segments_kernel<<<1024, 256>>>(n, length, keys.p, flags.p, bits.p, offsets.p, m);
  cuda_check(cudaDeviceSynchronize(), "make segments");
  const double values = 4.0 * n + 4.0 * m;
  auto add = [&](const std::string& group, const std::string& algorithm, double bytes, const timing& ms, bool ok) {
    rep.rows.push_back({group, log2n, n, algorithm, "-", ms, bytes, ok, 0, 0});
  };
  const std::string where = "segmented_reduce seg" + std::to_string(length) + " 2^" + std::to_string(log2n) + " ";

  bar.step(where + "memcpy");
  const timing memcpy_ms = median_ms(o.repeat, [&](int) {
    cuda_check(cudaMemcpyAsync(copy.p, in.p, 4 * n, cudaMemcpyDeviceToDevice), "memcpy");
  });
  add(offsets_group, "memcpy", 8.0 * n, memcpy_ms, true);
  add(heads_group, "memcpy", 8.0 * n, memcpy_ms, true);

  // Times a two-phase call (temp sized once) and checks its m sums against `expect`.
  auto timed = [&](const std::string& group, const std::string& name, double bytes, const std::int32_t* result,
                   const std::int32_t* expect, auto call) {
    bar.step(where + name);
    std::size_t temp_bytes = 0;
    call(nullptr, temp_bytes);
    device_array<unsigned char> temp(temp_bytes);
    const timing ms = median_ms(o.repeat, [&](int) { call(temp.p, temp_bytes); });
    if (expect != nullptr) {
      cuda_check(cudaMemset(out.p, 0xA7, 4 * m), "poison");
      call(temp.p, temp_bytes);
    }
    cuda_check(cudaDeviceSynchronize(), name.c_str());
    add(group, name, bytes, ms, expect == nullptr || device_equal(result, expect, m));
  };
  const std::int64_t* first = offsets.p;
  timed(offsets_group, "cub::DeviceSegmentedReduce::Sum", values + 8.0 * (m + 1), ref.p, nullptr,
        [&](void* t, std::size_t& b) {
          cuda_check(cub::DeviceSegmentedReduce::Sum(t, b, in.p, ref.p, m, first, first + 1), "cub segmented");
        });
  timed(offsets_group, "segmented_reduce offsets", values + 8.0 * (m + 1), out.p, ref.p,
        [&](void* t, std::size_t& b) {
          streamscan::throw_if_error(streamscan::cuda::segmented_reduce(
              t, b, static_cast<const std::int32_t*>(in.p), out.p, n, streamscan::segment_offsets{first, m}, 0));
        });
  timed(heads_group, "cub::DeviceReduce::ReduceByKey", values + 4.0 * n + 4.0 * m, ref.p, nullptr,
        [&](void* t, std::size_t& b) {
          cuda_check(cub::DeviceReduce::ReduceByKey(t, b, keys.p, ref_keys.p, in.p, ref.p, runs.p, ::cuda::std::plus<>{}, n),
                     "cub reduce by key");
        });
  timed(heads_group, "segmented_reduce head_bits", values + n / 8.0, out.p, ref.p, [&](void* t, std::size_t& b) {
    streamscan::throw_if_error(streamscan::cuda::segmented_reduce(t, b, static_cast<const std::int32_t*>(in.p), out.p,
                                                                  n, streamscan::head_bits(bits.p), 0,
                                                                  streamscan::plus{}, nullptr, count.p));
  });
  timed(heads_group, "segmented_reduce head_flags", values + 1.0 * n, out.p, ref.p, [&](void* t, std::size_t& b) {
    streamscan::throw_if_error(streamscan::cuda::segmented_reduce(t, b, static_cast<const std::int32_t*>(in.p), out.p,
                                                                  n, streamscan::head_flags(flags.p), 0,
                                                                  streamscan::plus{}, nullptr, count.p));
  });
  std::int64_t counted = 0;
  cuda_check(cudaMemcpy(&counted, count.p, sizeof counted, cudaMemcpyDeviceToHost), "num_segments");
  if (counted != m) rep.rows.back().verified = false;
}

}  // namespace

int gpu_bench_segmented_reduce(const bench_options& o, bench_report& rep) {
  return bench_every_length(o, rep, 6, bench_reduce_length);
}

}  // namespace streamscan_tool
