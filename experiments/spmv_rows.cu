// spmv_rows: for matrices of short rows, a kernel that gives each row a group
// of G lanes (no merge, no tile search, no fix-up: one pass over the
// offsets, columns and values), against merge_path and
// cuSPARSE's CSR_ALG1 in the same process. Rows longer than `spill` (64 G)
// are not summed by their group: their ids go to a list that a second
// kernel sums one block a row, so that a few long rows cannot stall a group
// for the whole kernel. The library's row_groups strategy grew out of this
// (spmv_kernels.cuh), with long rows cut into chunks instead. gGrR: R rows a
// group, their loads issued together (row_group_multi_kernel). Matrices:
// 1-3 non-zeros a row with random columns (16M rows, the issue's short-rows
// case), the same with 16 rows of 2^17 non-zeros (the spill path), the 3D
// 7-point Poisson stencil (160^3) and 16 a row (4M rows); float and double.
// Outputs are checked against a double host product within 8 (len + 2) eps
// |A||x| a row. Prints median ms of 20 and x cuSPARSE (after its preprocess).
//   build/experiments/spmv_rows
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cuda/block/block_reduce.cuh>
#include <streamscan/cuda/device/device_spmv.cuh>

#include "../tools/cuda_timing.cuh"
#include "spmv_experiment.cuh"

