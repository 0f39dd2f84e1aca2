// spmv_bound: what gathering x costs by itself, the floor under any CSR SpMV
// that reads each non-zero's column (and value) and gathers x at it once, in
// the matrix's order. Three kernels over the non-zeros, with no rows: columns
// and gathers (sum of x[col]), columns, values and gathers (sum of v x[col]),
// and the same bytes read in order (x[k]: no gather). Each thread takes 4, 8
// or 16 consecutive non-zeros with vector loads (/4, /8, /16), so that as many
// gathers are in flight a thread. Against cuSPARSE CSR_ALG1 (after its
// preprocess) on the same arrays; in parentheses cuSPARSE's time over the
// kernel's. A CSR SpMV does at least what gather+values does (and reads the
// offsets and writes y besides), so the fastest gather+values variant is a
// measured floor: cuSPARSE's time over it is the most such a kernel could
// be expected to gain. Matrices: spmv_experiment's short, uniform16 and poisson3d;
// float and double. Median ms of 20.
//   build/experiments/spmv_bound
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../tools/cuda_timing.cuh"
#include "spmv_experiment.cuh"

namespace {

const auto check = streamscan_tool::cuda_check;

enum class reads { gather, gather_values, in_order };

// Thread t sums non-zeros [P t, P t + P) (P of 4, 8 or 16: that many gathers in
// flight a thread), columns and values read as 16-byte vectors; the result
// is stored only where it equals an impossible value, so that nothing but
// the reads is timed.
template <reads R, int P, class V>
__global__ void __launch_bounds__(256)
    floor_kernel(const int* columns, const V* values, const V* __restrict__ x, std::int64_t nnz, V* sink) {
  const std::int64_t first = (blockIdx.x * std::int64_t{256} + threadIdx.x) * P;
  if (first >= nnz) return;
  V sum = 0;
  if (first + P <= nnz) {
    int c[P];
    V v[P];
#pragma unroll
    for (int q = 0; q < P / 4; ++q) {
      const int4 w = reinterpret_cast<const int4*>(columns + first)[q];
      c[4 * q] = w.x, c[4 * q + 1] = w.y, c[4 * q + 2] = w.z, c[4 * q + 3] = w.w;
    }
    if constexpr (R == reads::gather) {
#pragma unroll
      for (int i = 0; i < P; ++i) v[i] = V(1);
    } else {
      constexpr int per = 16 / int(sizeof(V));
#pragma unroll
      for (int q = 0; q < P / per; ++q) {
        const uint4 w = reinterpret_cast<const uint4*>(values + first)[q];
        memcpy(&v[q * per], &w, 16);
      }
    }
    V g[P];
#pragma unroll
    for (int i = 0; i < P; ++i) g[i] = R == reads::in_order ? x[first + i + (c[i] & 0)] : x[c[i]];
#pragma unroll
    for (int i = 0; i < P; ++i) sum += v[i] * g[i];
  } else {
    for (std::int64_t k = first; k < nnz; ++k)
      sum += (R == reads::gather ? V(1) : values[k]) * (R == reads::in_order ? x[k] : x[columns[k]]);
  }
  if (sum == V(-12345.25)) sink[0] = sum;
}

template <class V>
void measure(const spmv_experiment::matrix& m) {
  using spmv_experiment::upload;
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  const spmv_experiment::problem<V> pb(m.offsets, m.columns, m.rows, 8.0);
  int* offsets = upload(m.offsets);
  int* columns = upload(m.columns);
  V* values = upload(pb.values);
  // x padded to nnz for the in-order reads.
  std::vector<V> x_long(pb.x);
  if (static_cast<std::int64_t>(x_long.size()) < nnz) x_long.resize(nnz, V(0));
  V* x = upload(x_long);
  V* y;
  check(cudaMalloc(&y, m.rows * sizeof(V)), "cudaMalloc");
  const int repeat = 20;
  const double t_cusparse =
      spmv_experiment::cusparse_alg1_ms(m.rows, m.rows, nnz, offsets, columns, values, x, y, repeat);
  std::printf("%-10s %-6s nnz %9lld  x %6.1f MB  cusparse ALG1 %.4f ms %s", m.name.c_str(),
              sizeof(V) == 4 ? "float" : "double", static_cast<long long>(nnz), m.rows * sizeof(V) / 1e6, t_cusparse,
              pb.verdict(y));
  auto time = [&](auto r, auto p, const char* name) {
    constexpr reads R = decltype(r)::value;
    constexpr int P = decltype(p)::value;
    const unsigned blocks = static_cast<unsigned>((nnz + P * 256 - 1) / (P * 256));
    const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                        floor_kernel<R, P, V><<<blocks, 256>>>(columns, values, x, nnz, y);
                      }).median_ms;
    check(cudaGetLastError(), "launch");
    std::printf(" | %s/%d %.4f (%.2f)", name, P, ms, t_cusparse / ms);
  };
  using std::integral_constant;
  auto each = [&](auto pc) {
    time(integral_constant<reads, reads::gather>{}, pc, "gather");
    time(integral_constant<reads, reads::gather_values>{}, pc, "gather+values");
    time(integral_constant<reads, reads::in_order>{}, pc, "in-order");
  };
  each(integral_constant<int, 4>{});
  each(integral_constant<int, 8>{});
  each(integral_constant<int, 16>{});
  std::printf("\n");
  for (void* p : {static_cast<void*>(offsets), static_cast<void*>(columns), static_cast<void*>(values),
                  static_cast<void*>(x), static_cast<void*>(y)})
    cudaFree(p);
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("# %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  for (const char* name : {"short", "uniform16", "poisson3d"}) {
    const spmv_experiment::matrix m = spmv_experiment::make(name);
    measure<float>(m);
    measure<double>(m);
  }
  return 0;
}
