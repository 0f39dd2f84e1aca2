// python/src/linalg_impl.hpp - sparse matrix times vector and batched
// tridiagonal solves (float32 and float64). Included by one generated
// translation unit per back end.
#pragma once

#include "backend.hpp"
#include "typed.hpp"

namespace streamscan::python {

template <class V, class I>
status spmv_typed(const spmv_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  if constexpr (real_v<V> && index_v<I>) {
    context ctx(l);
    if (!ctx.state) return ctx.state;
    spmv_options opt;
    opt.strategy = static_cast<spmv_strategy>(a.strategy);
    const auto m = make_csr_view(a.rows, a.cols, a.nnz, as_ptr<const I>(a.offsets), as_ptr<const I>(a.indices),
                                 as_ptr<const V>(a.values));
    return STREAMSCAN_PY_RUN(spmv, ctx, opt, temp, temp_bytes, m, as_ptr<const V>(a.x), as_ptr<V>(a.y),
                             static_cast<V>(a.alpha), static_cast<V>(a.beta));
  } else {
    return not_compiled("this SpMV's (index dtype, value dtype)");
  }
}

status spmv_untyped(const spmv_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_dtype(a.value_type, [&](auto value) {
    return visit_dtype(a.index_type, [&](auto index) {
      return spmv_typed<typename decltype(value)::type, typename decltype(index)::type>(a, temp, temp_bytes, l);
    });
  });
}

status tridiagonal_untyped(const tridiagonal_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_dtype(a.type, [&](auto value) -> status {
    using T = typename decltype(value)::type;
    if constexpr (real_v<T>) {
      context ctx(l);
      if (!ctx.state) return ctx.state;
      tridiagonal_options opt;
      opt.strategy = static_cast<tridiagonal_strategy>(a.strategy);
      opt.checked = a.checked;
      const auto m = make_tridiagonal_view(a.n, a.batch_count, as_ptr<const T>(a.lower), as_ptr<const T>(a.diagonal),
                                           as_ptr<const T>(a.upper));
      return STREAMSCAN_PY_RUN(tridiagonal_solve, ctx, opt, temp, temp_bytes, m, as_ptr<const T>(a.b),
                               as_ptr<T>(a.x));
    } else {
      return not_compiled("this tridiagonal solve's dtype");
    }
  });
}

}  // namespace streamscan::python
