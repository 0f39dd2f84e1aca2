// streamscan/detail/spmv_validate.hpp - the argument checks of spmv shared by
// every back end (the structure checks of checked mode live with each back
// end: they read the arrays). No CUDA.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../config.hpp"
#include "../spmv.hpp"
#include "../status.hpp"
#include "validate.hpp"

namespace streamscan::detail {

// The matrix's sizes alone: what a size query checks too (no pointer read).
template <class Value, class Offset, class Index>
status validate_spmv_sizes(const char* fn, const csr_view<Value, Offset, Index>& a) {
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (a.rows < 0) return bad("argument 'A.rows' is negative (" + std::to_string(a.rows) + ")");
  if (a.cols < 0) return bad("argument 'A.cols' is negative (" + std::to_string(a.cols) + ")");
  if (a.nnz < 0) return bad("argument 'A.nnz' is negative (" + std::to_string(a.nnz) + ")");
  if (a.nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    return bad("argument 'A.nnz' (" + std::to_string(a.nnz) + ") does not fit the row offsets' type");
  if (a.cols > 0 && a.cols - 1 > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
    return bad("argument 'A.cols' (" + std::to_string(a.cols) + ") does not fit the column indices' type");
  return status::ok();
}

inline status validate_spmv_strategy(const char* fn, const spmv_options& opt) {
  switch (opt.strategy) {
    case spmv_strategy::automatic:
    case spmv_strategy::merge_path:
    case spmv_strategy::segmented_scan:
    case spmv_strategy::row_groups:
    case spmv_strategy::nonzero_split: return status::ok();
  }
  return invalid_argument(fn, "argument 'options.strategy' is not a strategy this build knows");
}

// The convenience forms make new scratch each call, which holds no plan.
inline status validate_spmv_convenience(const char* fn, const spmv_options& opt) {
  if (opt.prepared)
    return invalid_argument(
        fn, "argument 'options.prepared' needs the two-phase form's temp storage, filled by spmv_prepare");
  return status::ok();
}

// What a product and spmv_prepare both need: the sizes, the row offsets,
// a matrix that can hold its non-zeros, a known strategy; the column
// indices where checked mode reads them.
template <class Value, class Offset, class Index>
status validate_spmv_pattern(const char* fn, const csr_view<Value, Offset, Index>& a, const spmv_options& opt) {
  static_assert(std::is_same_v<Value, float> || std::is_same_v<Value, double>,
                "streamscan::spmv: values are float or double");
  static_assert(std::is_same_v<Offset, std::int32_t> || std::is_same_v<Offset, std::int64_t>,
                "streamscan::spmv: row offsets are int32 or int64");
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "streamscan::spmv: column indices are int32 or int64");
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (status s = validate_spmv_sizes(fn, a); !s) return s;
  if (a.rows > 0 && a.row_offsets == nullptr)
    return bad("argument 'A.row_offsets' is a null pointer while A.rows = " + std::to_string(a.rows));
  if (a.nnz > 0 && a.column_indices == nullptr && opt.checked)
    return bad("argument 'A.column_indices' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.nnz > 0 && a.rows == 0)
    return bad("argument 'A.nnz' is " + std::to_string(a.nnz) + " in a matrix of 0 rows");
  if (a.nnz > 0 && a.cols == 0)
    return bad("argument 'A.nnz' is " + std::to_string(a.nnz) + " in a matrix of 0 columns");
  return validate_spmv_strategy(fn, opt);
}

template <class Value, class Offset, class Index>
status validate_spmv(const char* fn, const csr_view<Value, Offset, Index>& a, const Value* x, const Value* y,
                     const spmv_options& opt) {
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (status s = validate_spmv_pattern(fn, a, opt); !s) return s;
  if (a.nnz > 0 && a.column_indices == nullptr)
    return bad("argument 'A.column_indices' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.nnz > 0 && a.values == nullptr)
    return bad("argument 'A.values' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.nnz > 0 && x == nullptr) return bad("argument 'x' is a null pointer while A.nnz = " + std::to_string(a.nnz));
  if (a.rows > 0 && y == nullptr) return bad("argument 'y' is a null pointer while A.rows = " + std::to_string(a.rows));
  if (a.nnz > 0 && a.rows > 0) {
    const auto xb = reinterpret_cast<std::uintptr_t>(x), yb = reinterpret_cast<std::uintptr_t>(y);
    const auto xe = xb + static_cast<std::uintptr_t>(a.cols) * sizeof(Value);
    const auto ye = yb + static_cast<std::uintptr_t>(a.rows) * sizeof(Value);
    if (xb < ye && yb < xe) return bad("arguments 'x' and 'y' overlap");
  }
  return status::ok();
}

// coo_to_csr's arguments, shared by every back end: sizes, the sort key's
// range, and (not for a size query) no null array where there is work.
template <class I, class V, class O>
status validate_coo_to_csr(const char* fn, std::int64_t rows, std::int64_t cols, std::int64_t nnz, const I* coo_rows,
                           const I* coo_cols, const V* coo_values, const O* row_offsets, const I* columns,
                           const V* values, const std::int64_t* num_entries, bool query) {
  static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                "streamscan::coo_to_csr: indices are int32 or int64");
  static_assert(std::is_same_v<O, std::int32_t> || std::is_same_v<O, std::int64_t>,
                "streamscan::coo_to_csr: row offsets are int32 or int64");
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (rows < 0) return bad("argument 'rows' is negative (" + std::to_string(rows) + ")");
  if (cols < 0) return bad("argument 'cols' is negative (" + std::to_string(cols) + ")");
  if (nnz < 0) return bad("argument 'nnz' is negative (" + std::to_string(nnz) + ")");
  if (cols > 0 && static_cast<std::uint64_t>(rows) > (std::uint64_t{1} << 63) / static_cast<std::uint64_t>(cols))
    return bad("rows * cols does not fit 63 bits (the sort key)");
  if (nnz > 0 && (rows == 0 || cols == 0))
    return bad("argument 'nnz' is " + std::to_string(nnz) + " in a matrix with no rows or columns");
  if (nnz > static_cast<std::int64_t>(std::numeric_limits<O>::max()))
    return bad("argument 'nnz' (" + std::to_string(nnz) + ") does not fit the row offsets' type");
  if (query) return status::ok();
  if (status s = validate_array_arg(fn, coo_rows, "coo_rows", nnz, false); !s) return s;
  if (status s = validate_array_arg(fn, coo_cols, "coo_cols", nnz, false); !s) return s;
  if (status s = validate_array_arg(fn, coo_values, "coo_values", nnz, false); !s) return s;
  if (status s = validate_array_arg(fn, columns, "columns", nnz, false); !s) return s;
  if (status s = validate_array_arg(fn, values, "values", nnz, false); !s) return s;
  if (row_offsets == nullptr) return bad("argument 'row_offsets' is a null pointer (it has rows + 1 entries)");
  if (num_entries == nullptr) return bad("argument 'num_entries' is a null pointer");
  return status::ok();
}

// A triplet whose row or column lies outside the matrix (both back ends).
template <class I>
STREAMSCAN_HOST_DEVICE bool coo_index_outside(I row, I col, std::int64_t rows, std::int64_t cols) {
  return row < 0 || row >= rows || col < 0 || col >= cols;
}

// The message for triplet k (the first outside the matrix).
inline status coo_index_error(const char* fn, std::int64_t k, std::int64_t row, std::int64_t col, std::int64_t rows,
                              std::int64_t cols) {
  if (row < 0 || row >= rows)
    return invalid_argument(fn, "coo_rows[" + std::to_string(k) + "] is " + std::to_string(row) +
                                    ", outside [0, rows = " + std::to_string(rows) + ")");
  return invalid_argument(fn, "coo_cols[" + std::to_string(k) + "] is " + std::to_string(col) +
                                  ", outside [0, cols = " + std::to_string(cols) + ")");
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
