// linear_recurrence_bench: times streamscan::cuda::linear_recurrence on
// (batch, channels, T) = (8, 1536, T) against a device copy of the same bytes
// (cudaMemcpyAsync device to device), in one process on the same buffers.
//
// Bytes each pass must move, and the copy that moves as many (a copy of X
// bytes reads X and writes X):
//   forward:            read a and b, write h                 3 N values -> copy of 1.5 N
//   forward + backward: the forward's, then read dh, a and h,
//                       write grad_a and grad_b               8 N values -> copy of 4 N
// Gates a in (0, 1), b and dh in (-1, 1), no initial state. Three sequences
// of every case (first, middle, last) are checked against a double oracle on
// the host. Usage: linear_recurrence_bench [--lengths 128,2048,4096,65536]
// [--types float,bfloat16] [--layouts time_last,channels_last] [--repeats 10]
// [--batch 8] [--channels 1536]
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_linear_recurrence.cuh>

#include "cuda_timing.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(const streamscan::status& s) {
  if (!s) throw std::runtime_error(s.message());
}

__device__ float hash_unit(std::uint64_t i, std::uint64_t salt) {  // in [0, 1)
  std::uint64_t h = (i + salt) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
}

template <class T>
__global__ void fill(T* p, std::int64_t n, std::uint64_t salt, float lo, float hi) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(lo + (hi - lo) * hash_unit(static_cast<std::uint64_t>(i), salt));
}

