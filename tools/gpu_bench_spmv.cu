// `streamscan bench --primitives spmv` on the GPU: y = A x (alpha 1, beta 0)
// with streamscan's strategies against cusparseSpMV (CSR, ALG1 and ALG2) and
// memcpy, in one process on the same matrices, float and double, int32
// offsets and indices (what cuSPARSE's CSR takes alike).
//
// Matrices: tools/spmv_matrices.hpp.
// Bytes a call must move: values and column indices (nnz each), row offsets
// (rows + 1), y written once, x read once: what the memcpy row copies (half
// read, half written). Every output is checked against a double-precision
// host product, row by row, within 8 (row length + 2) eps_V (|A| |x|)_r; the
// largest difference from cuSPARSE ALG1 is reported in the notes.
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

#include <streamscan/cuda/device/device_spmv.cuh>

#include "cuda_timing.cuh"
#include "gpu_buffers.cuh"
#include "spmv_matrices.hpp"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}

template <class V>
const char* value_name() {
  return sizeof(V) == 4 ? "float" : "double";
}

template <class V>
void bench_matrix(const bench_options& o, const host_matrix& m, bench_report& rep, progress& bar,
                  std::vector<std::string>& notes) {
  namespace ss = streamscan;
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<V> values(static_cast<std::size_t>(nnz)), x(static_cast<std::size_t>(m.cols));
  for (auto& v : values) v = static_cast<V>(u(rng));
  for (auto& v : x) v = static_cast<V>(u(rng));

  // The host oracle in double, and each row's rounding bound.
  std::vector<double> expected(static_cast<std::size_t>(m.rows)), bound(static_cast<std::size_t>(m.rows));
  const double eps = std::numeric_limits<V>::epsilon();
  for (std::int64_t r = 0; r < m.rows; ++r) {
    double sum = 0, mag = 0;
    for (std::int64_t k = m.offsets[r]; k < m.offsets[r + 1]; ++k) {
      const double p = double(values[k]) * double(x[m.columns[k]]);
      sum += p;
      mag += std::fabs(p);
    }
    expected[r] = sum;
    bound[r] = 8 * eps * double(m.offsets[r + 1] - m.offsets[r] + 2) * mag + 1e-30;
  }

  device_array<std::int32_t> d_offsets(m.offsets.size()), d_columns(m.columns.size());
  device_array<V> d_values(values.size()), d_x(x.size()), d_y(static_cast<std::size_t>(m.rows)),
      d_ref(static_cast<std::size_t>(m.rows));
  d_offsets.upload(m.offsets);
  d_columns.upload(m.columns);
  d_values.upload(values);
  d_x.upload(x);

  const double bytes = double(nnz) * (sizeof(V) + 4) + double(m.rows + 1) * 4 + double(m.rows) * sizeof(V) +
                       double(m.cols) * sizeof(V);
  const std::string type = m.name + "/" + value_name<V>();
  const int log2n = static_cast<int>(std::floor(std::log2(double(std::max<std::int64_t>(nnz, 1)))));
  std::vector<V> y(static_cast<std::size_t>(m.rows)), ref(static_cast<std::size_t>(m.rows));
  auto verify = [&](std::vector<V>& out) {
    for (std::int64_t r = 0; r < m.rows; ++r)
      if (!(std::fabs(double(out[r]) - expected[r]) <= bound[r])) return false;
    return true;
  };
  auto add = [&](const std::string& algorithm, const timing& ms, bool ok) {
    rep.rows.push_back({type, log2n, nnz, algorithm, "-", ms, bytes, ok, 0, 0});
  };
  const auto wants = [&](const char* a) {
    return o.algorithms.empty() || std::find(o.algorithms.begin(), o.algorithms.end(), a) != o.algorithms.end();
  };

  if (wants("memcpy")) {
    bar.step(type + " memcpy");
    device_array<unsigned char> a(static_cast<std::size_t>(bytes / 2)), b(static_cast<std::size_t>(bytes / 2));
    const timing ms = median_ms(o.repeat, [&](int) {
      cuda_check(cudaMemcpyAsync(b.get(), a.get(), static_cast<std::size_t>(bytes / 2), cudaMemcpyDeviceToDevice),
                 "memcpy");
    });
    add("memcpy", ms, true);
  }

  // cuSPARSE, ALG1 and ALG2; ALG1's output is the reference the notes compare with.
  cusparseHandle_t handle = nullptr;
  check(cusparseCreate(&handle), "cusparseCreate");
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  const cudaDataType dt = sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_64F;
  check(cusparseCreateCsr(&mat, m.rows, m.cols, nnz, d_offsets.get(), d_columns.get(), d_values.get(),
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt),
        "cusparseCreateCsr");
  check(cusparseCreateDnVec(&vx, m.cols, d_x.get(), dt), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&vy, m.rows, d_ref.get(), dt), "cusparseCreateDnVec");
  const V alpha = 1, beta = 0;
  for (const auto alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
    const char* name = alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse::SpMV CSR_ALG1" : "cusparse::SpMV CSR_ALG2";
    if (!wants("cusparse")) break;
    bar.step(type + " " + name);
    std::size_t buffer_bytes = 0;
    check(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, dt, alg,
                                  &buffer_bytes),
          "cusparseSpMV_bufferSize");
    device_array<unsigned char> buffer(buffer_bytes + 1);
    check(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, dt, alg,
                                  buffer.get()),
          "cusparseSpMV_preprocess");
    const timing ms = median_ms(o.repeat, [&](int) {
      check(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, dt, alg, buffer.get()),
            "cusparseSpMV");
    });
    d_ref.download(ref);
    add(name, ms, verify(ref));
  }
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroySpMat(mat);
  cusparseDestroy(handle);

  const ss::csr_view<V, std::int32_t, std::int32_t> view{m.rows, m.cols, nnz, d_offsets.get(), d_columns.get(),
                                                         d_values.get()};
  // The default prepared (ss::cuda::spmv_prepare once, outside the timing),
  // as cuSPARSE's products above run after cusparseSpMV_preprocess.
  if (wants("prepared")) {
    const std::string name = std::string("spmv default prepared (") +
                             ss::to_string(ss::cuda::detail::resolve_spmv_strategy(view, ss::spmv_strategy::automatic)) +
                             ")";
    bar.step(type + " " + name);
    ss::spmv_options opt;
    std::size_t temp_bytes = 0;
    ss::throw_if_error(ss::cuda::spmv_prepare(nullptr, temp_bytes, view, nullptr, opt));
    device_array<unsigned char> temp(temp_bytes);
    ss::throw_if_error(ss::cuda::spmv_prepare(temp.get(), temp_bytes, view, nullptr, opt));
    opt.prepared = true;
    cuda_check(cudaMemset(d_y.get(), 0xff, static_cast<std::size_t>(m.rows) * sizeof(V)), "poison");
    const timing ms = median_ms(o.repeat, [&](int) {
      ss::throw_if_error(ss::cuda::spmv(temp.get(), temp_bytes, view, d_x.get(), d_y.get(), V(1), V(0), nullptr, opt));
    });
    d_y.download(y);
    add(name, ms, verify(y));
  }
  for (const auto strategy : {ss::spmv_strategy::automatic, ss::spmv_strategy::row_groups,
                              ss::spmv_strategy::merge_path, ss::spmv_strategy::nonzero_split,
                              ss::spmv_strategy::segmented_scan}) {
    const bool is_default = strategy == ss::spmv_strategy::automatic;
    if (!wants(ss::to_string(strategy))) continue;
    // The default's row names what it resolved to for this matrix.
    const std::string name =
        is_default ? std::string("spmv default (") + ss::to_string(ss::cuda::detail::resolve_spmv_strategy(view, strategy)) + ")"
                   : std::string("spmv ") + ss::to_string(strategy);
    bar.step(type + " " + name);
    ss::spmv_options opt;
    opt.strategy = strategy;
    std::size_t temp_bytes = 0;
    ss::throw_if_error(ss::cuda::spmv(nullptr, temp_bytes, view, d_x.get(), d_y.get(), V(1), V(0), nullptr, opt));
    device_array<unsigned char> temp(temp_bytes);
    cuda_check(cudaMemset(d_y.get(), 0xff, static_cast<std::size_t>(m.rows) * sizeof(V)), "poison");
    const timing ms = median_ms(o.repeat, [&](int) {
      ss::throw_if_error(ss::cuda::spmv(temp.get(), temp_bytes, view, d_x.get(), d_y.get(), V(1), V(0), nullptr, opt));
    });
    d_y.download(y);
    add(name, ms, verify(y));
    if (!ref.empty() && is_default) {
      double worst = 0;
      for (std::int64_t r = 0; r < m.rows; ++r)
        worst = std::max(worst, std::fabs(double(y[r]) - double(ref[r])) / (bound[r] / 8));
      char line[256];
      std::snprintf(line, sizeof(line),
                    "%s: the default vs cuSPARSE ALG1, largest |difference| = %.2f eps (|A||x|)(len+2)", type.c_str(),
                    worst);
      notes.push_back(line);
    }
  }
}

}  // namespace

int gpu_bench_spmv(const bench_options& o, bench_report& rep) {
  warm_up_gpu();
  rep.repeat = o.repeat;
  const std::vector<std::string>& names = o.matrices;
  progress bar(o.progress, static_cast<int>(names.size()) * 2 * 8);
  std::vector<std::string> notes;
  for (const std::string& name : names) {
    const host_matrix m = make_matrix(name);
    bench_matrix<float>(o, m, rep, bar, notes);
    bench_matrix<double>(o, m, rep, bar, notes);
  }
  bar.done();
  rep.notes.push_back(
      "spmv: y = A x, int32 offsets and indices; GB/s counts values and indices (nnz each), offsets (rows + 1), y "
      "written and x read once; 'vs CUB' is vs the faster of cuSPARSE's CSR_ALG1 and CSR_ALG2; outputs checked "
      "against a double host product within 8 (len + 2) eps (|A||x|) per row");
  for (const auto& n : notes) rep.notes.push_back(n);
  return all_verified(rep) ? 0 : 1;
}

}  // namespace streamscan_tool
