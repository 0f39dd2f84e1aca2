// streamscan/detail/tridiagonal_validate.hpp - the argument checks of
// tridiagonal_solve shared by every back end, and the element addressing of
// both layouts. No CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../status.hpp"
#include "../tridiagonal.hpp"
#include "../tuning/tridiagonal.hpp"

namespace streamscan::detail {

// Where element i of system s lives, and right-hand side r's offset. A
// "system" below is s + r * batch_count: one matrix and one right-hand side.
struct tridiagonal_addressing {
  std::int64_t n = 0, batch = 0, system_stride = 0, element_stride = 0, rhs_stride = 0;
  // Elements one right-hand side of the whole batch spans (and the matrix).
  std::int64_t extent() const { return n == 0 || batch == 0 ? 0 : (batch - 1) * system_stride + (n - 1) * element_stride + 1; }
};

template <class T>
tridiagonal_addressing tridiagonal_address(const tridiagonal_view<T>& a) {
  tridiagonal_addressing m;
  m.n = a.n;
  m.batch = a.batch_count;
  if (a.layout == tridiagonal_layout::interleaved) {
    m.system_stride = 1;
    m.element_stride = a.batch_count;
  } else {
    m.system_stride = a.batch_stride;
    m.element_stride = 1;
  }
  m.rhs_stride = a.rhs_stride != 0 ? a.rhs_stride : m.extent();
  return m;
}

// pointers == false (a size query): the sizes, layout and strategy only.
template <class T>
status validate_tridiagonal(const char* fn, const tridiagonal_view<T>& a, const T* b, const T* x,
                            const tridiagonal_options& opt, bool gpu, bool pointers = true) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "streamscan::tridiagonal_solve: values are float or double");
  auto bad = [&](const std::string& what) { return invalid_argument(fn, what); };
  auto num = [](std::int64_t v) { return std::to_string(v); };
  if (a.n < 0) return bad("argument 'A.n' is negative (" + num(a.n) + ")");
  if (a.batch_count < 0) return bad("argument 'A.batch_count' is negative (" + num(a.batch_count) + ")");
  if (a.rhs_count < 0) return bad("argument 'A.rhs_count' is negative (" + num(a.rhs_count) + ")");
  if (a.layout != tridiagonal_layout::strided && a.layout != tridiagonal_layout::interleaved)
    return bad("argument 'A.layout' is not a layout this build knows");
  if (a.layout == tridiagonal_layout::strided && a.batch_count > 1 && a.batch_stride < a.n)
    return bad("argument 'A.batch_stride' (" + num(a.batch_stride) + ") is less than A.n (" + num(a.n) +
               "): strided systems would overlap");
  if (a.rhs_stride < 0) return bad("argument 'A.rhs_stride' is negative (" + num(a.rhs_stride) + ")");
  switch (opt.strategy) {
    case tridiagonal_strategy::automatic:
    case tridiagonal_strategy::cyclic_reduction:
    case tridiagonal_strategy::parallel_cyclic_reduction:
    case tridiagonal_strategy::hybrid:
    case tridiagonal_strategy::thomas_pcr:
    case tridiagonal_strategy::partitioned:
    case tridiagonal_strategy::thomas:
    case tridiagonal_strategy::warp_pcr: break;
    default: return bad("argument 'options.strategy' is not a strategy this build knows");
  }
  constexpr tuning::tridiagonal_shape shape = tuning::tridiagonal_shape_for(sizeof(T));
  const bool whole_block = opt.strategy == tridiagonal_strategy::cyclic_reduction ||
                           opt.strategy == tridiagonal_strategy::parallel_cyclic_reduction ||
                           opt.strategy == tridiagonal_strategy::hybrid ||
                           opt.strategy == tridiagonal_strategy::thomas_pcr;
  if (gpu && whole_block && a.n > shape.max_block_rows)
    return bad("argument 'options.strategy' (" + std::string(to_string(opt.strategy)) + ") solves a system in one block, " +
               "at most " + num(shape.max_block_rows) + " rows, but A.n = " + num(a.n) +
               " (use partitioned or automatic)");
  if (a.n == 0 || a.batch_count == 0 || a.rhs_count == 0) return status::ok();
  const tridiagonal_addressing m = tridiagonal_address(a);
  if (a.rhs_count > 1 && a.rhs_stride != 0 && a.rhs_stride < m.extent())
    return bad("argument 'A.rhs_stride' (" + num(a.rhs_stride) + ") is less than the " + num(m.extent()) +
               " elements one right-hand side spans: right-hand sides would overlap");
  if (!pointers) return status::ok();
  if (a.lower == nullptr) return bad("argument 'A.lower' is a null pointer");
  if (a.diagonal == nullptr) return bad("argument 'A.diagonal' is a null pointer");
  if (a.upper == nullptr) return bad("argument 'A.upper' is a null pointer");
  if (b == nullptr) return bad("argument 'b' is a null pointer");
  if (x == nullptr) return bad("argument 'x' is a null pointer");
  const auto span = [](const T* p, std::int64_t count) {
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    return std::pair<std::uintptr_t, std::uintptr_t>{lo, lo + static_cast<std::uintptr_t>(count) * sizeof(T)};
  };
  const std::int64_t rhs_extent = (a.rhs_count - 1) * m.rhs_stride + m.extent();
  const auto xs = span(x, rhs_extent), bs = span(b, rhs_extent);
  const auto overlaps = [](auto p, auto q) { return p.first < q.second && q.first < p.second; };
  if (b != x && overlaps(xs, bs)) return bad("arguments 'b' and 'x' overlap without being equal (in place is x == b)");
  const std::pair<const char*, const T*> diagonals[] = {{"A.lower", a.lower}, {"A.diagonal", a.diagonal}, {"A.upper", a.upper}};
  for (const auto& [name, p] : diagonals)
    if (overlaps(xs, span(p, m.extent())))
      return bad(std::string("arguments 'x' and '") + name + "' overlap");
  return status::ok();
}

inline status zero_pivot_error(const char* fn, std::int64_t system, std::int64_t batch_count, const char* where) {
  const std::int64_t s = batch_count > 0 ? system % batch_count : system, r = batch_count > 0 ? system / batch_count : 0;
  return status(errc::zero_pivot, std::string(fn) + ": zero or non-finite pivot in system " + std::to_string(s) +
                                      (r > 0 ? " (right-hand side " + std::to_string(r) + ")" : std::string()) + where +
                                      ": the matrix is singular or far from diagonally dominant (no pivoting); "
                                      "nothing was written");
}

}  // namespace streamscan::detail
