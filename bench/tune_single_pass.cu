// tune_single_pass - an experiment, not a product: times the vectorised
// decoupled look-back kernel under several (threads, loads in flight) policies
// at one size, on the same buffers, against memcpy. Used to pick the defaults
// in cuda/dispatch/scan_policy.cuh; `streamscan tune` (issue 4) will grow
// from it.
//
//   tune_single_pass [--log2n 28] [--repeat 20]
#include <cub/device/device_scan.cuh>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <streamscan/cuda.cuh>

#include "../tools/cuda_timing.cuh"

namespace {
using streamscan_tool::cuda_check;
namespace sd = streamscan::cuda::detail;

struct vec4i {
  std::int32_t x, y, z, w;
};
struct vec4i_plus {
  __host__ __device__ vec4i operator()(const vec4i& a, const vec4i& b) const {
    return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
  }
};
__host__ __device__ bool operator==(const vec4i& a, const vec4i& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

template <class A, int Threads, int Vectors, unsigned SleepNs = 1024>
struct policy {
  static constexpr int threads = Threads;
  static constexpr int vectors = Vectors;
  static constexpr int vector_width = static_cast<int>(16 / sizeof(A));
  static constexpr int tile_items = threads * vectors * vector_width;
  static constexpr unsigned look_back_sleep_ns = SleepNs;
};

template <class A, class P, class Op>
void measure(const char* type, const A* in, A* out, const A* reference, std::int64_t n, void* temp, double memcpy_ms,
             int repeats, Op op) {
  const std::int64_t tiles = (n + P::tile_items - 1) / P::tile_items;
  unsigned char* bytes = static_cast<unsigned char*>(temp);
  const std::size_t reset = 256 + sd::tile_status<A>::bytes(tiles);
  auto run = [&](int) {
    cuda_check(cudaMemsetAsync(bytes, 0, reset), "memset");
    sd::single_pass_vector_scan_kernel<P, sd::look_back_kind::decoupled, A, Op><<<tiles, P::threads>>>(
        in, out, n, sd::tile_status<A>(bytes + 256, tiles), reinterpret_cast<unsigned long long*>(bytes),
        sd::maybe<A>{A{}, false}, sd::scan_mode::inclusive, op);
    cuda_check(cudaGetLastError(), "launch");
  };
  const double ms = streamscan_tool::median_ms(repeats, run);
  const bool ok = thrust::equal(thrust::device, out, out + n, reference);
  int blocks_per_sm = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &blocks_per_sm, sd::single_pass_vector_scan_kernel<P, sd::look_back_kind::decoupled, A, Op>, P::threads, 0),
             "occupancy");
  std::printf("  %-6s threads %4d  loads/thread %2d  sleep cap %4u ns  tile %6d  blocks/SM %2d  %8.4f ms  %5.1f%% of memcpy  %s\n",
              type, P::threads, P::vectors, P::look_back_sleep_ns, P::tile_items, blocks_per_sm, ms,
              100.0 * memcpy_ms / ms, ok ? "ok" : "WRONG");
}

template <class A, class Op>
void sweep(const char* type, int log2n, int repeats, Op op) {
  const std::int64_t n = std::int64_t{1} << log2n;
  const std::size_t bytes = n * sizeof(A);
  A *in, *out, *reference;
  cuda_check(cudaMalloc(&in, bytes), "malloc");
  cuda_check(cudaMalloc(&out, bytes), "malloc");
  cuda_check(cudaMalloc(&reference, bytes), "malloc");
  cuda_check(cudaMemset(in, 1, bytes), "memset");  // bytes 0x01: small values, sums stay exact
  std::size_t cub_bytes = 0;
  cuda_check(cub::DeviceScan::InclusiveScan(nullptr, cub_bytes, in, reference, op, n), "cub");
  void* cub_temp;
  cuda_check(cudaMalloc(&cub_temp, cub_bytes), "malloc");
  cuda_check(cub::DeviceScan::InclusiveScan(cub_temp, cub_bytes, in, reference, op, n), "cub");
  void* temp;
  cuda_check(cudaMalloc(&temp, 256 + sd::tile_status<A>::bytes(n / 32 + 1)), "malloc");
  const double memcpy_ms = streamscan_tool::median_ms(
      repeats, [&](int) { cuda_check(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice), "memcpy"); });
  std::printf("%s 2^%d: memcpy %.4f ms\n", type, log2n, memcpy_ms);
  // Block shape x loads in flight, then the look-back's polling backoff cap.
  // One- and two-warp blocks: a tile per warp, no warp idles at a barrier
  // while another looks back.
  measure<A, policy<A, 32, 8>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 32, 16>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 64, 8>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 64, 16>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 128, 8>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 128, 16>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 256, 8>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 256, 12>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  measure<A, policy<A, 256, 16>>(type, in, out, reference, n, temp, memcpy_ms, repeats, op);
  cudaFree(in);
  cudaFree(out);
  cudaFree(reference);
  cudaFree(cub_temp);
  cudaFree(temp);
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28, repeats = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--log2n") log2n = std::atoi(argv[i + 1]);
    else if (a == "--repeat") repeats = std::atoi(argv[i + 1]);
  }
  try {
    sweep<std::int32_t>("int32", log2n, repeats, streamscan::plus{});
    sweep<std::uint64_t>("uint64", log2n, repeats, streamscan::plus{});
    sweep<vec4i>("vec4i", log2n - 2, repeats, vec4i_plus{});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tune_single_pass: %s\n", e.what());
    return 1;
  }
}
