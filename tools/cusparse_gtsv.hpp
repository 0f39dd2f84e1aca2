// tools/cusparse_gtsv.hpp - cuSPARSE's batched tridiagonal solvers by value
// type (the peer of `streamscan bench --primitives tridiagonal` and of
// experiments/tridiagonal_short): gtsv2StridedBatch and gtsvInterleavedBatch,
// algorithm 0.
#pragma once

#include <cusparse.h>

#include <cstddef>

namespace streamscan_tool {

inline cusparseStatus_t strided_buffer(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                       const float* x, int batch, int stride, std::size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
inline cusparseStatus_t strided_buffer(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                       const double* x, int batch, int stride, std::size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
inline cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                      float* x, int batch, int stride, void* buffer) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
inline cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                      double* x, int batch, int stride, void* buffer) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
inline cusparseStatus_t interleaved_buffer(cusparseHandle_t h, int m, float* dl, float* d, float* du, float* x,
                                           int batch, std::size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, batch, bytes);
}
inline cusparseStatus_t interleaved_buffer(cusparseHandle_t h, int m, double* dl, double* d, double* du, double* x,
                                           int batch, std::size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, batch, bytes);
}
inline cusparseStatus_t interleaved_solve(cusparseHandle_t h, int m, float* dl, float* d, float* du, float* x,
                                          int batch, void* buffer) {
  return cusparseSgtsvInterleavedBatch(h, 0, m, dl, d, du, x, batch, buffer);
}
inline cusparseStatus_t interleaved_solve(cusparseHandle_t h, int m, double* dl, double* d, double* du, double* x,
                                          int batch, void* buffer) {
  return cusparseDgtsvInterleavedBatch(h, 0, m, dl, d, du, x, batch, buffer);
}

}  // namespace streamscan_tool
