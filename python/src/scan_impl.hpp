// python/src/scan_impl.hpp - plain and segmented scans for one input type.
#pragma once

#include <type_traits>

#include "backend.hpp"
#include "typed.hpp"

#if defined(STREAMSCAN_PY_NCCL)
#include <streamscan/nccl.cuh>
#endif

namespace streamscan::python {

// A plain scan across the ranks of a.comm (streamscan/nccl.cuh); the input
// is of the accumulator's type (the Python side casts it first).
template <class In, class A, class Op>
status ranked_scan(const scan_args& a, Op op, const context& ctx, void* temp, std::size_t& temp_bytes) {
#if defined(STREAMSCAN_PY_NCCL)
  if constexpr (std::is_same_v<In, A>) {
    const auto comm = reinterpret_cast<ncclComm_t>(a.comm);
    const In* in = as_ptr<const In>(a.in);
    A* out = as_ptr<A>(a.out);
    scan_options opt;
    opt.strategy = static_cast<scan_strategy>(a.strategy);
    if (a.exclusive)
      return streamscan::nccl::exclusive_scan(temp, temp_bytes, in, out, a.n, scalar_as<A>(a.init), op, comm,
                                              ctx.stream, opt);
    if (a.has_init) return not_compiled("an inclusive scan across ranks with an initial value");
    return streamscan::nccl::inclusive_scan(temp, temp_bytes, in, out, a.n, op, comm, ctx.stream, opt);
  } else {
    return not_compiled("a scan across ranks whose input is not of the accumulator's dtype");
  }
#else
  (void)a, (void)op, (void)ctx, (void)temp, (void)temp_bytes;
  return not_compiled("scans across ranks (NCCL)");
#endif
}

template <class In>
status scan_typed(const scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_dtype(a.acc_type, [&](auto acc) {
    using A = typename decltype(acc)::type;
    return visit_op(a.op, [&](auto op) -> status {
      if constexpr (plain_scan_v<In, A, decltype(op)>) {
        context ctx(l);
        if (!ctx.state) return ctx.state;
        if (a.comm != 0) return ranked_scan<In, A>(a, op, ctx, temp, temp_bytes);
        const In* in = as_ptr<const In>(a.in);
        A* out = as_ptr<A>(a.out);
        scan_options opt;
        opt.strategy = static_cast<scan_strategy>(a.strategy);
        if (a.exclusive)
          return STREAMSCAN_PY_RUN(exclusive_scan, ctx, opt, temp, temp_bytes, in, out, a.n, scalar_as<A>(a.init), op);
        if (a.has_init)
          return STREAMSCAN_PY_RUN(inclusive_scan_init, ctx, opt, temp, temp_bytes, in, out, a.n, op,
                                   scalar_as<A>(a.init));
        return STREAMSCAN_PY_RUN(inclusive_scan, ctx, opt, temp, temp_bytes, in, out, a.n, op);
      } else {
        return not_compiled("this scan's (input, dtype, op)");
      }
    });
  });
}

template <class T>
status segmented_scan_typed(const scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_op(a.op, [&](auto op) -> status {
    if constexpr (segmented_scan_v<T, T, decltype(op)>) {
      context ctx(l);
      if (!ctx.state) return ctx.state;
      const T* in = as_ptr<const T>(a.in);
      T* out = as_ptr<T>(a.out);
      segmented_options opt;
      opt.direction = a.backward ? scan_direction::backward : scan_direction::forward;
      opt.scan.strategy = static_cast<scan_strategy>(a.strategy);
      auto run = [&](auto segments) {
        if (a.exclusive)
          return STREAMSCAN_PY_RUN(segmented_exclusive_scan, ctx, opt, temp, temp_bytes, in, out, a.n, segments,
                                   scalar_as<T>(a.init), op);
        if (a.has_init)
          return STREAMSCAN_PY_RUN(segmented_inclusive_scan_init, ctx, opt, temp, temp_bytes, in, out, a.n, segments,
                                   op, scalar_as<T>(a.init));
        return STREAMSCAN_PY_RUN(segmented_inclusive_scan, ctx, opt, temp, temp_bytes, in, out, a.n, segments, op);
      };
      if (a.segments == segments_kind::head_flags) return run(head_flags(as_ptr<const bool>(a.segment_data)));
      return run(segment_offsets<const std::int64_t*>{as_ptr<const std::int64_t>(a.segment_data), a.num_segments});
    } else {
      return not_compiled("this segmented scan's (dtype, op)");
    }
  });
}

}  // namespace streamscan::python
