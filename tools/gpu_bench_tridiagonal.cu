// `streamscan bench --primitives tridiagonal` on the GPU: batches of
// tridiagonal systems solved by streamscan's strategies against cuSPARSE
// (gtsv2StridedBatch for the strided layout, gtsvInterleavedBatch, algorithm
// 0, for the interleaved one) and memcpy, in one process on the same systems,
// float and double.
//
// Shapes: the three of ../shared/ANCHORS.md (512 systems of 512, 4096 of
// 1024, 16 of 2^20) and a sweep of system sizes 2^6 .. 2^18 at 2^22 unknowns.
// Systems are random and diagonally dominant (|d| >= 1.5 (|l| + |u|) + 0.25).
// Bytes a solve must move: the three diagonals and b read, x written (5 n
// values a system): what the memcpy row copies (half read, half written).
// cuSPARSE solves in place, so its x is reset from b before each call,
// outside the timing; streamscan writes x from b. Every output is checked by
// its residual: max |A x - b| <= 64 eps log2(n + 2) (|b| + |x|) per system.
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_tridiagonal.cuh>

#include "cuda_timing.cuh"
#include "cusparse_gtsv.hpp"
#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}

struct tridiagonal_shape_case {
  std::int64_t n, batch;
};

template <class T>
void bench_shape(const bench_options& o, const tridiagonal_shape_case& sh, streamscan::tridiagonal_layout layout,
                 bench_report& rep, progress& bar) {
  namespace ss = streamscan;
  const bool interleaved = layout == ss::tridiagonal_layout::interleaved;
  const std::int64_t n = sh.n, batch = sh.batch, total = n * batch;
  std::mt19937_64 rng(20261125 + static_cast<std::uint64_t>(n));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> lower(static_cast<std::size_t>(total)), diagonal(lower.size()), upper(lower.size()), b(lower.size());
  auto at = [&](std::int64_t s, std::int64_t i) {
    return static_cast<std::size_t>(interleaved ? i * batch + s : s * n + i);
  };
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i) {
      const double l = i == 0 ? 0.0 : u(rng), up = i + 1 == n ? 0.0 : u(rng);
      const double d = 1.5 * (std::fabs(l) + std::fabs(up)) + 0.25 + 0.5 * std::fabs(u(rng));
      lower[at(s, i)] = static_cast<T>(l);
      upper[at(s, i)] = static_cast<T>(up);
      diagonal[at(s, i)] = static_cast<T>(u(rng) < 0 ? -d : d);
      b[at(s, i)] = static_cast<T>(u(rng));
    }
  device_array<T> d_lower(lower.size()), d_diagonal(lower.size()), d_upper(lower.size()), d_b(lower.size()),
      d_x(lower.size());
  d_lower.upload(lower);
  d_diagonal.upload(diagonal);
  d_upper.upload(upper);
  d_b.upload(b);

  const double bytes = 5.0 * double(total) * sizeof(T);
  char type[96];
  std::snprintf(type, sizeof(type), "%lldx%lld/%s %s", static_cast<long long>(batch), static_cast<long long>(n),
                sizeof(T) == 4 ? "float" : "double", interleaved ? "interleaved" : "strided");
  const int log2n = static_cast<int>(std::floor(std::log2(double(total))));
  const double eps = std::numeric_limits<T>::epsilon();
  std::vector<T> x(lower.size());
  auto verify = [&] {
    d_x.download(x);
    for (std::int64_t s = 0; s < batch; ++s) {
      double residual = 0, size = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        double ax = double(diagonal[at(s, i)]) * double(x[at(s, i)]);
        if (i > 0) ax += double(lower[at(s, i)]) * double(x[at(s, i - 1)]);
        if (i + 1 < n) ax += double(upper[at(s, i)]) * double(x[at(s, i + 1)]);
        residual = std::max(residual, std::fabs(ax - double(b[at(s, i)])));
        size = std::max(size, std::fabs(double(b[at(s, i)])) + std::fabs(double(x[at(s, i)])));
      }
      if (!(residual <= 64 * eps * std::log2(double(n) + 2) * size)) return false;
    }
    return true;
  };
  auto add = [&](const std::string& algorithm, const timing& ms, bool ok) {
    rep.rows.push_back({type, log2n, total, algorithm, "-", ms, bytes, ok, 0, 0});
  };
  const auto wants = [&](const char* a) {
    return o.algorithms.empty() || std::find(o.algorithms.begin(), o.algorithms.end(), a) != o.algorithms.end();
  };
  const auto poison = [&](int) {
    cuda_check(cudaMemset(d_x.get(), 0xff, static_cast<std::size_t>(total) * sizeof(T)), "poison");
  };

  if (wants("memcpy")) {
    bar.step(std::string(type) + " memcpy");
    device_array<unsigned char> from(static_cast<std::size_t>(bytes / 2)), to(static_cast<std::size_t>(bytes / 2));
    add("memcpy", median_ms(o.repeat, [&](int) {
          cuda_check(cudaMemcpyAsync(to.get(), from.get(), static_cast<std::size_t>(bytes / 2),
                                     cudaMemcpyDeviceToDevice),
                     "memcpy");
        }),
        true);
  }

  if (wants("cusparse") && n <= 0x7fffffff && batch <= 0x7fffffff && (!interleaved || batch >= 256)) {
    cusparseHandle_t handle = nullptr;
    check(cusparseCreate(&handle), "cusparseCreate");
    const int m = static_cast<int>(n), count = static_cast<int>(batch);
    const auto reset = [&](int) {
      cuda_check(cudaMemcpy(d_x.get(), d_b.get(), static_cast<std::size_t>(total) * sizeof(T),
                            cudaMemcpyDeviceToDevice),
                 "reset x");
    };
    std::size_t buffer_bytes = 0;
    if (!interleaved) {
      bar.step(std::string(type) + " cusparse::gtsv2StridedBatch");
      check(strided_buffer(handle, m, d_lower.get(), d_diagonal.get(), d_upper.get(), d_x.get(), count, m,
                           &buffer_bytes),
            "gtsv2StridedBatch_bufferSizeExt");
      device_array<unsigned char> buffer(buffer_bytes + 1);
      const timing ms = median_ms(
          o.repeat,
          [&](int) {
            check(strided_solve(handle, m, d_lower.get(), d_diagonal.get(), d_upper.get(), d_x.get(), count, m,
                                buffer.get()),
                  "gtsv2StridedBatch");
          },
          nullptr, reset);
      add("cusparse::gtsv2StridedBatch", ms, verify());
    } else {
      // gtsvInterleavedBatch may overwrite the diagonals: it gets copies, restored before each call.
      bar.step(std::string(type) + " cusparse::gtsvInterleavedBatch");
      device_array<T> c_lower(lower.size()), c_diagonal(lower.size()), c_upper(lower.size());
      const auto restore = [&](int r) {
        const std::size_t size = static_cast<std::size_t>(total) * sizeof(T);
        cuda_check(cudaMemcpy(c_lower.get(), d_lower.get(), size, cudaMemcpyDeviceToDevice), "restore");
        cuda_check(cudaMemcpy(c_diagonal.get(), d_diagonal.get(), size, cudaMemcpyDeviceToDevice), "restore");
        cuda_check(cudaMemcpy(c_upper.get(), d_upper.get(), size, cudaMemcpyDeviceToDevice), "restore");
        reset(r);
      };
      restore(0);
      check(interleaved_buffer(handle, m, c_lower.get(), c_diagonal.get(), c_upper.get(), d_x.get(), count,
                               &buffer_bytes),
            "gtsvInterleavedBatch_bufferSizeExt");
      device_array<unsigned char> buffer(buffer_bytes + 1);
      const timing ms = median_ms(
          o.repeat,
          [&](int) {
            check(interleaved_solve(handle, m, c_lower.get(), c_diagonal.get(), c_upper.get(), d_x.get(), count,
                                    buffer.get()),
                  "gtsvInterleavedBatch");
          },
          nullptr, restore);
      add("cusparse::gtsvInterleavedBatch", ms, verify());
    }
    cusparseDestroy(handle);
  }

  ss::tridiagonal_view<T> view = ss::make_tridiagonal_view(n, batch, static_cast<const T*>(d_lower.get()),
                                                           static_cast<const T*>(d_diagonal.get()),
                                                           static_cast<const T*>(d_upper.get()), layout);
  using S = ss::tridiagonal_strategy;
  constexpr auto shape = ss::tuning::tridiagonal_shape_for(sizeof(T));
  for (const S strategy : {S::automatic, S::thomas_pcr, S::hybrid, S::cyclic_reduction, S::parallel_cyclic_reduction,
                           S::partitioned, S::thomas, S::warp_pcr}) {
    const bool whole_block = strategy == S::hybrid || strategy == S::cyclic_reduction ||
                             strategy == S::parallel_cyclic_reduction || strategy == S::thomas_pcr;
    if (whole_block && n > shape.max_block_rows) continue;
    if (strategy == S::partitioned && n <= shape.chunk_rows) continue;  // it would run hybrid
    if (strategy == S::thomas && batch < 1024) continue;                 // too few threads to be worth the wait
    if (strategy == S::warp_pcr && n > shape.warp_max_rows) continue;    // it would run automatic's pick
    if (interleaved && (strategy == S::cyclic_reduction || strategy == S::parallel_cyclic_reduction)) continue;
    const std::string name = std::string("tridiagonal ") + ss::to_string(strategy);
    if (!wants(ss::to_string(strategy))) continue;
    bar.step(std::string(type) + " " + name);
    ss::tridiagonal_options opt;
    opt.strategy = strategy;
    std::size_t temp_bytes = 0;
    ss::throw_if_error(ss::cuda::tridiagonal_solve<T>(nullptr, temp_bytes, view, d_b.get(), d_x.get(), nullptr, opt));
    device_array<unsigned char> temp(temp_bytes);
    const timing ms = median_ms(
        o.repeat,
        [&](int) {
          ss::throw_if_error(
              ss::cuda::tridiagonal_solve<T>(temp.get(), temp_bytes, view, d_b.get(), d_x.get(), nullptr, opt));
        },
        nullptr, poison);
    add(name + (strategy == S::automatic ? " (default)" : ""), ms, verify());
  }
}

}  // namespace

