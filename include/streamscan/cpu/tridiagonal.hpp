// streamscan/cpu/tridiagonal.hpp - batches of tridiagonal systems on the CPU
// (semantics in streamscan/tridiagonal.hpp): the Thomas algorithm, systems in
// parallel. Every strategy of the options runs it.
//
// The forward sweep's factors u[i] = upper[i] / (diagonal[i] - lower[i] u[i-1])
// depend on the matrix only: a first pass computes them for every system
// into temp storage (n * batch_count values) and finds any zero pivot before
// anything is written; the second pass sweeps each right-hand side forward
// into x and back.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../detail/tridiagonal_validate.hpp"
#include "../detail/validate.hpp"
#include "../status.hpp"
#include "../tridiagonal.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace streamscan::cpu {

template <class T>
[[nodiscard]] status tridiagonal_solve(void* temp, std::size_t& temp_bytes, const tridiagonal_view<T>& a, const T* b,
                                       T* x, tridiagonal_options opt = {}) {
  const char* fn = "streamscan::cpu::tridiagonal_solve";
  const bool empty = a.n <= 0 || a.batch_count <= 0;
  const std::size_t needed = empty ? 1 : static_cast<std::size_t>(a.n) * static_cast<std::size_t>(a.batch_count) * sizeof(T);
  if (status s = streamscan::detail::validate_tridiagonal(fn, a, b, x, opt, false, temp != nullptr); !s) return s;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, needed); t.done) return t.result;
  if (empty || a.rhs_count == 0) return status::ok();
  const streamscan::detail::tridiagonal_addressing m = streamscan::detail::tridiagonal_address(a);
  T* factors = static_cast<T*>(temp);  // system s's at [s * n, (s + 1) * n)
  const std::int64_t n = a.n;
  auto usable = [](T p) { return std::fabs(p) > T(0) && std::fabs(p) <= std::numeric_limits<T>::max(); };

  // Pass 1: the factors, and the first row of each system whose pivot fails.
  std::vector<std::int64_t> failed_row(static_cast<std::size_t>(a.batch_count), -1);
  detail::parallel_for(a.batch_count, [&](std::int64_t s) {
    T* u = factors + s * n;
    T prev = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t at = s * m.system_stride + i * m.element_stride;
      const T pivot = i == 0 ? a.diagonal[at] : a.diagonal[at] - a.lower[at] * prev;
      if (!usable(pivot)) {
        failed_row[static_cast<std::size_t>(s)] = i;
        return;
      }
      prev = u[i] = i + 1 < n ? a.upper[at] / pivot : T(0);
    }
  });
  for (std::int64_t s = 0; s < a.batch_count; ++s)
    if (failed_row[static_cast<std::size_t>(s)] >= 0)
      return streamscan::detail::zero_pivot_error(
          fn, s, a.batch_count, (" at row " + std::to_string(failed_row[static_cast<std::size_t>(s)])).c_str());

  // Pass 2: every (system, right-hand side).
  detail::parallel_for(a.batch_count * a.rhs_count, [&](std::int64_t sr) {
    const std::int64_t s = sr % a.batch_count, r = sr / a.batch_count;
    const T* u = factors + s * n;
    const std::int64_t base = s * m.system_stride, rhs = r * m.rhs_stride;
    T prev = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t at = base + i * m.element_stride;
      const T l = i == 0 ? T(0) : a.lower[at];
      const T pivot = a.diagonal[at] - l * (i == 0 ? T(0) : u[i - 1]);
      prev = x[rhs + at] = (b[rhs + at] - l * prev) / pivot;
    }
    for (std::int64_t i = n - 2; i >= 0; --i) {
      const std::int64_t at = base + i * m.element_stride;
      prev = x[rhs + at] = x[rhs + at] - u[i] * prev;
    }
  });
  return status::ok();
}

// Convenience form: throws streamscan::error.
template <class T>
void tridiagonal_solve(const tridiagonal_view<T>& a, const T* b, T* x, tridiagonal_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& bytes) { return tridiagonal_solve(t, bytes, a, b, x, opt); });
}

}  // namespace streamscan::cpu
