// spmv_experiment.cuh - what the SpMV experiments share: random values and x
// with a double-precision host reference and per-row tolerance, device
// uploads, and cuSPARSE CSR_ALG1 (after cusparseSpMV_preprocess, as the bench
// runs it) timed as the baseline.
#pragma once

#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../tools/cuda_timing.cuh"

namespace spmv_experiment {

inline void check_sparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuSPARSE status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

template <class T>
T* upload(const std::vector<T>& v) {
  T* d = nullptr;
  streamscan_tool::cuda_check(cudaMalloc(&d, v.size() * sizeof(T) + 1), "cudaMalloc");
  streamscan_tool::cuda_check(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "copy");
  return d;
}

// Values and x uniform in [-1, 1] (multiples of 1/1000) from a fixed seed,
// y = A x in double, and a row's tolerance: slack x (row length + 2) eps
// (|A||x|)_r.
template <class V>
struct problem {
  std::vector<V> values, x;
  std::vector<double> want, bound;

  problem(const std::vector<int>& offsets, const std::vector<int>& columns, std::int64_t cols, double slack) {
    const std::int64_t rows = static_cast<std::int64_t>(offsets.size()) - 1;
    std::mt19937_64 rng(2);
    values.resize(columns.size());
    x.resize(cols);
    for (auto& v : values) v = static_cast<V>(static_cast<double>(rng() % 2001) / 1000.0 - 1.0);
    for (auto& v : x) v = static_cast<V>(static_cast<double>(rng() % 2001) / 1000.0 - 1.0);
    want.resize(rows);
    bound.resize(rows);
    for (std::int64_t r = 0; r < rows; ++r) {
      double s = 0, a = 0;
      for (int k = offsets[r]; k < offsets[r + 1]; ++k) {
        const double p = static_cast<double>(values[k]) * static_cast<double>(x[columns[k]]);
        s += p;
        a += std::abs(p);
      }
      want[r] = s;
      bound[r] = slack * (offsets[r + 1] - offsets[r] + 2) * std::numeric_limits<V>::epsilon() * a + 1e-30;
    }
  }

  // "ok" when the device's y (rows values) is within every row's bound.
  const char* verdict(const V* y) const {
    std::vector<V> got(want.size());
    streamscan_tool::cuda_check(cudaMemcpy(got.data(), y, got.size() * sizeof(V), cudaMemcpyDeviceToHost), "copy");
    for (std::size_t r = 0; r < got.size(); ++r)
      if (!(std::abs(static_cast<double>(got[r]) - want[r]) <= bound[r])) return "WRONG";
    return "ok";
  }
};

// Median ms of `repeat` cuSPARSE CSR_ALG1 products y = A x (int32 indices);
// y holds the last one's result.
template <class V>
double cusparse_alg1_ms(std::int64_t rows, std::int64_t cols, std::int64_t nnz, int* offsets, int* columns, V* values,
                        V* x, V* y, int repeat) {
  cusparseHandle_t handle;
  check_sparse(cusparseCreate(&handle), "cusparseCreate");
  const cudaDataType dt = sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_64F;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vx, vy;
  check_sparse(cusparseCreateCsr(&mat, rows, cols, nnz, offsets, columns, values, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt),
               "cusparseCreateCsr");
  check_sparse(cusparseCreateDnVec(&vx, cols, x, dt), "cusparseCreateDnVec");
  check_sparse(cusparseCreateDnVec(&vy, rows, y, dt), "cusparseCreateDnVec");
  const V one = 1, zero = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::size_t buffer_bytes = 0;
  check_sparse(cusparseSpMV_bufferSize(handle, op, &one, mat, vx, &zero, vy, dt, CUSPARSE_SPMV_CSR_ALG1,
                                       &buffer_bytes),
               "cusparseSpMV_bufferSize");
  void* buffer = nullptr;
  streamscan_tool::cuda_check(cudaMalloc(&buffer, buffer_bytes + 1), "cudaMalloc");
  check_sparse(cusparseSpMV_preprocess(handle, op, &one, mat, vx, &zero, vy, dt, CUSPARSE_SPMV_CSR_ALG1, buffer),
               "cusparseSpMV_preprocess");
  const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                      check_sparse(cusparseSpMV(handle, op, &one, mat, vx, &zero, vy, dt, CUSPARSE_SPMV_CSR_ALG1,
                                                buffer),
                                   "cusparseSpMV");
                    }).median_ms;
  cusparseDestroySpMat(mat);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(handle);
  cudaFree(buffer);
  return ms;
}

// The experiments' square matrices with int32 indices (columns uniform at
// random unless said): "short" 16M rows of 1-3 non-zeros, "short_spiky" the
// same with 16 rows of 2^17, "uniform16" 4M rows of 16, "poisson3d" the 7-point
// stencil on a 160^3 grid.
struct matrix {
  std::string name;
  std::int64_t rows = 0;
  std::vector<int> offsets{0}, columns;
};

inline matrix make(const std::string& name) {
  std::mt19937_64 rng(1);
  matrix m;
  m.name = name;
  if (name == "poisson3d") {
    const int g = 160;
    m.rows = std::int64_t{g} * g * g;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const std::int64_t i = r % g, j = (r / g) % g, k = r / (g * g);
      const std::int64_t steps[] = {-g * g, -g, -1, 0, 1, g, g * g};
      const bool inside[] = {k > 0, j > 0, i > 0, true, i + 1 < g, j + 1 < g, k + 1 < g};
      for (int s = 0; s < 7; ++s)
        if (inside[s]) m.columns.push_back(static_cast<int>(r + steps[s]));
      m.offsets.push_back(static_cast<int>(m.columns.size()));
    }
    return m;
  }
  const bool uniform = name == "uniform16", spiky = name == "short_spiky";
  m.rows = uniform ? (1 << 22) : (1 << 24);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    int len = uniform ? 16 : 1 + static_cast<int>(rng() % 3);
    if (spiky && r % (1 << 20) == 7) len = 1 << 17;
    for (int k = 0; k < len; ++k) m.columns.push_back(static_cast<int>(rng() % m.rows));
    m.offsets.push_back(static_cast<int>(m.columns.size()));
  }
  return m;
}

}  // namespace spmv_experiment
