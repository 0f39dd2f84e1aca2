// streamscan/cpu/coo_to_csr.hpp - a CSR matrix from COO triplets (row, column,
// value) on the CPU, with the GPU's semantics (cuda/device/device_coo_to_csr.cuh):
// the triplets are keyed by row * cols + column and radix sorted (stable), so
// duplicate entries ADD in input order (from 0, as the GPU's reduction does)
// and columns come out sorted within each row; *num_entries (host memory)
// receives the number of distinct entries, also row_offsets[rows]. Unlike the
// GPU back end, the CPU checks every index (it reads them anyway) and names
// the first one outside the matrix; nothing is written then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/spmv_validate.hpp"
#include "../sort.hpp"
#include "../spmv.hpp"
#include "../status.hpp"
#include "parallel.hpp"
#include "scratch.hpp"
#include "sort.hpp"

namespace streamscan::cpu {

template <class I, class V, class O>
[[nodiscard]] status coo_to_csr(void* temp, std::size_t& temp_bytes, std::int64_t rows, std::int64_t cols,
                                std::int64_t nnz, const I* coo_rows, const I* coo_cols, const V* coo_values,
                                O* row_offsets, I* columns, V* values, std::int64_t* num_entries,
                                coo_options = {}) {  // the CPU always checks the indices
  const char* fn = "streamscan::cpu::coo_to_csr";
  if (status s = streamscan::detail::validate_coo_to_csr(fn, rows, cols, nnz, coo_rows, coo_cols, coo_values,
                                                          row_offsets, columns, values, num_entries, temp == nullptr);
      !s)
    return s;
  // Temp, from an aligned start: the keys, the sorted keys and values, then the sort's own.
  using streamscan::detail::temp_bytes_for;
  const std::size_t key_bytes = temp_bytes_for<std::uint64_t>(nnz), value_bytes = temp_bytes_for<V>(nnz);
  sort_options by_key;  // the bits a key can have
  by_key.end_bit = 1;
  while (by_key.end_bit < 63 &&
         (std::uint64_t{1} << by_key.end_bit) < static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols))
    ++by_key.end_bit;
  std::size_t sort_bytes = 0;
  if (status s = radix_sort_pairs(nullptr, sort_bytes, static_cast<const std::uint64_t*>(nullptr),
                                  static_cast<std::uint64_t*>(nullptr), static_cast<const V*>(nullptr),
                                  static_cast<V*>(nullptr), nnz, by_key);
      !s)
    return s;
  const std::size_t required = detail::sort_temp_align - 1 + 2 * key_bytes + value_bytes + sort_bytes;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  for (std::int64_t k = 0; k < nnz; ++k)
    if (streamscan::detail::coo_index_outside(coo_rows[k], coo_cols[k], rows, cols))
      return streamscan::detail::coo_index_error(fn, k, coo_rows[k], coo_cols[k], rows, cols);

  unsigned char* base = detail::sort_align(temp);
  auto* keys = reinterpret_cast<std::uint64_t*>(base);
  auto* sorted_keys = reinterpret_cast<std::uint64_t*>(base + key_bytes);
  auto* sorted_values = reinterpret_cast<V*>(base + 2 * key_bytes);
  const auto ucols = static_cast<std::uint64_t>(cols);
  detail::parallel_for((nnz + 65535) / 65536, [&](std::int64_t task) {
    const std::int64_t end = (task + 1) * 65536 < nnz ? (task + 1) * 65536 : nnz;
    for (std::int64_t k = task * 65536; k < end; ++k)
      keys[k] = static_cast<std::uint64_t>(coo_rows[k]) * ucols + static_cast<std::uint64_t>(coo_cols[k]);
  });
  if (status s = radix_sort_pairs(base + 2 * key_bytes + value_bytes, sort_bytes, static_cast<const std::uint64_t*>(keys),
                                  sorted_keys, coo_values, sorted_values, nnz, by_key);
      !s)
    return s;

  for (std::int64_t r = 0; r <= rows; ++r) row_offsets[r] = 0;
  std::int64_t entries = 0;
  for (std::int64_t k = 0; k < nnz; ++k) {
    if (k == 0 || sorted_keys[k] != sorted_keys[k - 1]) {
      columns[entries] = static_cast<I>(sorted_keys[k] % ucols);
      values[entries] = V(0);
      ++row_offsets[sorted_keys[k] / ucols + 1];
      ++entries;
    }
    values[entries - 1] += sorted_values[k];
  }
  for (std::int64_t r = 0; r < rows; ++r) row_offsets[r + 1] += row_offsets[r];
  *num_entries = entries;
  return status::ok();
}

// Convenience form: heap scratch; returns the number of distinct entries; throws.
template <class I, class V, class O>
std::int64_t coo_to_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const I* coo_rows, const I* coo_cols,
                        const V* coo_values, O* row_offsets, I* columns, V* values, coo_options opt = {}) {
  return detail::with_heap_count([&](void* t, std::size_t& b, std::int64_t* c) {
    return coo_to_csr(t, b, rows, cols, nnz, coo_rows, coo_cols, coo_values, row_offsets, columns, values, c, opt);
  });
}

}  // namespace streamscan::cpu