int gpu_bench_tridiagonal(const bench_options& o, bench_report& rep) {
  warm_up_gpu();
  rep.repeat = o.repeat;
  std::vector<tridiagonal_shape_case> shapes = {{512, 512}, {1024, 4096}, {std::int64_t{1} << 20, 16}};
  for (int k = 6; k <= 18; k += 2)
    if (k != 10) shapes.push_back({std::int64_t{1} << k, std::int64_t{1} << (22 - k)});
  progress bar(o.progress, static_cast<int>(shapes.size()) * 2 * 2 * 6);
  using L = streamscan::tridiagonal_layout;
  for (const auto& sh : shapes)
    for (const L layout : {L::strided, L::interleaved}) {
      bench_shape<float>(o, sh, layout, rep, bar);
      bench_shape<double>(o, sh, layout, rep, bar);
    }
  bar.done();
  rep.notes.push_back(
      "tridiagonal: batch x n systems; GB/s counts the three diagonals and b read and x written (5 n values a "
      "system); 'vs CUB' is vs cuSPARSE gtsv2StridedBatch (strided) or gtsvInterleavedBatch algorithm 0 "
      "(interleaved, batches of 256 systems or more); cuSPARSE solves in place, its x reset from b outside the "
      "timing; every output checked by its residual, max |Ax - b| <= 64 eps log2(n + 2) (|b| + |x|)");
  return all_verified(rep) ? 0 : 1;
}

}  // namespace streamscan_tool
