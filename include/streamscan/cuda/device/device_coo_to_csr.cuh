// streamscan/cuda/device/device_coo_to_csr.cuh - builds a CSR matrix from
// COO triplets (row, column, value) on the GPU, from the library's own
// primitives: the triplets are keyed by row * cols + column and radix sorted
// (stable: duplicates keep their input order), head flags mark each new key,
// a segmented reduction sums the values of equal keys (so duplicate entries
// ADD, in input order), compaction keeps one key per entry, and a binary
// search per row finds the row offsets.
//
//   coo_to_csr(temp, temp_bytes, rows, cols, nnz, coo_rows, coo_cols, coo_values,
//              row_offsets (rows + 1), columns (nnz), values (nnz), num_entries, stream)
//
// The outputs have room for nnz entries; *num_entries (device memory)
// receives how many distinct (row, column) entries there are (<= nnz), which
// is also row_offsets[rows]. Columns come out sorted within each row. Indices
// must lie in [0, rows) and [0, cols): checked mode (coo_options) tests them
// first and names the first one outside. Two-phase form (temp ==
// nullptr -> temp_bytes; returns a status) and a convenience form that
// returns the entry count (it waits for the stream) and throws.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "../../detail/spmv_validate.hpp"
#include "../../detail/validate.hpp"
#include "../../segmented.hpp"
#include "../../status.hpp"
#include "../kernels/spmv_kernels.cuh"
#include "../util/runtime.cuh"
#include "device_scan.cuh"
#include "device_segmented_reduce.cuh"
#include "device_select.cuh"
#include "device_sort.cuh"

namespace streamscan::cuda {

namespace detail {
// Checked mode: tests every triplet on the device, waits, and returns the
// first one outside the matrix as the CPU back end words it.
template <class I>
status check_coo_indices_on_device(const char* fn, const I* coo_rows, const I* coo_cols, std::int64_t nnz,
                                   std::int64_t rows, std::int64_t cols, unsigned long long* record,
                                   cudaStream_t stream) {
  unsigned long long found[3] = {0, 0, 0};
  const status s = device_check(fn, "the index check", record, stream, found, [&] {
    status launched = launch(fn, "check_coo_indices_kernel", check_coo_indices_kernel<I>, grid_for(nnz, 8192), 256,
                             stream, coo_rows, coo_cols, nnz, rows, cols, record);
    if (launched)
      launched = launch(fn, "describe_coo_index_kernel", describe_coo_index_kernel<I>, 1, 1, stream, coo_rows,
                        coo_cols, record);
    return launched;
  });
  if (!s) return s;
  if (found[0] == ~0ull) return status::ok();
  return streamscan::detail::coo_index_error(fn, static_cast<std::int64_t>(found[0]), static_cast<std::int64_t>(found[1]),
                                             static_cast<std::int64_t>(found[2]), rows, cols);
}
}  // namespace detail

template <class I, class V, class O>
[[nodiscard]] status coo_to_csr(void* temp, std::size_t& temp_bytes, std::int64_t rows, std::int64_t cols,
                                std::int64_t nnz, const I* coo_rows, const I* coo_cols, const V* coo_values,
                                O* row_offsets, I* columns, V* values, std::int64_t* num_entries,
                                cudaStream_t stream = nullptr, coo_options opt = {}) {
  const char* fn = "streamscan::cuda::coo_to_csr";
  if (status st = streamscan::detail::validate_coo_to_csr(fn, rows, cols, nnz, coo_rows, coo_cols, coo_values,
                                                           row_offsets, columns, values, num_entries, temp == nullptr);
      !st)
    return st;
  // Temp: keys (2 buffers), sorted values, head flags, unique keys, then the
  // largest of the sort's, the reduction's and the compaction's own temp.
  using streamscan::detail::temp_bytes_for;
  const std::size_t key_bytes = detail::round_up_256(temp_bytes_for<std::uint64_t>(nnz));
  const std::size_t value_bytes = detail::round_up_256(temp_bytes_for<V>(nnz));
  const std::size_t flag_bytes = detail::round_up_256(temp_bytes_for<unsigned char>(nnz));
  int key_bits = 1;
  while (key_bits < 63 && (std::uint64_t{1} << key_bits) < static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols))
    ++key_bits;
  sort_options sort_opt;
  sort_opt.end_bit = key_bits;
  std::size_t sort_bytes = 0, reduce_bytes = 0, select_bytes = 0;
  const unsigned char placeholder = 0;  // size queries read no flags but refuse a null pointer
  if (status s = radix_sort_pairs(nullptr, sort_bytes, static_cast<const std::uint64_t*>(nullptr),
                                  static_cast<std::uint64_t*>(nullptr), static_cast<const V*>(nullptr),
                                  static_cast<V*>(nullptr), nnz, stream, sort_opt);
      !s)
    return s;
  if (status s = segmented_reduce(nullptr, reduce_bytes, static_cast<const V*>(nullptr), static_cast<V*>(nullptr), nnz,
                                  head_flags{&placeholder}, V(0), streamscan::plus{}, stream, num_entries);
      !s)
    return s;
  if (status s = select_flagged(nullptr, select_bytes, static_cast<const std::uint64_t*>(nullptr), &placeholder,
                                static_cast<std::uint64_t*>(nullptr), nnz, nnz, num_entries, stream);
      !s)
    return s;
  std::size_t work = sort_bytes > reduce_bytes ? sort_bytes : reduce_bytes;
  work = select_bytes > work ? select_bytes : work;
  const std::size_t required = 3 * key_bytes + value_bytes + flag_bytes + detail::round_up_256(work) + 255;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  {
    detail::device_facts facts;
    if (status s = detail::current_device_facts(fn, facts); !s) return s;
    if (status s = detail::check_accessible_args(fn, facts, "row_offsets", row_offsets, "num_entries", num_entries,
                                                 "temp", temp);
        !s)
      return s;
    if (nnz > 0)
      if (status s = detail::check_accessible_args(fn, facts, "coo_rows", coo_rows, "coo_cols", coo_cols, "coo_values",
                                                   coo_values, "columns", columns, "values", values);
          !s)
        return s;
  }

