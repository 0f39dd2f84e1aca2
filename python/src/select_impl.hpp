// python/src/select_impl.hpp - compaction, split and partition for one element
// type. Elements move as unsigned words of their size (the dispatch passes
// that word type); select by comparison reads the type itself.
#pragma once

#include <streamscan/iterators.hpp>

#include "backend.hpp"
#include "typed.hpp"

namespace streamscan::python {

template <class T>
struct compare_to {
  cmp_code cmp;
  T value;
  STREAMSCAN_HOST_DEVICE bool operator()(const T& x) const {
    switch (cmp) {
      case cmp_code::lt: return x < value;
      case cmp_code::le: return x <= value;
      case cmp_code::gt: return x > value;
      case cmp_code::ge: return x >= value;
      case cmp_code::eq: return x == value;
      case cmp_code::ne: break;
    }
    return x != value;
  }
};

struct negate_flag {
  STREAMSCAN_HOST_DEVICE bool operator()(bool f) const { return !f; }
};

template <class T>
status select_typed(const select_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  context ctx(l);
  if (!ctx.state) return ctx.state;
  select_options opt;
  opt.strategy = static_cast<select_strategy>(a.strategy);
  const T* in = as_ptr<const T>(a.in);
  const bool* flags = as_ptr<const bool>(a.flags);
  std::int64_t* num_out = as_ptr<std::int64_t>(a.num_out);
  if (a.kind == select_kind::compare) {
    if constexpr (is_number_v<T>) {
      const compare_to<T> pred{a.cmp, scalar_as<T>(a.value)};
      return STREAMSCAN_PY_RUN(select_if, ctx, opt, temp, temp_bytes, in, as_ptr<T>(a.out), a.n, a.n, num_out, pred);
    }
  } else if constexpr (select_word_v<T>) {
    T* out = as_ptr<T>(a.out);
    switch (a.kind) {
      case select_kind::flagged:
        return STREAMSCAN_PY_RUN(select_flagged, ctx, opt, temp, temp_bytes, in, flags, out, a.n, a.n, num_out);
      case select_kind::indices:
        return STREAMSCAN_PY_RUN(select_indices, ctx, opt, temp, temp_bytes, flags, as_ptr<std::int64_t>(a.out), a.n,
                                 a.n, num_out);
      case select_kind::split:
        return STREAMSCAN_PY_RUN(split, ctx, opt, temp, temp_bytes, in, flags, out, a.n, num_out);
      case select_kind::partition:
        return STREAMSCAN_PY_RUN(split, ctx, opt, temp, temp_bytes, in,
                                 streamscan::make_transform_iterator(flags, negate_flag{}), out, a.n, num_out);
      case select_kind::compare: break;
    }
  }
  return not_compiled("this selection's dtype");
}

}  // namespace streamscan::python
