// scan_bench - device-wide inclusive scans against memcpy and CUB, in one
// process on the same buffers: int32, float and uint64 sums, and a 16-byte
// struct with a user-written operator, at 2^20 .. 2^30 elements.
//
//   scan_bench [--sizes 20,24,28,30] [--types int32,float,uint64,vec4i] [--repeat 20] [--json FILE]
//
// Timing: CUDA events, one warm-up, median of the repeats. Inputs and outputs
// rotate over enough buffers to exceed the L2 cache (>= 256 MiB in all), so
// small sizes are not measured from cache. GB/s counts the bytes a scan must
// move (read n + write n values). Every strategy's output is checked against
// CUB's (exactly for integers and the struct, to 1e-3 relative for float).
#include <cub/device/device_scan.cuh>
#include <thrust/device_ptr.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "../tools/cuda_timing.cuh"

namespace {
using streamscan_tool::cuda_check;

struct vec4i {
  std::int32_t x, y, z, w;
};
struct vec4i_plus {  // a user operator: CUB cannot recognise it as a sum
  __host__ __device__ vec4i operator()(const vec4i& a, const vec4i& b) const {
    return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
  }
};
__host__ __device__ bool operator==(const vec4i& a, const vec4i& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

struct row {
  std::string type, algorithm;
  int log2n;
  double ms, gbps, pct_memcpy, vs_cub;
  bool verified;
};

template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    const int v = static_cast<int>(h >> 56) - 128;  // small values: sums stay in range
    if constexpr (std::is_same_v<T, vec4i>) p[i] = vec4i{v, v / 2, -v, 1};
    else if constexpr (std::is_same_v<T, float>) p[i] = v / 128.0f;
    else p[i] = static_cast<T>(v & 0x7f);
  }
}

template <class T>
struct close_enough {
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, float>) return fabsf(a - b) <= 1e-3f * fmaxf(1.0f, fabsf(b));
    else return a == b;
  }
};

