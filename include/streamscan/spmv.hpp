// streamscan/spmv.hpp - sparse matrix times dense vector for CSR matrices,
// shared by every back end. No CUDA.
//
//   y = alpha * A x + beta * y
//
// A is rows x cols in compressed sparse row form (csr_view): row r holds
// non-zeros [row_offsets[r], row_offsets[r+1]), with their columns in
// column_indices and values in values; row_offsets has rows + 1 entries,
// starts at 0, never decreases and ends at nnz (empty rows allowed; column
// order within a row is free, repeated columns add). Offsets and column
// indices may be int32 or int64, each on its own (the offsets must hold nnz,
// the indices cols - 1). Values are float or double; products and sums are
// taken in that type, in row order within what one thread adds.
// With beta == 0, y is only written (NaNs in it do not propagate), as BLAS
// does; x is read only where a row has a non-zero. y must not overlap x.
//
// Preconditions on the structure are trusted by default; options.checked
// tests them first (offsets start at 0, never decrease, end at nnz; every
// column index in [0, cols)), names the first bad entry, and writes nothing
// (on the GPU this costs a pass over offsets and indices and one wait).
//
// Strategies:
//   automatic: the default: row_groups below a mean row length of 8
//     (tuning::spmv_row_groups_below), nonzero_split from it on.
//   row_groups: one or a few lanes of a warp a row (more as the mean row
//     length grows: tuning::spmv_group_lanes), one pass with no search or
//     staging;
//     a row much longer than its group is cut into chunks of a block each,
//     whose sums are added in chunk order.
//   merge_path: the rows and the non-zeros are merged into one sequence and
//     cut into equal tiles (merge path), so neither long nor empty rows
//     unbalance the work; a row split between tiles is finished by a small
//     fix-up pass, in tile order.
//   nonzero_split: the non-zeros are cut into equal tiles whatever the rows
//     (every block gathers as many x's), each tile closes the rows that end
//     in it, and a row split between tiles is finished by the same fix-up
//     as merge_path's. The matrix is read streaming, so that L2 keeps x.
//     A tile writes at most tuning::spmv_split_own_rows times as many rows as
//     it has non-zeros; the rest (runs of empty rows) go to the fix-up in
//     pieces of as many rows, spread over the whole GPU.
//   segmented_scan: [ScanPrimitives] section 4.2 as published: products and
//     zeroed flags, a head flag scattered at every row start, a backward
//     segmented inclusive sum, then each row's first element gathered.
// Every strategy's sums are a fixed sequence of operations for a given
// matrix: results repeat bit for bit (they differ between strategies).
//
// Prepared products (as cusparseSpMV_preprocess): spmv_prepare(temp, ...)
// writes into temp storage what depends on the sparsity pattern alone
// (nonzero_split: each tile's first row and the pieces of rows left to the
// fix-up; merge_path: the tiles' starts; the other strategies: nothing).
// Later calls with options.prepared = true and that temp storage skip that
// work, for any values, x, y, alpha and beta, as long as the row offsets,
// the sizes and the options (but `prepared`) are those it was prepared
// with; the library cannot check that. A stale plan, or temp storage never
// prepared, gives wrong sums; the kernels clamp what they read from it, so
// they still access nothing outside the arrays.
// Results are the same bits as unprepared calls'. The temp storage is the
// same size; a prepared call uses the rest of it as scratch, so two
// prepared calls on one plan must not run at the same time.
#pragma once

#include <cstdint>

namespace streamscan {

enum class spmv_strategy { automatic, merge_path, segmented_scan, row_groups, nonzero_split };

inline const char* to_string(spmv_strategy s) noexcept {
  switch (s) {
    case spmv_strategy::automatic: return "automatic";
    case spmv_strategy::merge_path: return "merge_path";
    case spmv_strategy::segmented_scan: return "segmented_scan";
    case spmv_strategy::row_groups: return "row_groups";
    case spmv_strategy::nonzero_split: return "nonzero_split";
  }
  return "unknown";
}

struct spmv_options {
  spmv_strategy strategy = spmv_strategy::automatic;
  bool checked = false;   // validate offsets and column indices first
  bool prepared = false;  // temp holds spmv_prepare's plan for this matrix's pattern (above)
};

// coo_to_csr's options. Checked mode: the GPU back end first tests every
// index on the device, waits, and names the first one outside the matrix
// (nothing is written); unchecked, an index outside the matrix gives an
// unspecified CSR. The CPU back end always checks.
struct coo_options {
  bool checked = false;
};

// A CSR matrix held elsewhere (device memory for the GPU back end).
template <class Value, class Offset = std::int32_t, class Index = Offset>
struct csr_view {
  using value_type = Value;
  using offset_type = Offset;
  using index_type = Index;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  const Offset* row_offsets = nullptr;    // rows + 1 entries
  const Index* column_indices = nullptr;  // nnz entries
  const Value* values = nullptr;          // nnz entries
};

template <class Value, class Offset, class Index>
csr_view<Value, Offset, Index> make_csr_view(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                             const Offset* row_offsets, const Index* column_indices,
                                             const Value* values) {
  return {rows, cols, nnz, row_offsets, column_indices, values};
}

}  // namespace streamscan
