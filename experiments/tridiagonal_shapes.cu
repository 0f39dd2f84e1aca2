// tridiagonal_shapes: the batched tridiagonal solver at several shapes
// (threads a block, rows handed to parallel cyclic reduction, chunk rows of
// the partitioned method), float and double, on the three cases of the bench
// (512 x 512, 4096 x 1024, 16 x 2^20, strided). Prints the median ms per
// shape and the largest residual (max |Ax - b|), so that a fast but wrong
// shape shows; the fastest shape overall becomes tuning/tridiagonal.hpp's.
//   build/experiments/tridiagonal_shapes [repeat]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <streamscan/cuda/device/device_tridiagonal.cuh>

namespace {
namespace sd = streamscan::cuda::detail;

void check(cudaError_t e) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class T>
void run(std::int64_t n, std::int64_t batch, int repeat) {
  const std::int64_t total = n * batch;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> l(total), d(total), up(total), b(total), x(total);
  for (std::int64_t k = 0; k < total; ++k) {
    l[k] = T(u(rng));
    up[k] = T(u(rng));
    d[k] = T((u(rng) < 0 ? -1 : 1) * (1.5 * (std::fabs(double(l[k])) + std::fabs(double(up[k]))) + 0.25));
    b[k] = T(u(rng));
  }
  T *dl, *dd, *du, *db, *dx;
  for (T** p : {&dl, &dd, &du, &db, &dx}) check(cudaMalloc(p, total * sizeof(T)));
  check(cudaMemcpy(dl, l.data(), total * sizeof(T), cudaMemcpyHostToDevice));
  check(cudaMemcpy(dd, d.data(), total * sizeof(T), cudaMemcpyHostToDevice));
  check(cudaMemcpy(du, up.data(), total * sizeof(T), cudaMemcpyHostToDevice));
  check(cudaMemcpy(db, b.data(), total * sizeof(T), cudaMemcpyHostToDevice));
  streamscan::cuda::tridiagonal_problem<T> p{dl, dd, du, db, dx, n, batch, n, 1, total};
  const auto base = streamscan::tuning::tridiagonal_shape_for(sizeof(T));
  std::vector<streamscan::tuning::tridiagonal_shape> shapes;
  for (int rows : {0, 4, 8, 16})  // thomas_pcr's rows a thread (0: automatic's CR-PCR hybrid)
    for (int threads : {64, 128})  // at most the kernel's __launch_bounds__
      for (int pcr : {32, 64, 128, 256})
        for (int chunk : {512, 1024, 2048}) {
          if (n <= base.max_block_rows && chunk != base.chunk_rows) continue;
          if (n > base.max_block_rows && pcr != 64 && pcr != 128) continue;
          if (rows > 0 && (threads != base.max_threads || pcr != base.pcr_rows)) continue;  // neither is used
          auto s = base;
          s.automatic_thomas_pcr = rows > 0;
          if (rows > 0) s.thread_rows = rows;
          s.max_threads = threads;
          s.pcr_rows = pcr;
          s.chunk_rows = chunk;
          shapes.push_back(s);
        }
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0));
  check(cudaEventCreate(&e1));
  for (const auto& s : shapes) {
    std::size_t used = 0;
    streamscan::status st = sd::solve_tridiagonal_level<T>("x", p, batch, streamscan::tridiagonal_strategy::automatic,
                                                           nullptr, used, nullptr, nullptr, s);
    unsigned char* temp = nullptr;
    check(cudaMalloc(&temp, used + 256));
    std::vector<float> ms;
    for (int r = 0; r <= repeat; ++r) {
      std::size_t at = 0;
      check(cudaEventRecord(e0));
      st = sd::solve_tridiagonal_level<T>("x", p, batch, streamscan::tridiagonal_strategy::automatic, temp, at,
                                          nullptr, nullptr, s);
      check(cudaEventRecord(e1));
      check(cudaEventSynchronize(e1));
      float t = 0;
      check(cudaEventElapsedTime(&t, e0, e1));
      if (r > 0) ms.push_back(t);
    }
    check(cudaFree(temp));
    check(cudaMemcpy(x.data(), dx, total * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (std::int64_t k = 0; k < total; ++k) {
      const std::int64_t i = k % n;
      double ax = double(d[k]) * x[k];
      if (i > 0) ax += double(l[k]) * x[k - 1];
      if (i + 1 < n) ax += double(up[k]) * x[k + 1];
      worst = std::max(worst, std::fabs(ax - double(b[k])));
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-6s %5lld x %-8lld thread rows %2d threads %3d pcr %3d chunk %4d  %8.4f ms  residual %.2e %s\n",
                sizeof(T) == 4 ? "float" : "double", (long long)batch, (long long)n, s.thread_rows, s.max_threads,
                s.pcr_rows, s.chunk_rows, ms[ms.size() / 2], worst, st ? "" : st.message().c_str());
  }
  for (T* q : {dl, dd, du, db, dx}) cudaFree(q);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 10;
  run<float>(512, 512, repeat);
  run<double>(512, 512, repeat);
  run<float>(1024, 4096, repeat);
  run<double>(1024, 4096, repeat);
  run<float>(1 << 20, 16, repeat);
  run<double>(1 << 20, 16, repeat);
  return 0;
}