namespace {

const auto check = streamscan_tool::cuda_check;

struct plus_op {
  template <class T>
  __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

// One row a group of G lanes (G divides 32): lanes stride over the row's
// non-zeros, then the group adds its partial sums by shuffles (a fixed tree).
// A row longer than `spill` is left to long_rows_kernel: its id goes to the list.
template <int G, int Threads, class V>
__global__ void __launch_bounds__(Threads)
    row_group_kernel(const int* offsets, const int* columns, const V* values, const V* __restrict__ x, V* y,
                     std::int64_t rows, V alpha, V beta, int spill, unsigned long long* long_count, int* long_rows) {
  const std::int64_t row = (blockIdx.x * static_cast<std::int64_t>(Threads) + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  // The lanes of this group within the warp (whole groups leave together).
  const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (threadIdx.x % 32 / G * G);
  if (row >= rows) return;
  const int begin = offsets[row], end = offsets[row + 1];
  if (end - begin > spill) {
    if (lane == 0) long_rows[atomicAdd(long_count, 1ull)] = static_cast<int>(row);
    return;
  }
  V sum = 0;
  for (int k = begin + lane; k < end; k += G) sum += values[k] * x[columns[k]];
#pragma unroll
  for (int d = G / 2; d > 0; d /= 2) sum += __shfl_xor_sync(mask, sum, d);
  if (lane == 0) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

// R rows a group, all their first loads in flight together: the group's rows
// are g, g + groups, ..., g + (R - 1) groups (consecutive groups take
// consecutive rows, so each load stays coalesced); every lane loads the
// first column and value of each of its R rows, then gathers the R x entries,
// before any product, so that a thread has R gathers in flight instead of
// one. Rows longer than G go on one non-zero a lane per step.
template <int G, int R, int Threads, class V>
__global__ void __launch_bounds__(Threads)
    row_group_multi_kernel(const int* offsets, const int* columns, const V* values, const V* __restrict__ x, V* y,
                           std::int64_t rows, V alpha, V beta, int spill, unsigned long long* long_count,
                           int* long_rows) {
  const std::int64_t groups = static_cast<std::int64_t>(gridDim.x) * Threads / G;
  const std::int64_t g = (blockIdx.x * static_cast<std::int64_t>(Threads) + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (threadIdx.x % 32 / G * G);
  int begin[R], end[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const std::int64_t row = g + i * groups;
    begin[i] = row < rows ? offsets[row] : 0;
    end[i] = row < rows ? offsets[row + 1] : 0;
    if (end[i] - begin[i] > spill) {
      if (lane == 0) long_rows[atomicAdd(long_count, 1ull)] = static_cast<int>(row);
      end[i] = begin[i];
    }
  }
  int column[R];
  V value[R], sum[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int k = begin[i] + lane;
    column[i] = k < end[i] ? columns[k] : -1;
    value[i] = k < end[i] ? values[k] : V(0);
  }
#pragma unroll
  for (int i = 0; i < R; ++i) sum[i] = column[i] >= 0 ? value[i] * x[column[i]] : V(0);
#pragma unroll
  for (int i = 0; i < R; ++i)
    for (int k = begin[i] + G + lane; k < end[i]; k += G) sum[i] += values[k] * x[columns[k]];
#pragma unroll
  for (int i = 0; i < R; ++i) {
#pragma unroll
    for (int d = G / 2; d > 0; d /= 2) sum[i] += __shfl_xor_sync(mask, sum[i], d);
    const std::int64_t row = g + i * groups;
    if (lane == 0 && row < rows) y[row] = beta == V(0) ? alpha * sum[i] : alpha * sum[i] + beta * y[row];
  }
}

// The spilled rows, one block a row (a fixed grid walks the list).
template <int Threads, class V>
__global__ void __launch_bounds__(Threads)
    long_rows_kernel(const int* offsets, const int* columns, const V* values, const V* __restrict__ x, V* y, V alpha,
                     V beta, const unsigned long long* long_count, const int* long_rows) {
  using reduce_t = streamscan::cuda::block_reduce<V, Threads>;
  __shared__ typename reduce_t::temp_storage storage;
  const unsigned long long count = *long_count;
  plus_op op;
  for (unsigned long long i = blockIdx.x; i < count; i += gridDim.x) {
    const int row = long_rows[i];
    V sum = 0;
    for (int k = offsets[row] + static_cast<int>(threadIdx.x); k < offsets[row + 1]; k += Threads)
      sum += values[k] * x[columns[k]];
    sum = reduce_t(storage).reduce(sum, op);
    if (threadIdx.x == 0) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    __syncthreads();  // storage is reused by the next row
  }
}

template <class V>
void measure(const spmv_experiment::matrix& m) {
  using spmv_experiment::upload;
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  const double mean = static_cast<double>(nnz) / static_cast<double>(m.rows);
  const spmv_experiment::problem<V> pb(m.offsets, m.columns, m.rows, 8.0);
  int* offsets = upload(m.offsets);
  int* columns = upload(m.columns);
  V* values = upload(pb.values);
  V* x = upload(pb.x);
  V* y;
  int* long_rows;
  unsigned long long* long_count;
  check(cudaMalloc(&y, m.rows * sizeof(V)), "cudaMalloc");
  check(cudaMalloc(&long_rows, m.rows * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&long_count, sizeof(unsigned long long)), "cudaMalloc");
  auto verdict = [&] { return pb.verdict(y); };
  const char* type = sizeof(V) == 4 ? "float" : "double";
  const int repeat = 20;
  auto poison = [&] { check(cudaMemset(y, 0xA7, m.rows * sizeof(V)), "cudaMemset"); };

  const double t_cusparse = spmv_experiment::cusparse_alg1_ms(m.rows, m.rows, nnz, offsets, columns, values, x, y,
                                                              repeat);
  std::printf("%-12s %-6s mean %5.2f  cusparse ALG1 %.4f ms %s", m.name.c_str(), type, mean, t_cusparse, verdict());

  // merge_path (the default's choice from a mean of 8 non-zeros a row).
  const auto a = streamscan::make_csr_view(m.rows, m.rows, nnz, static_cast<const int*>(offsets),
                                           static_cast<const int*>(columns), static_cast<const V*>(values));
  std::size_t temp_bytes = 0;
  streamscan::spmv_options merge;
  merge.strategy = streamscan::spmv_strategy::merge_path;
  streamscan::throw_if_error(streamscan::cuda::spmv(nullptr, temp_bytes, a, x, y, V(1), V(0), nullptr, merge));
  void* temp;
  check(cudaMalloc(&temp, temp_bytes + 1), "cudaMalloc");
  poison();
  const double t_default = streamscan_tool::median_ms(repeat, [&](int) {
                             streamscan::throw_if_error(
                                 streamscan::cuda::spmv(temp, temp_bytes, a, x, y, V(1), V(0), nullptr, merge));
                           }).median_ms;
  std::printf(" | merge_path %.4f (%.2fx) %s", t_default, t_cusparse / t_default, verdict());

  // Row groups of G lanes, G from the mean row length, and their neighbours.
  constexpr int threads = 256;
  auto groups = [&](auto g) {
    constexpr int G = decltype(g)::value;
    const std::int64_t blocks = (m.rows * G + threads - 1) / threads;
    poison();
    const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                        check(cudaMemsetAsync(long_count, 0, sizeof(unsigned long long)), "cudaMemsetAsync");
                        row_group_kernel<G, threads, V><<<static_cast<unsigned>(blocks), threads>>>(
                            offsets, columns, values, x, y, m.rows, V(1), V(0), 64 * G, long_count, long_rows);
                        long_rows_kernel<threads, V><<<264, threads>>>(offsets, columns, values, x, y, V(1), V(0),
                                                                       long_count, long_rows);
                      }).median_ms;
    check(cudaGetLastError(), "launch");
    std::printf(" | g%d %.4f (%.2fx) %s", G, ms, t_cusparse / ms, verdict());
  };
  groups(std::integral_constant<int, 1>{});
  groups(std::integral_constant<int, 2>{});
  groups(std::integral_constant<int, 4>{});
  groups(std::integral_constant<int, 8>{});
  groups(std::integral_constant<int, 16>{});
  auto multi = [&](auto g, auto r) {
    constexpr int G = decltype(g)::value, R = decltype(r)::value;
    const std::int64_t blocks = (m.rows * G + threads * R - 1) / (threads * R);
    poison();
    const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                        check(cudaMemsetAsync(long_count, 0, sizeof(unsigned long long)), "cudaMemsetAsync");
                        row_group_multi_kernel<G, R, threads, V><<<static_cast<unsigned>(blocks), threads>>>(
                            offsets, columns, values, x, y, m.rows, V(1), V(0), 64 * G, long_count, long_rows);
                        long_rows_kernel<threads, V><<<264, threads>>>(offsets, columns, values, x, y, V(1), V(0),
                                                                       long_count, long_rows);
                      }).median_ms;
    check(cudaGetLastError(), "launch");
    std::printf(" | g%dr%d %.4f (%.2fx) %s", G, R, ms, t_cusparse / ms, verdict());
  };
  using std::integral_constant;
  multi(integral_constant<int, 1>{}, integral_constant<int, 4>{});
  multi(integral_constant<int, 2>{}, integral_constant<int, 2>{});
  multi(integral_constant<int, 2>{}, integral_constant<int, 4>{});
  multi(integral_constant<int, 4>{}, integral_constant<int, 4>{});
  multi(integral_constant<int, 8>{}, integral_constant<int, 2>{});
  multi(integral_constant<int, 8>{}, integral_constant<int, 4>{});
  multi(integral_constant<int, 16>{}, integral_constant<int, 2>{});
  multi(integral_constant<int, 16>{}, integral_constant<int, 4>{});
  std::printf("\n");

  for (void* p : {static_cast<void*>(offsets), static_cast<void*>(columns), static_cast<void*>(values),
                  static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(long_rows),
                  static_cast<void*>(long_count), temp})
    cudaFree(p);
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("# %s, %d SMs; x cuSPARSE CSR_ALG1 in parentheses\n", prop.name, prop.multiProcessorCount);
  for (const char* name : {"short", "short_spiky", "poisson3d", "uniform16"}) {
    const spmv_experiment::matrix m = spmv_experiment::make(name);
    measure<float>(m);
    measure<double>(m);
  }
  return 0;
}
