// tridiagonal_short: short tridiagonal systems, strided and interleaved, float
// and double: the short-system Thomas kernel at several slice shapes (rows a
// slice, slices ahead) launched directly (16 to 64 rows, 2^22 unknowns, in
// alternating rounds), the library's strategies through the dispatch (the short
// Thomas offered up to 256 rows; 64 to 256 rows at 2^22 unknowns, then batches
// of 128 to 16384 systems), cuSPARSE (gtsv2StridedBatch, gtsvInterleavedBatch
// algorithm 0) and a copy of the bytes a solve moves, in one process. Prints
// the median ms, the ratio to cuSPARSE and the largest relative residual, so
// that a fast but wrong row shows. Then the partitioned method on 2^12 to 2^20
// rows a system, with thread chunks of 32 to 128 rows and with block chunks.
//   build/experiments/tridiagonal_short [repeat] [rounds]
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_tridiagonal.cuh>

#include "../tools/cuda_timing.cuh"
#include "../tools/cusparse_gtsv.hpp"

namespace {
namespace sd = streamscan::cuda::detail;
namespace sc = streamscan::cuda;
using namespace streamscan_tool;  // cuSPARSE's solvers by value type
using strategy = streamscan::tridiagonal_strategy;

void check(cudaError_t e) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}
void check(cusparseStatus_t e) {
  if (e != CUSPARSE_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuSPARSE: %d\n", static_cast<int>(e));
    std::exit(1);
  }
}

// Median ms of `repeat` calls of f after a warm-up, each after `before`,
// untimed (tools/cuda_timing.cuh's median_ms); a failed launch ends the run.
float ms_of(int repeat, const std::function<void()>& f, const std::function<void()>& before = [] {}) {
  const double ms = median_ms(repeat, [&](int) { f(); }, nullptr, [&](int) { before(); }).median_ms;
  check(cudaGetLastError());
  return static_cast<float>(ms);
}

template <class T>
struct batch_data {
  std::int64_t n, batch;
  bool interleaved;
  std::vector<T> l, d, u, b;
  T *dl, *dd, *du, *db, *dx, *copy;