template <class T, class Op>
void run_type(const char* type, int log2n, int repeats, Op op, bool cub_sum, std::vector<row>& rows) {
  const std::int64_t n = std::int64_t{1} << log2n;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (3 * bytes + (std::size_t{1} << 30) > free_b) {
    std::printf("  %-6s 2^%d: skipped (needs %.1f GiB)\n", type, log2n, 3.0 * bytes / (1 << 30));
    return;
  }
  const int copies = static_cast<int>(std::min<std::size_t>(16, std::max<std::size_t>(1, (std::size_t{256} << 20) / bytes)));
  std::vector<T*> in(copies), out(copies);
  for (int c = 0; c < copies; ++c) {
    cuda_check(cudaMalloc(&in[c], bytes), "cudaMalloc");
    cuda_check(cudaMalloc(&out[c], bytes), "cudaMalloc");
    fill_kernel<<<1024, 256>>>(in[c], n, 12345 + c);
  }
  T* reference = nullptr;
  cuda_check(cudaMalloc(&reference, bytes), "cudaMalloc");
  cuda_check(cudaDeviceSynchronize(), "fill");

  auto add = [&](const std::string& algorithm, double ms, bool ok) {
    rows.push_back({type, algorithm, log2n, ms, 2.0 * bytes / (ms / 1e3) / 1e9, 0, 0, ok});
  };
  const double memcpy_ms = streamscan_tool::median_ms(repeats, [&](int r) {
    cuda_check(cudaMemcpyAsync(out[r % copies], in[r % copies], bytes, cudaMemcpyDeviceToDevice), "memcpy");
  });
  add("memcpy", memcpy_ms, true);

  // CUB: InclusiveSum where it applies (its fastest path), else InclusiveScan with our functor.
  std::size_t cub_bytes = 0;
  auto cub_call = [&](void* t, const T* i, T* o) {
    if constexpr (std::is_same_v<T, vec4i>) return cub::DeviceScan::InclusiveScan(t, cub_bytes, i, o, op, n);
    else return cub::DeviceScan::InclusiveSum(t, cub_bytes, i, o, n);
  };
  cuda_check(cub_call(nullptr, in[0], out[0]), "cub query");
  void* cub_temp = nullptr;
  cuda_check(cudaMalloc(&cub_temp, cub_bytes), "cudaMalloc");
  const double cub_ms = streamscan_tool::median_ms(repeats, [&](int r) { cuda_check(cub_call(cub_temp, in[r % copies], out[r % copies]), "cub"); });
  add(cub_sum ? "cub::InclusiveSum" : "cub::InclusiveScan", cub_ms, true);
  cuda_check(cub_call(cub_temp, in[0], reference), "cub reference");
  cudaFree(cub_temp);

  const streamscan::scan_strategy strategies[] = {
      streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
      streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  for (const auto strategy : strategies) {
    if (strategy == streamscan::scan_strategy::chained && log2n > 26) continue;  // minutes per size; see docs
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, temp_bytes, static_cast<const T*>(in[0]),
                                                                out[0], n, op, nullptr, {strategy}));
    void* temp = nullptr;
    cuda_check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    const double ms = streamscan_tool::median_ms(repeats, [&](int r) {
      streamscan::throw_if_error(streamscan::cuda::inclusive_scan(temp, temp_bytes, static_cast<const T*>(in[r % copies]),
                                                                  out[r % copies], n, op, nullptr, {strategy}));
    });
    cuda_check(cudaMemset(out[0], 0xA7, bytes), "poison");
    streamscan::throw_if_error(streamscan::cuda::inclusive_scan(temp, temp_bytes, static_cast<const T*>(in[0]), out[0],
                                                                n, op, nullptr, {strategy}));
    const bool ok = thrust::equal(thrust::device, out[0], out[0] + n, reference, close_enough<T>{});
    add(streamscan::to_string(strategy), ms, ok);
    cudaFree(temp);
  }
  for (int c = 0; c < copies; ++c) {
    cudaFree(in[c]);
    cudaFree(out[c]);
  }
  cudaFree(reference);
  for (auto& r : rows) {
    if (r.type != type || r.log2n != log2n) continue;
    r.pct_memcpy = 100.0 * memcpy_ms / r.ms;
    r.vs_cub = cub_ms / r.ms;
    std::printf("  %-6s 2^%-2d %-22s %10.4f ms %8.1f GB/s %6.1f%% of memcpy %6.2fx CUB %s\n", type, log2n,
                r.algorithm.c_str(), r.ms, r.gbps, r.pct_memcpy, r.vs_cub, r.verified ? "ok" : "WRONG");
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> types = {"int32", "float", "uint64", "vec4i"};
  std::vector<std::string> sizes = {"20", "24", "28", "30"};
  int repeats = 20;
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--types" && i + 1 < argc) types = split(argv[++i]);
    else if (a == "--sizes" && i + 1 < argc) sizes = split(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (a == "--json" && i + 1 < argc) json = argv[++i];
    else {
      std::fprintf(stderr, "usage: scan_bench [--sizes 20,24,28,30] [--types int32,float,uint64,vec4i] [--repeat R] [--json FILE]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("scan_bench on %s (%d SMs), median of %d\n", prop.name, prop.multiProcessorCount, repeats);
  std::vector<row> rows;
  try {
    for (const auto& t : types)
      for (const auto& s : sizes) {
        const int e = std::atoi(s.c_str());
        if (t == "int32") run_type<std::int32_t>("int32", e, repeats, streamscan::plus{}, true, rows);
        else if (t == "float") run_type<float>("float", e, repeats, streamscan::plus{}, true, rows);
        else if (t == "uint64") run_type<std::uint64_t>("uint64", e, repeats, streamscan::plus{}, true, rows);
        else if (t == "vec4i") run_type<vec4i>("vec4i", e, repeats, vec4i_plus{}, false, rows);
        else throw std::runtime_error("unknown type " + t);
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scan_bench: %s\n", e.what());
    return 1;
  }
  bool ok = true;
  for (const auto& r : rows) ok = ok && r.verified;
  if (!json.empty()) {
    std::FILE* f = std::fopen(json.c_str(), "w");
    if (!f) return 2;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::fprintf(f, "{\n  \"gpu\": \"%s\",\n  \"sms\": %d,\n  \"date\": \"%s\",\n  \"repeats\": %d,\n  \"results\": [\n",
                 prop.name, prop.multiProcessorCount, date, repeats);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::fprintf(f,
                   "    {\"type\": \"%s\", \"log2n\": %d, \"algorithm\": \"%s\", \"median_ms\": %.6f, \"gb_per_s\": %.1f, "
                   "\"pct_of_memcpy\": %.1f, \"speedup_vs_cub\": %.3f, \"verified\": %s}%s\n",
                   r.type.c_str(), r.log2n, r.algorithm.c_str(), r.ms, r.gbps, r.pct_memcpy, r.vs_cub,
                   r.verified ? "true" : "false", i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  return ok ? 0 : 1;
}
