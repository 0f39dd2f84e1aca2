// Experiment: compaction and partition of 8-byte values (uint64) on each
// select shape through the public calls, against CUB and memcpy in one
// process, to choose the 8-byte defaults (4-byte values: docs/performance.md).
// Every output is checked against CUB's (same order: compaction in input
// order; partition with the rejected reversed at the end, CUB's convention).
//
// The shape names are the select policies' names; a name the library
// no longer knows fails with the library's error.
//
//   scripts/gpu build select_wide && build-gpu/experiments/select_wide [log2 n]
//   (or ROUND_EXPS=select_wide scripts/gpu round)
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "../tools/cuda_timing.cuh"

using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;
using u64 = std::uint64_t;

void ok_or_throw(const streamscan::status& s, const char* what) {
  if (!s) throw std::runtime_error(std::string(what) + ": " + s.message());
}

struct below {
  u64 threshold;
  __host__ __device__ bool operator()(u64 x) const { return x % 1000 < threshold; }
};

__global__ void fill(u64* v, unsigned char* f, std::int64_t n, u64 threshold) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    u64 h = static_cast<u64>(i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    v[i] = h;
    f[i] = h % 1000 < threshold;
  }
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 27;
  const std::int64_t n = std::int64_t{1} << log2n;
  u64 *in, *out, *ref;
  unsigned char* flags;
  std::int64_t *count, *ref_count;
  cuda_check(cudaMalloc(&in, n * 8), "malloc");
  cuda_check(cudaMalloc(&out, n * 8), "malloc");
  cuda_check(cudaMalloc(&ref, n * 8), "malloc");
  cuda_check(cudaMalloc(&flags, n), "malloc");
  cuda_check(cudaMalloc(&count, 8), "malloc");
  cuda_check(cudaMalloc(&ref_count, 8), "malloc");
  const std::size_t temp_bytes = std::size_t{256} << 20;
  void* temp;
  cuda_check(cudaMalloc(&temp, temp_bytes), "malloc");
  const double memcpy_ms = median_ms(20, [&](int) { cudaMemcpyAsync(out, in, n * 8, cudaMemcpyDeviceToDevice); });
  std::printf("n 2^%d uint64: memcpy of 8n bytes %.4f ms (%.2f TB/s)\n", log2n, memcpy_ms, 16.0 * n / memcpy_ms / 1e9);
  std::vector<u64> want(n), got(n);
  // Times a call, checks its output and count against the reference's first `compare` values.
  auto check = [&](const char* name, double bytes, double cub_ms, auto call) {
    const double ms = median_ms(20, [&](int) { call(); });
    cuda_check(cudaMemset(out, 0xff, n * 8), "poison");
    call();
    std::int64_t k = -1, kr = -2;
    cuda_check(cudaMemcpy(&k, count, 8, cudaMemcpyDeviceToHost), "copy");
    cuda_check(cudaMemcpy(&kr, ref_count, 8, cudaMemcpyDeviceToHost), "copy");
    cuda_check(cudaMemcpy(got.data(), out, n * 8, cudaMemcpyDeviceToHost), "copy");
    bool ok = k == kr;
    for (std::int64_t i = 0; ok && i < n; ++i) ok = got[i] == want[i];
    std::printf("  %-34s %8.4f ms %5.1f%% of memcpy's rate, %.2fx CUB %s\n", name, ms,
                100 * memcpy_ms * bytes / (16.0 * n) / ms, cub_ms / ms, ok ? "ok" : "WRONG");
  };
  // Each named shape of one call (call(temp_bytes, options)), checked as above.
  auto each_shape = [&](const char* call_name, std::initializer_list<const char*> shapes, double bytes, double cub_ms,
                        auto call) {
    for (const char* shape : shapes) {
      char name[64];
      std::snprintf(name, sizeof name, "%s %s", call_name, shape);
      const streamscan::select_options opt{streamscan::select_strategy::stable, shape};
      check(name, bytes, cub_ms, [&] {
        std::size_t tb = temp_bytes;
        ok_or_throw(call(tb, opt), name);
      });
    }
  };
  for (u64 threshold : {50, 500, 950}) {
    fill<<<1024, 256>>>(in, flags, n, threshold);
    cuda_check(cudaDeviceSynchronize(), "fill");
    std::size_t b = temp_bytes;
    // select_if
    auto cub_if = [&] { cub::DeviceSelect::If(temp, b, in, ref, ref_count, n, below{threshold}); };
    const double cub_if_ms = median_ms(20, [&](int) { cub_if(); });
    cuda_check(cudaMemset(ref, 0xff, n * 8), "poison");
    cub_if();
    cuda_check(cudaMemcpy(want.data(), ref, n * 8, cudaMemcpyDeviceToHost), "copy");
    std::int64_t k = 0;
    cuda_check(cudaMemcpy(&k, ref_count, 8, cudaMemcpyDeviceToHost), "copy");
    std::printf("keep %d%% (%lld kept): CUB DeviceSelect::If %.4f ms\n", static_cast<int>(threshold / 10),
                static_cast<long long>(k), cub_if_ms);
    using opts = const streamscan::select_options&;
    each_shape("select_if", {"default", "t512x8", "p512x2s12r4", "o512x4s3b128", "o512x4s4b64"}, 8.0 * n + 8.0 * k,
               cub_if_ms, [&](std::size_t& tb, opts o) {
                 return streamscan::cuda::select_if(temp, tb, in, out, n, n, count, below{threshold}, nullptr, o);
               });
    // select_flagged (byte flags)
    auto cub_flagged = [&] { cub::DeviceSelect::Flagged(temp, b, in, flags, ref, ref_count, n); };
    const double cub_flagged_ms = median_ms(20, [&](int) { cub_flagged(); });
    cub_flagged();
    std::printf("  CUB DeviceSelect::Flagged %.4f ms\n", cub_flagged_ms);
    each_shape("select_flagged", {"default", "p512x2s10", "o512x4s4b64", "o512x4s3b128"}, 9.0 * n + 8.0 * k,
               cub_flagged_ms, [&](std::size_t& tb, opts o) {
                 return streamscan::cuda::select_flagged(temp, tb, in, flags, out, n, n, count, nullptr, o);
               });
    // partition (CUB's convention: the rejected reversed at the end)
    auto cub_part = [&] { cub::DevicePartition::If(temp, b, in, ref, ref_count, n, below{threshold}); };
    const double cub_part_ms = median_ms(20, [&](int) { cub_part(); });
    cub_part();
    cuda_check(cudaMemcpy(want.data(), ref, n * 8, cudaMemcpyDeviceToHost), "copy");
    std::printf("  CUB DevicePartition::If %.4f ms\n", cub_part_ms);
    each_shape("partition", {"default", "t512x8", "p512x2s12r4", "p512x2s10"}, 16.0 * n, cub_part_ms,
               [&](std::size_t& tb, opts o) {
                 return streamscan::cuda::partition(temp, tb, in, out, n, count, below{threshold}, nullptr, o);
               });
    // stable_partition: the selected, then the rejected, both in input order (host reference)
    std::vector<u64> host(n);
    cuda_check(cudaMemcpy(host.data(), in, n * 8, cudaMemcpyDeviceToHost), "copy");
    std::int64_t w = 0;
    for (u64 x : host) if (below{threshold}(x)) want[w++] = x;
    for (u64 x : host) if (!below{threshold}(x)) want[w++] = x;
    std::printf("  stable_partition (CUB has none; against DevicePartition::If)\n");
    each_shape("stable_partition", {"default", "t512x8", "p512x2s12r4"}, 16.0 * n, cub_part_ms,
               [&](std::size_t& tb, opts o) {
                 return streamscan::cuda::stable_partition(temp, tb, in, out, n, count, below{threshold}, nullptr, o);
               });
  }
  return 0;
}
