// streamscan/detail/spmv_validate.hpp - the argument checks of spmv shared by
// every back end (the structure checks of checked mode live with each back
// end: they read the arrays). No CUDA.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../spmv.hpp"
#include "../status.hpp"

namespace streamscan::detail {

template <class Value, class Offset, class Index>
status validate_spmv(const char* fn, const csr_view<Value, Offset, Index>& a, const Value* x, const Value* y,
                     const spmv_options& opt) {
  static_assert(std::is_same_v<Value, float> || std::is_same_v<Value, double>,
                "streamscan::spmv: values are float or double");
  static_assert(std::is_same_v<Offset, std::int32_t> || std::is_same_v<Offset, std::int64_t>,
                "streamscan::spmv: row offsets are int32 or int64");
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "streamscan::spmv: column indices are int32 or int64");
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (a.rows < 0) return bad("argument 'A.rows' is negative (" + std::to_string(a.rows) + ")");
  if (a.cols < 0) return bad("argument 'A.cols' is negative (" + std::to_string(a.cols) + ")");
  if (a.nnz < 0) return bad("argument 'A.nnz' is negative (" + std::to_string(a.nnz) + ")");
  if (a.nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    return bad("argument 'A.nnz' (" + std::to_string(a.nnz) + ") does not fit the row offsets' type");
  if (a.cols > 0 && a.cols - 1 > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
    return bad("argument 'A.cols' (" + std::to_string(a.cols) + ") does not fit the column indices' type");
  if (a.rows > 0 && a.row_offsets == nullptr)
    return bad("argument 'A.row_offsets' is a null pointer while A.rows = " + std::to_string(a.rows));
  if (a.nnz > 0 && a.column_indices == nullptr)
    return bad("argument 'A.column_indices' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.nnz > 0 && a.values == nullptr)
    return bad("argument 'A.values' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.nnz > 0 && a.rows == 0)
    return bad("argument 'A.nnz' is " + std::to_string(a.nnz) + " in a matrix of 0 rows");
  if (a.nnz > 0 && x == nullptr) return bad("argument 'x' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.rows > 0 && y == nullptr) return bad("argument 'y' is a null pointer while A.rows = " + std::to_string(a.rows));
  if (a.nnz > 0 && a.rows > 0) {
    const auto xb = reinterpret_cast<std::uintptr_t>(x), yb = reinterpret_cast<std::uintptr_t>(y);
    const auto xe = xb + static_cast<std::uintptr_t>(a.cols) * sizeof(Value);
    const auto ye = yb + static_cast<std::uintptr_t>(a.rows) * sizeof(Value);
    if (xb < ye && yb < xe) return bad("arguments 'x' and 'y' overlap");
  }
  switch (opt.strategy) {
    case spmv_strategy::automatic:
    case spmv_strategy::merge_path:
    case spmv_strategy::segmented_scan: break;
    default: return bad("argument 'options.strategy' is not a strategy this build knows");
  }
  return status::ok();
}

// Checked mode's structure test over host-readable arrays (the CPU back end;
// the GPU back end runs the same test in a kernel). Returns the first problem.
template <class Offset, class Index>
status check_csr_structure(const char* fn, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                           const Offset* offsets, const Index* indices) {
  if (rows == 0) return status::ok();
  if (offsets[0] != 0)
    return invalid_argument(fn, "A.row_offsets[0] is " + std::to_string(offsets[0]) + ", not 0 (checked mode)");
  for (std::int64_t r = 0; r < rows; ++r)
    if (offsets[r + 1] < offsets[r])
      return invalid_argument(fn, "A.row_offsets decreases at row " + std::to_string(r) + " (" +
                                      std::to_string(offsets[r]) + " then " + std::to_string(offsets[r + 1]) +
                                      "; checked mode)");
  if (offsets[rows] != nnz)
    return invalid_argument(fn, "A.row_offsets[rows] is " + std::to_string(offsets[rows]) + ", not A.nnz = " +
                                    std::to_string(nnz) + " (checked mode)");
  for (std::int64_t k = 0; k < nnz; ++k)
    if (indices[k] < 0 || indices[k] >= cols)
      return invalid_argument(fn, "A.column_indices[" + std::to_string(k) + "] is " + std::to_string(indices[k]) +
                                      ", outside [0, " + std::to_string(cols) + ") (checked mode)");
  return status::ok();
}

}  // namespace streamscan::detail
