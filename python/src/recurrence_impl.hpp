// python/src/recurrence_impl.hpp - first-order linear recurrences and their
// gradient (streamscan/linear_recurrence.hpp): float32, float64, and float16 /
// bfloat16 with float32 state. Included by one generated translation unit per
// back end (python/CMakeLists.txt).
#pragma once

#include <type_traits>

#include <streamscan/linear_recurrence.hpp>

#include "backend.hpp"
#include "calls.hpp"

namespace streamscan::python {

namespace recurrence_detail {

// The library's type for the module's: its 16-bit floats are the same bits.
template <class T>
struct storage {
  using type = T;
};
template <>
struct storage<python::float16> {
  using type = streamscan::float16;
};
template <>
struct storage<python::bfloat16> {
  using type = streamscan::bfloat16;
};

template <class T>
inline constexpr bool compiled_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                   std::is_same_v<T, python::float16> || std::is_same_v<T, python::bfloat16>;

}  // namespace recurrence_detail

bool linear_recurrence_supported(dtype type) {
  return visit_dtype(type, [](auto t) { return recurrence_detail::compiled_v<typename decltype(t)::type>; });
}

status linear_recurrence(const recurrence_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_dtype(a.type, [&](auto value) -> status {
    using P = typename decltype(value)::type;
    if constexpr (recurrence_detail::compiled_v<P>) {
      using T = typename recurrence_detail::storage<P>::type;
      static_assert(sizeof(T) == sizeof(P), "the same bits");
      context ctx(l);
      if (!ctx.state) return ctx.state;
      recurrence_layout layout;
      layout.batch_count = a.batch_count;
      layout.length = a.length;
      layout.channels = a.channels;
      layout.time_stride = a.time_stride;
      layout.channel_stride = a.channel_stride;
      layout.batch_stride = a.batch_stride;
      recurrence_options opt;
      opt.reverse = a.reverse;
      if (!a.backward) {
        return STREAMSCAN_PY_RUN(linear_recurrence, ctx, opt, temp, temp_bytes, layout, as_ptr<const T>(a.a),
                                 as_ptr<const T>(a.b), as_ptr<T>(a.h), as_ptr<const T>(a.initial));
      }
      return STREAMSCAN_PY_RUN(linear_recurrence_backward, ctx, opt, temp, temp_bytes, layout, as_ptr<const T>(a.a),
                               as_ptr<const T>(a.h), as_ptr<const T>(a.b), as_ptr<const T>(a.initial),
                               as_ptr<T>(a.grad_a), as_ptr<T>(a.grad_b), as_ptr<T>(a.grad_initial));
    } else {
      return not_compiled("a linear recurrence of this dtype (float16, bfloat16, float32 and float64 are)");
    }
  });
}

}  // namespace streamscan::python
