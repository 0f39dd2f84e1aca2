// streamscan/cpu/linear_recurrence.hpp - first-order linear recurrences on the
// CPU (semantics in streamscan/linear_recurrence.hpp): each sequence a
// sequential loop in the state type, sequences in parallel. Same names and
// argument order as the CUDA back end, less the stream; no temp storage is
// used (a size query answers 1 byte).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../detail/linear_recurrence_validate.hpp"
#include "../detail/validate.hpp"
#include "../linear_recurrence.hpp"
#include "../status.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace streamscan::cpu {

template <class T>
[[nodiscard]] status linear_recurrence(void* temp, std::size_t& temp_bytes, const recurrence_layout& layout,
                                       const T* a, const T* b, T* h, const T* initial = nullptr,
                                       recurrence_options opt = {}) {
  const char* fn = "streamscan::cpu::linear_recurrence";
  using tr = streamscan::detail::recurrence_traits<T>;
  using S = typename tr::state;
  if (status s = streamscan::detail::validate_linear_recurrence(fn, layout, a, b, h, initial, temp != nullptr); !s)
    return s;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, 1); t.done) return t.result;
  if (streamscan::detail::recurrence_extent(layout) == 0) return status::ok();
  const std::int64_t n = layout.length, dt = opt.reverse ? -layout.time_stride : layout.time_stride;
  detail::parallel_for(layout.sequences(), [&](std::int64_t s) {
    std::int64_t at = streamscan::detail::recurrence_row(layout, s) + (opt.reverse ? (n - 1) * layout.time_stride : 0);
    S x = initial != nullptr ? tr::load(initial[s]) : S(0);
    for (std::int64_t i = 0; i < n; ++i, at += dt) {
      x = streamscan::detail::step(tr::load(a[at]), x, tr::load(b[at]));
      h[at] = tr::store(x);
    }
  });
  return status::ok();
}

template <class T>
void linear_recurrence(const recurrence_layout& layout, const T* a, const T* b, T* h, const T* initial = nullptr,
                       recurrence_options opt = {}) {
  detail::with_heap_scratch(
      [&](void* t, std::size_t& bytes) { return linear_recurrence(t, bytes, layout, a, b, h, initial, opt); });
}

// The gradient (streamscan/linear_recurrence.hpp): dh, a and the forward's h
// in, grad_a and grad_b out, and grad_initial where not null.
template <class T>
[[nodiscard]] status linear_recurrence_backward(void* temp, std::size_t& temp_bytes, const recurrence_layout& layout,
                                                const T* a, const T* h, const T* dh, const T* initial, T* grad_a,
                                                T* grad_b, T* grad_initial = nullptr, recurrence_options opt = {}) {
  const char* fn = "streamscan::cpu::linear_recurrence_backward";
  using tr = streamscan::detail::recurrence_traits<T>;
  using S = typename tr::state;
  if (status s = streamscan::detail::validate_linear_recurrence_backward(fn, layout, a, h, dh, initial, grad_a, grad_b,
                                                                        grad_initial, temp != nullptr);
      !s)
    return s;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, 1); t.done) return t.result;
  if (streamscan::detail::recurrence_extent(layout) == 0) return status::ok();
  const std::int64_t n = layout.length;
  // In "forward time" u (u = t forward, u = n - 1 - t reverse): g[u] =
  // a[u+1] g[u+1] + dh[u], walked from u = n - 1 down.
  const std::int64_t du = opt.reverse ? -layout.time_stride : layout.time_stride;
  detail::parallel_for(layout.sequences(), [&](std::int64_t s) {
    const std::int64_t first = streamscan::detail::recurrence_row(layout, s) +
                               (opt.reverse ? (n - 1) * layout.time_stride : 0);  // u = 0
    const S h0 = initial != nullptr ? tr::load(initial[s]) : S(0);
    S g = 0, a_next = 0;
    for (std::int64_t u = n - 1; u >= 0; --u) {
      const std::int64_t at = first + u * du;
      g = streamscan::detail::step(a_next, g, tr::load(dh[at]));
      const S a_here = tr::load(a[at]);
      const S h_prev = u > 0 ? tr::load(h[at - du]) : h0;
      grad_a[at] = tr::store(g * h_prev);  // before grad_b: grad_b may be dh, not h
      grad_b[at] = tr::store(g);
      a_next = a_here;
    }
    if (grad_initial != nullptr) grad_initial[s] = tr::store(a_next * g);
  });
  return status::ok();
}

template <class T>
void linear_recurrence_backward(const recurrence_layout& layout, const T* a, const T* h, const T* dh,
                                const T* initial, T* grad_a, T* grad_b, T* grad_initial = nullptr,
                                recurrence_options opt = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& bytes) {
    return linear_recurrence_backward(t, bytes, layout, a, h, dh, initial, grad_a, grad_b, grad_initial, opt);
  });
}

}  // namespace streamscan::cpu
