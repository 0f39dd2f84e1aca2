// cluster_chain: StreamScan's chained scan with one tile a link (the seed's
// chain, c512r8s8) against the clustered chain (one thread-block cluster a
// link, c...k<blocks>), with memcpy, CUB's InclusiveSum and our default scan
// in the same process. int32 and float sums, uint64 and a 16-byte
// non-commutative struct; outputs checked against CUB (float: against the
// default within rounding); float results of each chained shape checked
// bit-for-bit over 50 runs with other scans competing on a second stream.
// Prints median ms of 20, % of memcpy, x CUB, and ms per link (time / links,
// an upper bound on one hand-off where the chain is what bounds the scan).
//   build/experiments/cluster_chain [log2 n ...]
//   build/experiments/cluster_chain sanitize   (one small scan per clustered shape)
#include <cub/device/device_memcpy.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>
#include <streamscan/tuning/choose.hpp>

#include "../tools/cuda_timing.cuh"

namespace {

namespace st = streamscan::tuning;
const auto check = streamscan_tool::cuda_check;

struct mat2 {  // 2x2 uint32 matrices under the product: 16 bytes, not commutative
  std::uint32_t a, b, c, d;
};
struct mat2_product {
  __host__ __device__ mat2 operator()(const mat2& x, const mat2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
};

template <class T>
__global__ void fill(T* p, std::int64_t n, unsigned salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const unsigned h = static_cast<unsigned>(i) * 2654435761u ^ salt;
    if constexpr (std::is_same_v<T, float>)
      p[i] = static_cast<float>(h % 2001) / 1000.0f - 1.0f;
    else if constexpr (std::is_same_v<T, mat2>)
      p[i] = {h % 3 + 1, h % 5, (h >> 8) % 2, 1};
    else
      p[i] = static_cast<T>(h % 201) - 100;
  }
}

void ok(const streamscan::status& s) {
  if (!s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::exit(1);
  }
}

double median(int repeats, const std::function<void()>& f) {
  return streamscan_tool::median_ms(repeats, [&](int) { f(); }).median_ms;
}

template <class T, class Op>
void run(const char* type, std::int64_t n, Op op) {
  const std::size_t bytes = n * sizeof(T);
  T *in, *out, *ref, *noise_in, *noise_out;
  check(cudaMalloc(&in, bytes), "cudaMalloc");
  check(cudaMalloc(&out, bytes), "cudaMalloc");
  check(cudaMalloc(&ref, bytes), "cudaMalloc");
  check(cudaMalloc(&noise_in, bytes), "cudaMalloc");
  check(cudaMalloc(&noise_out, bytes), "cudaMalloc");
  fill<<<1024, 256>>>(in, n, 12345u);
  fill<<<1024, 256>>>(noise_in, n, 777u);
  std::size_t cub_bytes = 0;
  cub::DeviceScan::InclusiveScan(nullptr, cub_bytes, in, ref, op, n);
  void* cub_temp;
  check(cudaMalloc(&cub_temp, cub_bytes), "cudaMalloc");
  std::size_t temp_bytes = 0;
  ok(streamscan::cuda::inclusive_scan(nullptr, temp_bytes, in, out, n, op, nullptr, {streamscan::scan_strategy::chained}));
  void* temp;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  std::vector<T> want(n), got(n);
  const int repeats = 20;
  const double t_memcpy = median(repeats, [&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
  const double t_cub = median(repeats, [&] { cub::DeviceScan::InclusiveScan(cub_temp, cub_bytes, in, ref, op, n); });
  check(cudaMemcpy(want.data(), ref, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  auto line = [&](const std::string& name, double ms, std::int64_t links, const char* verdict) {
    std::printf("%-7s 2^%-2d %-20s %8.4f ms %6.1f%% of memcpy %5.2fx CUB", type, __builtin_ctzll(n), name.c_str(), ms,
                100.0 * t_memcpy / ms, t_cub / ms);
    if (links > 0) std::printf("  %6lld links %6.3f us/link", static_cast<long long>(links), 1000.0 * ms / links);
    std::printf("  %s\n", verdict);
  };
  line("memcpy", t_memcpy, 0, "");
  line("cub", t_cub, 0, "");
  auto scan = [&](const char* strategy_policy, streamscan::scan_strategy s) {
    ok(streamscan::cuda::inclusive_scan(temp, temp_bytes, in, out, n, op, nullptr, {s, strategy_policy}));
  };
  const double t_default = median(repeats, [&] { scan(nullptr, streamscan::scan_strategy::automatic); });
  check(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  const bool exact = !std::is_same_v<T, float>;
  line("default", t_default, 0, !exact || std::memcmp(got.data(), want.data(), bytes) == 0 ? "ok" : "WRONG");
  if (!exact) want = got;  // floats: the default's result, compared within rounding below
  const st::candidate_list list = st::candidates_for(st::algorithm::chained, sizeof(T));
  for (int i = st::matrix_shape_count; i < list.count; ++i) {
    const st::shape& shape = list.shapes[i];
    if (shape.kind != st::shape_kind::stream_coalesced || shape.register_pieces == 0) continue;
    const std::string name = st::name(shape);
    const double ms = median(repeats, [&] { scan(name.c_str(), streamscan::scan_strategy::chained); });
    check(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    bool right = true;
    if (exact) {
      right = std::memcmp(got.data(), want.data(), bytes) == 0;
    } else {
      for (std::int64_t k = 0; k < n && right; ++k) {
        const double w = static_cast<double>(reinterpret_cast<float*>(want.data())[k]);
        const double g = static_cast<double>(reinterpret_cast<float*>(got.data())[k]);
        right = std::abs(w - g) <= 1e-6 * static_cast<double>(k + 1) + 1e-4;  // |x| <= 1: rounding grows with k
      }
    }
    // Bit-for-bit repeatability with other work on the GPU (floats).
    int differing = 0;
    if (!exact) {
      cudaStream_t noise;
      check(cudaStreamCreateWithFlags(&noise, cudaStreamNonBlocking), "cudaStreamCreate");
      std::vector<T> again(n);
      const std::vector<T> first = got;
      for (int r = 0; r < 50; ++r) {
        for (int k = 0; k < 3; ++k)
          streamscan::cuda::inclusive_scan(noise_in, noise_out, n, op, noise,
                                           {streamscan::scan_strategy::reduce_then_scan});
        check(cudaMemset(out, 0xA7, bytes), "cudaMemset");
        scan(name.c_str(), streamscan::scan_strategy::chained);
        check(cudaDeviceSynchronize(), "sync");
        check(cudaMemcpy(again.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
        differing += std::memcmp(again.data(), first.data(), bytes) != 0;
      }
      cudaStreamDestroy(noise);
    }
    const std::int64_t tiles = (n + st::candidate_tile_items(st::algorithm::chained, sizeof(T), i) - 1) /
                               st::candidate_tile_items(st::algorithm::chained, sizeof(T), i);
    const std::int64_t links = shape.cluster > 0 ? (tiles + shape.cluster - 1) / shape.cluster : tiles;
    const char* kernel = streamscan::cuda::testing::last_launched_kernel().load();
    char verdict[160];
    std::snprintf(verdict, sizeof verdict, "%s%s [%s]", right ? "ok" : "WRONG",
                  exact ? "" : differing == 0 ? ", 50 runs bit-identical" : ", RUNS DIFFER", kernel ? kernel : "?");
    line(name, ms, links, verdict);
  }
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(ref),
                  static_cast<void*>(noise_in), static_cast<void*>(noise_out), cub_temp, temp})
    cudaFree(p);
}

}  // namespace

// One clustered scan per clustered shape over one whole cluster and a
// partial one (blocks past the input), int32, checked against CUB: small
// enough to run under compute-sanitizer's racecheck.
int sanitize() {
  const st::candidate_list list = st::candidates_for(st::algorithm::chained, sizeof(int));
  int wrong = 0;
  for (int i = 0; i < list.count; ++i) {
    if (list.shapes[i].cluster == 0) continue;
    const std::string name = st::name(list.shapes[i]);
    const std::int64_t tile = st::candidate_tile_items(st::algorithm::chained, sizeof(int), i);
    const std::int64_t n = (list.shapes[i].cluster + 1) * tile + tile / 2 + 3;
    int *in, *out, *ref;
    check(cudaMalloc(&in, n * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&ref, n * sizeof(int)), "cudaMalloc");
    fill<<<256, 256>>>(in, n, 99u);
    std::size_t cub_bytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n);
    void* cub_temp;
    check(cudaMalloc(&cub_temp, cub_bytes), "cudaMalloc");
    cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, ref, n);
    streamscan::cuda::inclusive_scan(static_cast<const int*>(in), out, n, streamscan::plus{}, nullptr,
                                     {streamscan::scan_strategy::chained, name.c_str()});
    std::vector<int> a(n), b(n);
    check(cudaMemcpy(a.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(b.data(), ref, n * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const bool same = a == b;
    wrong += !same;
    const char* kernel = streamscan::cuda::testing::last_launched_kernel().load();
    std::printf("%s n=%lld %s [%s]\n", name.c_str(), static_cast<long long>(n), same ? "ok" : "WRONG",
                kernel ? kernel : "?");
    for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(ref), cub_temp}) cudaFree(p);
  }
  return wrong == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "sanitize") == 0) return sanitize();
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {20, 24, 28};
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (const int s : sizes) {
    const std::int64_t n = std::int64_t{1} << s;
    run<std::int32_t>("int32", n, streamscan::plus{});
    run<float>("float", n, streamscan::plus{});
    run<std::uint64_t>("uint64", n, streamscan::plus{});
    if (s <= 26) run<mat2>("mat2", n, mat2_product{});
  }
  return 0;
}
