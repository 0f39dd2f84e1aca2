// `streamscan bench --primitives segmented` on the GPU: int32 sums over
// fixed-length segments, head bits, head bytes and int32 CSR offsets,
// forward and backward, against memcpy and CUB's InclusiveSumByKey, in one
// process on the same buffers. GB/s counts each algorithm's own bytes: ours
// 4n in + 4n out + the description (n/8 as bits, n as bytes, 4(m + 1) as
// offsets); CUB's keys add 4n.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/reverse_iterator.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <streamscan/cuda.cuh>

#include "gpu_bench_segments.cuh"
#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

void bench_length(const bench_options& o, int log2n, std::int64_t length, bench_report& rep, progress& bar) {
  const std::int64_t n = std::int64_t{1} << log2n;
  const std::string type = "int32/seg" + std::to_string(length);
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::int64_t m = (n + length - 1) / length;
  if (static_cast<double>(n) * 22 + 4.0 * (m + 1) + (512 << 20) > static_cast<double>(free_b)) {
    rep.skipped.push_back(type + " 2^" + std::to_string(log2n) + ": not enough device memory");
    return;
  }
  device_array<std::int32_t> in(n), out(n), ref(n), ref_back(n), keys(n);
  device_array<unsigned char> flags(n);
  device_array<std::uint32_t> bits((n + 31) / 32);
  device_array<std::int32_t> offsets(m + 1);
  fill_kernel<<<1024, 256>>>(in.p, n, bench_seed);
  make_segments_kernel<<<1024, 256>>>(n, length, keys.p, flags.p, bits.p, offsets.p, m);
  cuda_check(cudaDeviceSynchronize(), "make segments");
  const double values = 8.0 * n;
  auto add = [&](const std::string& algorithm, double bytes, const timing& ms, bool ok) {
    rep.rows.push_back({type, log2n, n, algorithm, "-", ms, bytes, ok, 0, 0});
  };
  const std::string where = type + " 2^" + std::to_string(log2n) + " ";

  bar.step(where + "memcpy");
  add("memcpy", values, median_ms(o.repeat, [&](int) {
        cuda_check(cudaMemcpyAsync(out.p, in.p, 4 * n, cudaMemcpyDeviceToDevice), "memcpy");
      }), true);

  // CUB by key, forward; and backward over reversed iterators (the reference of our backward scan).
  std::size_t cub_bytes = 0, cub_back_bytes = 0;
  auto rk = thrust::make_reverse_iterator(keys.p + n);
  auto rin = thrust::make_reverse_iterator(in.p + n);
  auto rref = thrust::make_reverse_iterator(ref_back.p + n);
  cuda_check(cub::DeviceScan::InclusiveSumByKey(nullptr, cub_bytes, keys.p, in.p, ref.p, n), "cub query");
  cuda_check(cub::DeviceScan::InclusiveSumByKey(nullptr, cub_back_bytes, rk, rin, rref, n), "cub query");
  device_array<unsigned char> cub_temp(cub_bytes > cub_back_bytes ? cub_bytes : cub_back_bytes);
  cuda_check(cub::DeviceScan::InclusiveSumByKey(cub_temp.p, cub_back_bytes, rk, rin, rref, n), "cub backward");
  bar.step(where + "cub");
  const timing cub_ms = median_ms(o.repeat, [&](int) {
    cuda_check(cub::DeviceScan::InclusiveSumByKey(cub_temp.p, cub_bytes, keys.p, in.p, ref.p, n), "cub");
  });
  add("cub::InclusiveSumByKey", values + 4.0 * n, cub_ms, true);

  // Plain scans over the whole input, forward and backward, for "backward
  // within 5% of forward" (issue 5): references by CUB, backward over reversed iterators.
  device_array<std::int32_t> plain_ref(n), plain_ref_back(n);
  {
    std::size_t b1 = 0, b2 = 0;
    auto rplain = thrust::make_reverse_iterator(plain_ref_back.p + n);
    cuda_check(cub::DeviceScan::InclusiveSum(nullptr, b1, in.p, plain_ref.p, n), "cub query");
    cuda_check(cub::DeviceScan::InclusiveSum(nullptr, b2, rin, rplain, n), "cub query");
    device_array<unsigned char> t(b1 > b2 ? b1 : b2);
    cuda_check(cub::DeviceScan::InclusiveSum(t.p, b1, in.p, plain_ref.p, n), "cub plain");
    cuda_check(cub::DeviceScan::InclusiveSum(t.p, b2, rin, rplain, n), "cub plain backward");
  }

  // The built-in default shape of the dedicated kernel for this n on this GPU.
  namespace st = streamscan::tuning;
  int device = 0, major = 0, minor = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  cuda_check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "compute capability");
  const std::string default_shape = st::candidate_name(
      st::algorithm::segmented_scan, sizeof(std::int32_t),
      st::default_for(st::algorithm::segmented_scan, sizeof(std::int32_t), n, major * 10 + minor));
  auto ours = [&](const char* name, auto segments, double flag_bytes, streamscan::scan_direction dir,
                  streamscan::scan_strategy strategy = streamscan::scan_strategy::automatic,
                  const char* policy = nullptr) {
    bar.step(where + name);
    const streamscan::segmented_options opt{dir, {strategy, policy}};
    constexpr bool plain = std::is_same_v<decltype(segments), streamscan::no_segments>;
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::segmented_inclusive_scan(
        nullptr, temp_bytes, static_cast<const std::int32_t*>(in.p), out.p, n, segments, streamscan::plus{}, nullptr, opt));
    device_array<unsigned char> temp(temp_bytes);
    auto run = [&](int) {
      streamscan::throw_if_error(streamscan::cuda::segmented_inclusive_scan(
          temp.p, temp_bytes, static_cast<const std::int32_t*>(in.p), out.p, n, segments, streamscan::plus{},
          nullptr, opt));
    };
    const timing ms = median_ms(o.repeat, run);
    cuda_check(cudaMemset(out.p, 0xA7, 4 * n), "poison");
    run(0);
    const bool forward = dir == streamscan::scan_direction::forward;
    const std::int32_t* expect = plain ? (forward ? plain_ref.p : plain_ref_back.p) : (forward ? ref.p : ref_back.p);
    add(name, values + flag_bytes, ms, device_equal(out.p, expect, n));
    if (policy != nullptr) rep.rows.back().policy = std::string(policy) + (policy == default_shape ? " (default)" : "");
  };
  const std::uint32_t* words = bits.p;
  const unsigned char* bytes = flags.p;
  using streamscan::scan_direction;
  constexpr auto automatic = streamscan::scan_strategy::automatic;
  // The dedicated kernel in every candidate shape.
  std::vector<std::string> shapes;
  for (const st::shape& s : st::segmented_shapes) shapes.push_back(st::name(s));
  for (const auto& shape : shapes)
    ours("segmented head_bits fwd", streamscan::head_bits(words), n / 8.0, scan_direction::forward, automatic,
         shape.c_str());
  for (const auto& shape : shapes)
    ours("segmented head_bits bwd", streamscan::head_bits(words), n / 8.0, scan_direction::backward, automatic,
         shape.c_str());
  ours("segmented head_flags fwd", streamscan::head_flags(bytes), 1.0 * n, scan_direction::forward);
  ours("segmented offsets fwd", streamscan::segment_offsets<const std::int32_t*>{offsets.p, m}, 4.0 * (m + 1),
       scan_direction::forward);
  ours("segmented bits fwd reduce_then_scan", streamscan::head_bits(words), n / 8.0, scan_direction::forward,
       streamscan::scan_strategy::reduce_then_scan);
  if (length == o.segment_lengths.front()) {  // the plain scans do not depend on the segment length
    bar.step(where + "inclusive_scan");
    std::size_t plain_bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, plain_bytes, static_cast<const std::int32_t*>(in.p),
                                                                out.p, n));
    device_array<unsigned char> plain_temp(plain_bytes);
    const timing ms = median_ms(o.repeat, [&](int) {
      streamscan::throw_if_error(streamscan::cuda::inclusive_scan(plain_temp.p, plain_bytes,
                                                                  static_cast<const std::int32_t*>(in.p), out.p, n));
    });
    add("inclusive_scan (plain, fwd)", values, ms, device_equal(out.p, plain_ref.p, n));
    ours("segmented no_segments bwd (plain)", streamscan::no_segments{}, 0.0, scan_direction::backward);
  }
  cuda_check(cudaDeviceSynchronize(), "segmented bench");
}

}  // namespace

int gpu_bench_segmented(const bench_options& o, bench_report& rep) {
  return bench_every_length(o, rep, 17, bench_length);
}

}  // namespace streamscan_tool
