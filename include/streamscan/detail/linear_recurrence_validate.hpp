// streamscan/detail/linear_recurrence_validate.hpp - the argument checks of
// linear_recurrence and linear_recurrence_backward shared by every back end,
// and the element addressing of a recurrence_layout. No CUDA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "../linear_recurrence.hpp"
#include "../status.hpp"

namespace streamscan::detail {

// Elements one array of the layout spans (0 when it holds none).
inline std::int64_t recurrence_extent(const recurrence_layout& l) {
  if (l.batch_count <= 0 || l.channels <= 0 || l.length <= 0) return 0;
  return (l.batch_count - 1) * l.batch_stride + (l.channels - 1) * l.channel_stride + (l.length - 1) * l.time_stride +
         1;
}

// Where sequence s starts.
inline std::int64_t recurrence_row(const recurrence_layout& l, std::int64_t s) {
  return (s / l.channels) * l.batch_stride + (s % l.channels) * l.channel_stride;
}

// The layout's own checks: sizes, strides, and that no two elements share an
// address (each dimension of more than one element has a stride at least the
// span of the dimensions with smaller strides).
inline status validate_recurrence_layout(const char* fn, const recurrence_layout& l) {
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  auto num = [](std::int64_t v) { return std::to_string(v); };
  if (l.batch_count < 0) return bad("argument 'layout.batch_count' is negative (" + num(l.batch_count) + ")");
  if (l.length < 0) return bad("argument 'layout.length' is negative (" + num(l.length) + ")");
  if (l.channels < 0) return bad("argument 'layout.channels' is negative (" + num(l.channels) + ")");
  if (l.time_stride < 0) return bad("argument 'layout.time_stride' is negative (" + num(l.time_stride) + ")");
  if (l.channel_stride < 0)
    return bad("argument 'layout.channel_stride' is negative (" + num(l.channel_stride) + ")");
  if (l.batch_stride < 0) return bad("argument 'layout.batch_stride' is negative (" + num(l.batch_stride) + ")");
  if (recurrence_extent(l) == 0) return status::ok();
  struct dim {
    std::int64_t stride, size;
    const char* name;
  };
  dim d[3] = {{l.time_stride, l.length, "layout.time_stride"},
              {l.channel_stride, l.channels, "layout.channel_stride"},
              {l.batch_stride, l.batch_count, "layout.batch_stride"}};
  std::stable_sort(d, d + 3, [](const dim& x, const dim& y) { return x.stride < y.stride; });
  std::int64_t span = 1;  // elements the smaller dimensions span
  for (const dim& x : d) {
    if (x.size <= 1) continue;
    if (x.stride < span)
      return bad(std::string("argument '") + x.name + "' (" + num(x.stride) + ") is less than the " + num(span) +
                 " elements the dimensions inside it span: elements would overlap");
    span = (x.size - 1) * x.stride + span;
  }
  return status::ok();
}

// Bytes [first, last) an array of `count` T at p covers.
template <class T>
std::pair<std::uintptr_t, std::uintptr_t> recurrence_span(const T* p, std::int64_t count) {
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  return {lo, lo + static_cast<std::uintptr_t>(count) * sizeof(T)};
}
inline bool spans_overlap(std::pair<std::uintptr_t, std::uintptr_t> p, std::pair<std::uintptr_t, std::uintptr_t> q) {
  return p.first < q.second && q.first < p.second;
}

// linear_recurrence: pointers == false (a size query) checks the layout only.
template <class T>
status validate_linear_recurrence(const char* fn, const recurrence_layout& l, const T* a, const T* b, const T* h,
                                  const T* initial, bool pointers) {
  if (status s = validate_recurrence_layout(fn, l); !s) return s;
  const std::int64_t extent = recurrence_extent(l);
  if (!pointers || extent == 0) return status::ok();
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (a == nullptr) return bad("argument 'a' is a null pointer");
  if (b == nullptr) return bad("argument 'b' is a null pointer");
  if (h == nullptr) return bad("argument 'h' is a null pointer");
  const auto hs = recurrence_span(h, extent);
  if (h != a && spans_overlap(hs, recurrence_span(a, extent)))
    return bad("arguments 'h' and 'a' overlap without being equal (in place is h == a or h == b)");
  if (h != b && spans_overlap(hs, recurrence_span(b, extent)))
    return bad("arguments 'h' and 'b' overlap without being equal (in place is h == a or h == b)");
  if (initial != nullptr && spans_overlap(hs, recurrence_span(initial, l.sequences())))
    return bad("arguments 'h' and 'initial' overlap");
  return status::ok();
}

// linear_recurrence_backward.
template <class T>
status validate_linear_recurrence_backward(const char* fn, const recurrence_layout& l, const T* a, const T* h,
                                           const T* dh, const T* initial, const T* grad_a, const T* grad_b,
                                           const T* grad_initial, bool pointers) {
  if (status s = validate_recurrence_layout(fn, l); !s) return s;
  const std::int64_t extent = recurrence_extent(l);
  if (!pointers || extent == 0) return status::ok();
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  if (a == nullptr) return bad("argument 'a' is a null pointer");
  if (h == nullptr) return bad("argument 'h' is a null pointer");
  if (dh == nullptr) return bad("argument 'dh' is a null pointer");
  if (grad_a == nullptr) return bad("argument 'grad_a' is a null pointer");
  if (grad_b == nullptr) return bad("argument 'grad_b' is a null pointer");
  const auto ga = recurrence_span(grad_a, extent), gb = recurrence_span(grad_b, extent);
  const std::int64_t seqs = l.sequences();
  const std::pair<const char*, std::pair<std::uintptr_t, std::uintptr_t>> inputs[] = {
      {"a", recurrence_span(a, extent)},
      {"h", recurrence_span(h, extent)},
      {"dh", recurrence_span(dh, extent)},
      {"initial", initial ? recurrence_span(initial, seqs) : std::pair<std::uintptr_t, std::uintptr_t>{0, 0}}};
  for (const auto& [name, span] : inputs)
    if (spans_overlap(ga, span)) return bad(std::string("arguments 'grad_a' and '") + name + "' overlap");
  for (const auto& [name, span] : inputs) {
    if (std::string(name) == "dh" && grad_b == dh) continue;  // in place
    if (spans_overlap(gb, span))
      return bad(std::string("arguments 'grad_b' and '") + name + "' overlap" +
                 (std::string(name) == "dh" ? " without being equal (in place is grad_b == dh)" : ""));
  }
  if (spans_overlap(ga, gb)) return bad("arguments 'grad_a' and 'grad_b' overlap");
  if (grad_initial != nullptr) {
    const auto gi = recurrence_span(grad_initial, seqs);
    for (const auto& [name, span] : inputs)
      if (spans_overlap(gi, span)) return bad(std::string("arguments 'grad_initial' and '") + name + "' overlap");
    if (spans_overlap(gi, ga) || spans_overlap(gi, gb))
      return bad("argument 'grad_initial' overlaps 'grad_a' or 'grad_b'");
  }
  return status::ok();
}

}  // namespace streamscan::detail