  unsigned char* base = static_cast<unsigned char*>(detail::aligned_256(temp));
  if (opt.checked && nnz > 0)  // before anything is written; the keys' room holds the record
    if (status st = detail::check_coo_indices_on_device(fn, coo_rows, coo_cols, nnz, rows, cols,
                                                         reinterpret_cast<unsigned long long*>(base), stream);
        !st)
      return st;
  auto* keys = reinterpret_cast<std::uint64_t*>(base);
  auto* sorted_keys = reinterpret_cast<std::uint64_t*>(base + key_bytes);
  auto* unique_keys = reinterpret_cast<std::uint64_t*>(base + 2 * key_bytes);
  auto* sorted_values = reinterpret_cast<V*>(base + 3 * key_bytes);
  unsigned char* heads = base + 3 * key_bytes + value_bytes;
  void* work_area = base + 3 * key_bytes + value_bytes + flag_bytes;
  const char* what = "launching a kernel of coo_to_csr";
  status s = status::ok();
  if (nnz == 0) {
    if (const cudaError_t e = cudaMemsetAsync(num_entries, 0, sizeof(std::int64_t), stream); e != cudaSuccess) {
      cudaGetLastError();
      return detail::cuda_status(fn, "zeroing 'num_entries' (cudaMemsetAsync)", e);
    }
  } else {
    s = detail::launch(fn, what, detail::coo_keys_kernel<I>, detail::grid_for(nnz, 8192), 256, stream, coo_rows,
                       coo_cols, nnz, static_cast<std::uint64_t>(cols), keys);
    std::size_t b = sort_bytes;
    if (s) s = radix_sort_pairs(work_area, b, static_cast<const std::uint64_t*>(keys), sorted_keys, coo_values,
                                sorted_values, nnz, stream, sort_opt);
    if (s) s = detail::launch(fn, what, detail::coo_heads_kernel<0>, detail::grid_for(nnz, 8192), 256, stream,
                              static_cast<const std::uint64_t*>(sorted_keys), nnz, heads);
    b = reduce_bytes;
    if (s) s = segmented_reduce(work_area, b, static_cast<const V*>(sorted_values), values, nnz,
                                head_flags{heads}, V(0), streamscan::plus{}, stream, num_entries);
    b = select_bytes;
    if (s) s = select_flagged(work_area, b, static_cast<const std::uint64_t*>(sorted_keys),
                              static_cast<const unsigned char*>(heads), unique_keys, nnz, nnz, num_entries, stream);
  }
  if (s) s = detail::launch(fn, what, detail::coo_finish_kernel<O, I>, detail::grid_for(nnz > rows ? nnz : rows + 1, 8192),
                            256, stream, static_cast<const std::uint64_t*>(unique_keys),
                            static_cast<const std::int64_t*>(num_entries), rows, static_cast<std::uint64_t>(cols),
                            row_offsets, columns);
  return s;
}

// Convenience form: returns the number of distinct entries (waits for the stream).
template <class I, class V, class O>
std::int64_t coo_to_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const I* coo_rows, const I* coo_cols,
                        const V* coo_values, O* row_offsets, I* columns, V* values, cudaStream_t stream = nullptr,
                        coo_options opt = {}) {
  return detail::with_count("streamscan::cuda::coo_to_csr", stream, [&](void* t, std::size_t& b, std::int64_t* c) {
    return coo_to_csr(t, b, rows, cols, nnz, coo_rows, coo_cols, coo_values, row_offsets, columns, values, c, stream,
                      opt);
  });
}

}  // namespace streamscan::cuda
