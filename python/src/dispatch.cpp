// python/src/dispatch.cpp - calls.hpp's entry points: pick the per-type half
// (typed.hpp) of each call. Compiled into each extension module with that
// module's back end name; nothing here depends on the back end.
#include <cstddef>
#include <string>

#include "calls.hpp"
#include "typed.hpp"
#include "types.hpp"

#ifndef STREAMSCAN_PY_BACKEND_NAME
#error "STREAMSCAN_PY_BACKEND_NAME names the module's back end (\"cpu\" or \"cuda\")"
#endif

namespace streamscan::python {

namespace {
// A dtype's size in bytes.
std::size_t size_of(dtype t) {
  return visit_dtype(t, [](auto v) { return sizeof(typename decltype(v)::type); });
}

// Visits the unsigned word of a size.
template <class F>
decltype(auto) visit_word(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f(tag<std::uint8_t>{});
    case 2: return f(tag<std::uint16_t>{});
    case 4: return f(tag<std::uint32_t>{});
    default: break;
  }
  return f(tag<std::uint64_t>{});
}
}  // namespace

const char* backend_name() { return STREAMSCAN_PY_BACKEND_NAME; }

bool scan_supported(dtype in, dtype acc, op_code op, bool segmented) {
  return visit_dtype(in, [&](auto i) {
    return visit_dtype(acc, [&](auto a) {
      return visit_op(op, [&](auto o) {
        using In = typename decltype(i)::type;
        using A = typename decltype(a)::type;
        return segmented ? segmented_scan_v<In, A, decltype(o)> : plain_scan_v<In, A, decltype(o)>;
      });
    });
  });
}

bool ranked_scan_compiled() {
#if defined(STREAMSCAN_PY_NCCL)
  return true;
#else
  return false;
#endif
}

status scan(const scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_dtype(a.in_type, [&](auto in) {
    using In = typename decltype(in)::type;
    if (a.segments == segments_kind::none) return scan_typed<In>(a, temp, temp_bytes, l);
    return segmented_scan_typed<In>(a, temp, temp_bytes, l);
  });
}

bool select_supported(dtype type, select_kind kind) {
  return visit_dtype(type, [&](auto t) {
    using T = typename decltype(t)::type;
    return kind == select_kind::compare ? is_number_v<T> : true;
  });
}

status select(const select_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  if (a.kind == select_kind::compare) {
    return visit_dtype(a.type, [&](auto t) { return select_typed<typename decltype(t)::type>(a, temp, temp_bytes, l); });
  }
  return visit_word(size_of(a.type),
                    [&](auto w) { return select_typed<typename decltype(w)::type>(a, temp, temp_bytes, l); });
}

bool sort_supported(dtype key, int value_size) {
  return sort_value_size_ok(value_size) &&
         visit_dtype(key, [](auto k) { return sort_key_v<typename decltype(k)::type>; });
}

status sort(const sort_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return visit_dtype(a.key_type, [&](auto k) { return sort_typed<typename decltype(k)::type>(a, temp, temp_bytes, l); });
}

bool spmv_supported(dtype index, dtype value) {
  return visit_dtype(index, [&](auto i) {
    return visit_dtype(value, [](auto v) {
      return index_v<typename decltype(i)::type> && real_v<typename decltype(v)::type>;
    });
  });
}

status spmv(const spmv_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return spmv_untyped(a, temp, temp_bytes, l);
}

bool tridiagonal_supported(dtype type) {
  return visit_dtype(type, [](auto t) { return real_v<typename decltype(t)::type>; });
}

status tridiagonal(const tridiagonal_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  return tridiagonal_untyped(a, temp, temp_bytes, l);
}

}  // namespace streamscan::python