template <class T>
double to_double(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double to_double(double v) {
  return v;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::int64_t n) { check(cudaMalloc(&p, static_cast<std::size_t>(n) * sizeof(T)), "cudaMalloc"); }
  ~device_array() { cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

// One sequence's values, downloaded.
template <class T>
std::vector<double> sequence_values(const T* d, const streamscan::recurrence_layout& l, std::int64_t s) {
  std::vector<T> host(static_cast<std::size_t>(l.length));
  const std::int64_t row = (s / l.channels) * l.batch_stride + (s % l.channels) * l.channel_stride;
  check(cudaMemcpy2D(host.data(), sizeof(T), d + row, static_cast<std::size_t>(l.time_stride) * sizeof(T), sizeof(T),
                     static_cast<std::size_t>(l.length), cudaMemcpyDeviceToHost),
        "cudaMemcpy2D");
  std::vector<double> out(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) out[i] = to_double(host[i]);
  return out;
}

// Median of `repeats` CUDA-event timings of f on `stream` (cuda_timing.cuh).
template <class F>
double median_ms(int repeats, cudaStream_t stream, F f) {
  return streamscan_tool::median_ms(repeats, [&](int) { f(); }, stream).median_ms;
}

template <class T>
void bench_case(std::int64_t batch, std::int64_t channels, std::int64_t length, bool channels_last, int repeats,
                const char* type) {
  namespace ss = streamscan;
  const ss::recurrence_layout l = channels_last ? ss::channels_last_layout(batch, length, channels)
                                                : ss::time_last_layout(batch, channels, length);
  const std::int64_t n = batch * channels * length;
  cudaStream_t stream = nullptr;
  device_array<T> a(n), b(n), h(n), dh(n), ga(n), gb(n);
  fill<<<4096, 256>>>(a.p, n, 1, 0.0f, 1.0f);
  fill<<<4096, 256>>>(b.p, n, 2, -1.0f, 1.0f);
  fill<<<4096, 256>>>(dh.p, n, 3, -1.0f, 1.0f);
  check(cudaDeviceSynchronize(), "fill");
  std::size_t fwd_bytes = 0, bwd_bytes = 0;
  check(ss::cuda::linear_recurrence<T>(nullptr, fwd_bytes, l, a.p, b.p, h.p, nullptr, stream));
  check(ss::cuda::linear_recurrence_backward<T>(nullptr, bwd_bytes, l, a.p, h.p, dh.p, nullptr, ga.p, gb.p, nullptr,
                                                stream));
  device_array<unsigned char> temp(static_cast<std::int64_t>(std::max(fwd_bytes, bwd_bytes)));
  auto forward = [&] {
    std::size_t bytes = fwd_bytes;
    check(ss::cuda::linear_recurrence<T>(temp.p, bytes, l, a.p, b.p, h.p, nullptr, stream));
  };
  auto backward = [&] {
    std::size_t bytes = bwd_bytes;
    check(ss::cuda::linear_recurrence_backward<T>(temp.p, bytes, l, a.p, h.p, dh.p, nullptr, ga.p, gb.p, nullptr,
                                                  stream));
  };
  const std::size_t value = sizeof(T);
  // Copies of 1.5 N and 4 N values: from a into h/ga/gb..., within the buffers we hold (6 N values).
  auto copy = [&](std::int64_t values) {
    // A copy of `values` values from the first half of [a b h dh ga gb]'s memory to the second, in pieces.
    T* src[3] = {a.p, b.p, h.p};
    T* dst[3] = {dh.p, ga.p, gb.p};
    std::int64_t left = values;
    for (int i = 0; i < 3 && left > 0; ++i) {
      const std::int64_t take = std::min(left, n);
      check(cudaMemcpyAsync(dst[i], src[i], static_cast<std::size_t>(take) * value, cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync");
      left -= take;
    }
  };
  const double copy_fwd = median_ms(repeats, stream, [&] { copy(n * 3 / 2); });
  const double copy_all = median_ms(repeats, stream, [&] { copy(n * 3); copy(n); });
  // The copies overwrote dh, ga, gb: refill dh.
  fill<<<4096, 256>>>(dh.p, n, 3, -1.0f, 1.0f);
  const double fwd = median_ms(repeats, stream, forward);
  const double bwd = median_ms(repeats, stream, backward);
  check(cudaDeviceSynchronize(), "bench");

  // Check three sequences against the oracle (h and the gradient).
  double worst = 0;
  for (const std::int64_t s : {std::int64_t{0}, (batch * channels) / 2, batch * channels - 1}) {
    const auto av = sequence_values(a.p, l, s), bv = sequence_values(b.p, l, s), hv = sequence_values(h.p, l, s),
               dv = sequence_values(dh.p, l, s), gav = sequence_values(ga.p, l, s), gbv = sequence_values(gb.p, l, s);
    const double eps = (sizeof(T) == 2 ? 3.9e-3 : 0) + 6e-8 * (64 + 8 * std::log2(double(length) + 1));
    double x = 0, m = 0;
    for (std::int64_t t = 0; t < length; ++t) {
      x = av[t] == 0 ? bv[t] : av[t] * x + bv[t];
      m = std::fabs(av[t]) * m + std::fabs(bv[t]);
      worst = std::max(worst, std::fabs(hv[t] - x) / (eps * m + 1e-30));
    }
    double g = 0, gm = 0;
    for (std::int64_t t = length - 1; t >= 0; --t) {
      const double an = t + 1 < length ? av[t + 1] : 0;
      g = an == 0 ? dv[t] : an * g + dv[t];
      gm = std::fabs(an) * gm + std::fabs(dv[t]);
      const double hp = t > 0 ? hv[t - 1] : 0;
      worst = std::max(worst, std::fabs(gbv[t] - g) / (eps * gm + 1e-30));
      worst = std::max(worst, std::fabs(gav[t] - g * hp) / (2 * eps * gm * std::fabs(hp) + 1e-30));
    }
  }
  std::printf("%-9s %-13s T %6lld  forward %9.4f ms  copy %9.4f ms  %5.1f%% of copy  |  fwd+bwd %9.4f ms  copy %9.4f ms  %5.1f%% of copy  |  check %s (worst %.2f of bound)\n",
              type, channels_last ? "channels_last" : "time_last", static_cast<long long>(length), fwd, copy_fwd,
              100 * copy_fwd / fwd, fwd + bwd, copy_all, 100 * copy_all / (fwd + bwd), worst <= 1 ? "ok" : "FAILED",
              worst);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> lengths = {"128", "2048", "4096", "65536"}, types = {"float", "bfloat16"},
                           layouts = {"time_last", "channels_last"};
  int repeats = 10;
  long long batch = 8, channels = 1536;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--lengths") lengths = split(v);
    else if (k == "--types") types = split(v);
    else if (k == "--layouts") layouts = split(v);
    else if (k == "--repeats") repeats = std::atoi(v.c_str());
    else if (k == "--batch") batch = std::atoll(v.c_str());
    else if (k == "--channels") channels = std::atoll(v.c_str());
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("linear_recurrence_bench on %s: (%lld, %lld, T), %d repeats, median\n", prop.name, batch, channels, repeats);
  try {
    for (const auto& layout : layouts)
      for (const auto& type : types)
        for (const auto& len : lengths) {
          const std::int64_t length = std::atoll(len.c_str());
          const bool cl = layout == "channels_last";
          if (type == "float") bench_case<float>(batch, channels, length, cl, repeats, "float");
          else if (type == "bfloat16") bench_case<__nv_bfloat16>(batch, channels, length, cl, repeats, "bfloat16");
          else if (type == "double") bench_case<double>(batch, channels, length, cl, repeats, "double");
        }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