  std::int64_t at(std::int64_t s, std::int64_t i) const { return interleaved ? i * batch + s : s * n + i; }
  double residual() const {
    std::vector<T> x(l.size());
    check(cudaMemcpy(x.data(), dx, x.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (std::int64_t s = 0; s < batch; ++s)
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t k = at(s, i);
        double ax = double(d[k]) * x[k];
        if (i > 0) ax += double(l[k]) * x[at(s, i - 1)];
        if (i + 1 < n) ax += double(u[k]) * x[at(s, i + 1)];
        worst = std::max(worst, std::fabs(ax - double(b[k])) / (std::fabs(double(b[k])) + std::fabs(double(x[k]))));
      }
    return worst;
  }
};

template <class T, int R, int Depth, bool Vector>
float time_short_kernel(const batch_data<T>& a, int repeat) {
  constexpr int threads = streamscan::tuning::tridiagonal_shape_for(sizeof(T)).short_threads;
  const sc::tridiagonal_problem<T> p{
      a.dl, a.dd, a.du, a.db, a.dx, a.n, a.batch, a.interleaved ? 1 : a.n, a.interleaved ? a.batch : 1, 0};
  auto kernel = sc::tridiagonal_thread_chunks_kernel<T, R, Depth, Vector>;  // a chunk a system
  const std::size_t smem = 2 * sizeof(T) * a.n * threads;
  if (!sd::allow_dynamic_shared("x", kernel, smem)) std::exit(1);  // as the dispatch raises it
  const unsigned blocks = static_cast<unsigned>((a.batch + threads - 1) / threads);
  return ms_of(repeat, [&] { kernel<<<blocks, threads, smem>>>(p, a.batch, a.n, 1, nullptr, nullptr); });
}

template <class T>
void run(std::int64_t n, std::int64_t batch, bool interleaved, bool shapes_too, int repeat) {
  const std::int64_t total = n * batch;
  batch_data<T> a{n, batch, interleaved, {}, {}, {}, {}, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 2 + interleaved);
  std::uniform_real_distribution<double> u(-1, 1);
  a.l.resize(total), a.d.resize(total), a.u.resize(total), a.b.resize(total);
  for (std::int64_t k = 0; k < total; ++k) {
    a.l[k] = T(u(rng));
    a.u[k] = T(u(rng));
    a.d[k] = T((u(rng) < 0 ? -1 : 1) * (1.5 * (std::fabs(double(a.l[k])) + std::fabs(double(a.u[k]))) + 0.25));
    a.b[k] = T(u(rng));
  }
  const std::size_t bytes = total * sizeof(T);
  for (T** q : std::vector<T**>{&a.dl, &a.dd, &a.du, &a.db, &a.dx, &a.copy})
    check(cudaMalloc(q, bytes * (q == &a.copy ? 5 : 1)));
  check(cudaMemcpy(a.dl, a.l.data(), bytes, cudaMemcpyHostToDevice));
  check(cudaMemcpy(a.dd, a.d.data(), bytes, cudaMemcpyHostToDevice));
  check(cudaMemcpy(a.du, a.u.data(), bytes, cudaMemcpyHostToDevice));
  check(cudaMemcpy(a.db, a.b.data(), bytes, cudaMemcpyHostToDevice));
  const char* type = sizeof(T) == 4 ? "float" : "double";
  const char* layout = interleaved ? "interleaved" : "strided";
  // A solve reads four arrays and writes one: copy 2.5 arrays' bytes each way.
  const float copy_ms = ms_of(
      repeat, [&] { check(cudaMemcpyAsync(a.copy, a.copy + 5 * total / 2, 5 * bytes / 2, cudaMemcpyDeviceToDevice)); });

  // cuSPARSE solves in place: x reset from b before each call, untimed.
  cusparseHandle_t h;
  check(cusparseCreate(&h));
  std::size_t buffer_bytes = 0;
  const int m = static_cast<int>(n), count = static_cast<int>(batch);
  check(interleaved ? interleaved_buffer(h, m, a.dl, a.dd, a.du, a.dx, count, &buffer_bytes)
                    : strided_buffer(h, m, a.dl, a.dd, a.du, a.dx, count, m, &buffer_bytes));
  void* buffer = nullptr;
  check(cudaMalloc(&buffer, buffer_bytes + 1));
  // gtsvInterleavedBatch may overwrite the diagonals: it gets copies (a.copy),
  // restored before each call.
  T* cl = a.copy;
  T* cd = a.copy + total;
  T* cu = a.copy + 2 * total;
  auto restore = [&] {
    check(cudaMemcpyAsync(a.dx, a.db, bytes, cudaMemcpyDeviceToDevice));
    if (interleaved) {
      check(cudaMemcpyAsync(cl, a.dl, bytes, cudaMemcpyDeviceToDevice));
      check(cudaMemcpyAsync(cd, a.dd, bytes, cudaMemcpyDeviceToDevice));
      check(cudaMemcpyAsync(cu, a.du, bytes, cudaMemcpyDeviceToDevice));
    }
  };
  const float cusparse_ms = ms_of(
      repeat,
      [&] {
        check(interleaved ? interleaved_solve(h, m, cl, cd, cu, a.dx, count, buffer)
                          : strided_solve(h, m, a.dl, a.dd, a.du, a.dx, count, m, buffer));
      },
      restore);
  const double cusparse_res = a.residual();
  check(cudaFree(buffer));
  cusparseDestroy(h);
  std::printf(
      "%-6s %-11s %7lld x %-4lld copy %8.4f ms  cusparse %8.4f ms  "
      "residual %.1e\n",
      type, layout, (long long)batch, (long long)n, copy_ms, cusparse_ms, cusparse_res);
  auto row = [&](const std::string& name, float ms) {
    std::printf("    %-36s %8.4f ms  %5.1f%% of copy  %5.2fx cusparse  residual %.1e\n", name.c_str(), ms,
                100.0 * copy_ms / ms, cusparse_ms / ms, a.residual());
  };

  // The library's strategies through the dispatch; the short Thomas offered up
  // to 256 rows.
  auto shape = streamscan::tuning::tridiagonal_shape_for(sizeof(T));
  shape.short_max_rows = 256;
  const sc::tridiagonal_problem<T> p{
      a.dl, a.dd, a.du, a.db, a.dx, n, batch, interleaved ? 1 : n, interleaved ? batch : 1, 0};
  // Longer systems: the partitioned method with thread chunks of 32 to 128 rows and with block chunks.
  if (n > shape.max_block_rows) {
    for (const int chunk : {32, 64, 128, 0}) {
      auto s = shape;
      s.thread_chunk_rows = chunk;
      std::size_t used = 0;
      streamscan::status status =
          sd::solve_tridiagonal_level<T>("x", p, batch, strategy::partitioned, nullptr, used, nullptr, nullptr, s);
      unsigned char* temp = nullptr;
      check(cudaMalloc(&temp, used + 256));
      const float ms = ms_of(repeat, [&] {
        std::size_t at = 0;
        status = sd::solve_tridiagonal_level<T>("x", p, batch, strategy::partitioned, temp, at, nullptr, nullptr, s);
      });
      check(cudaFree(temp));
      std::string name = chunk ? "partitioned, thread chunks of " + std::to_string(chunk) : "partitioned, block chunks";
      if (!status) name += " (" + status.message() + ")";
      row(name, ms);
    }
    for (T* q : std::vector<T*>{a.dl, a.dd, a.du, a.db, a.dx, a.copy}) cudaFree(q);
    return;
  }
  for (strategy st : {strategy::thomas, strategy::warp_pcr, strategy::hybrid, strategy::automatic}) {
    if (shapes_too && st != strategy::thomas) continue;
    if (st == strategy::warp_pcr && n > 64) continue;
    auto s = shape;
    if (st == strategy::automatic) s.automatic_short_thomas = false;  // what automatic took before
    std::size_t used = 0;
    streamscan::status status = sd::solve_tridiagonal_level<T>("x", p, batch, st, nullptr, used, nullptr, nullptr, s);
    unsigned char* temp = nullptr;
    check(cudaMalloc(&temp, used + 256));
    const float ms = ms_of(repeat, [&] {
      std::size_t at = 0;
      status = sd::solve_tridiagonal_level<T>("x", p, batch, st, temp, at, nullptr, nullptr, s);
    });
    check(cudaFree(temp));
    std::string name = st == strategy::automatic ? "automatic, short thomas off" : streamscan::to_string(st);
    if (!status) name += " (" + status.message() + ")";
    row(name, ms);
  }
  // Slice shapes, launched directly: 32 or 64 bytes a slice (two or four
  // 16-byte vectors), one or two slices ahead, within the registers a thread
  // has.
  if (shapes_too) {
    constexpr int v = 16 / sizeof(T);  // rows a 16-byte vector
    auto shapes = [&](auto vector) {
      constexpr bool V = decltype(vector)::value;
      const std::string tag = V ? " vectors" : " rows";
      row("slice " + std::to_string(2 * v) + " depth 1" + tag, time_short_kernel<T, 2 * v, 1, V>(a, repeat));
      row("slice " + std::to_string(2 * v) + " depth 2" + tag, time_short_kernel<T, 2 * v, 2, V>(a, repeat));
      row("slice " + std::to_string(4 * v) + " depth 1" + tag, time_short_kernel<T, 4 * v, 1, V>(a, repeat));
    };
    if (!interleaved) shapes(std::true_type{});
    shapes(std::false_type{});
  }
  for (T* q : std::vector<T*>{a.dl, a.dd, a.du, a.db, a.dx, a.copy}) cudaFree(q);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
  const std::int64_t unknowns = std::int64_t{1} << 22;
  // The slice shapes at 2^22 unknowns, in alternating rounds.
  for (int r = 0; r < rounds; ++r)
    for (const std::int64_t n : {64, 32, 16})
      for (const bool interleaved : {false, true}) {
        run<float>(n, unknowns / n, interleaved, true, repeat);
        run<double>(n, unknowns / n, interleaved, true, repeat);
      }
  // The partitioned mid sizes at 2^22 unknowns, and 16 systems of 2^20.
  for (const std::int64_t n : {4096, 16384, 65536, 262144})
    for (const bool interleaved : {false, true}) {
      if (interleaved && unknowns / n < 256) continue;  // gtsvInterleavedBatch: batches of 256 or more
      run<float>(n, unknowns / n, interleaved, false, repeat);
      run<double>(n, unknowns / n, interleaved, false, repeat);
    }
  run<float>(1 << 20, 16, false, false, repeat);
  run<double>(1 << 20, 16, false, false, repeat);
  // The strategies: longer systems at 2^22 unknowns, then fewer systems.
  for (const std::int64_t n : {64, 128, 256})
    for (const bool interleaved : {false, true}) {
      run<float>(n, unknowns / n, interleaved, false, repeat);
      run<double>(n, unknowns / n, interleaved, false, repeat);
    }
  for (const std::int64_t n : {4, 64, 256})
    for (const std::int64_t batch : {128, 1024, 4096, 16384}) {
      run<float>(n, batch, false, false, repeat);
      run<double>(n, batch, false, false, repeat);
    }
  return 0;
}
