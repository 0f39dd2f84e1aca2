// streamscan/cpu/spmv.hpp - y = alpha * A x + beta * y on the CPU (semantics in
// streamscan/spmv.hpp): rows in parallel, a block of rows per task. Both
// strategies compute the same sums in the same order here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../detail/spmv_validate.hpp"
#include "../spmv.hpp"
#include "../status.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace streamscan::cpu {

// Two-phase form, like the GPU's (no temp storage is needed: a query gets 1 byte).
template <class Value, class Offset, class Index>
[[nodiscard]] status spmv(void* temp, std::size_t& temp_bytes, const csr_view<Value, Offset, Index>& a, const Value* x,
                          Value* y, Value alpha, Value beta, spmv_options opt = {}) {
  const char* fn = "streamscan::cpu::spmv";
  if (temp == nullptr) {
    temp_bytes = 1;
    return status::ok();
  }
  if (status s = streamscan::detail::validate_spmv(fn, a, x, y, opt); !s) return s;
  if (opt.checked)
    if (status s = streamscan::detail::check_csr_structure(fn, a.rows, a.cols, a.nnz, a.row_offsets, a.column_indices);
        !s)
      return s;
  constexpr std::int64_t rows_per_task = 2048;
  detail::parallel_for((a.rows + rows_per_task - 1) / rows_per_task, [&](std::int64_t task) {
    const std::int64_t end = (task + 1) * rows_per_task < a.rows ? (task + 1) * rows_per_task : a.rows;
    for (std::int64_t r = task * rows_per_task; r < end; ++r) {
      Value sum = 0;
      for (std::int64_t k = a.row_offsets[r]; k < static_cast<std::int64_t>(a.row_offsets[r + 1]); ++k)
        sum += a.values[k] * x[a.column_indices[k]];
      y[r] = beta == Value(0) ? alpha * sum : alpha * sum + beta * y[r];
    }
  });
  return status::ok();
}

// spmv_prepare, as the GPU's (streamscan/spmv.hpp): the CPU's products
// plan nothing, so this checks the pattern (and its structure in checked
// mode) and leaves temp alone; prepared calls run as unprepared ones.
template <class Value, class Offset, class Index>
[[nodiscard]] status spmv_prepare(void* temp, std::size_t& temp_bytes, const csr_view<Value, Offset, Index>& a,
                                  spmv_options opt = {}) {
  const char* fn = "streamscan::cpu::spmv_prepare";
  if (temp == nullptr) {
    temp_bytes = 1;
    return status::ok();
  }
  if (status s = streamscan::detail::validate_spmv_pattern(fn, a, opt); !s) return s;
  if (opt.checked)
    return streamscan::detail::check_csr_structure(fn, a.rows, a.cols, a.nnz, a.row_offsets, a.column_indices);
  return status::ok();
}

// Convenience form: throws streamscan::error.
template <class Value, class Offset, class Index>
void spmv(const csr_view<Value, Offset, Index>& a, const Value* x, Value* y, Value alpha, Value beta,
          spmv_options opt = {}) {
  throw_if_error(streamscan::detail::validate_spmv_convenience("streamscan::cpu::spmv", opt));
  detail::with_heap_scratch([&](void* t, std::size_t& b) { return spmv(t, b, a, x, y, alpha, beta, opt); });
}

}  // namespace streamscan::cpu
