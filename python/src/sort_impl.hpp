// python/src/sort_impl.hpp - radix sorts for one key type; values move as
// unsigned words of their size.
#pragma once

#include "backend.hpp"
#include "typed.hpp"

#if defined(STREAMSCAN_PY_NCCL)
#include <streamscan/nccl.cuh>
#endif

namespace streamscan::python {

template <class K>
status sort_typed(const sort_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  if constexpr (sort_key_v<K>) {
    context ctx(l);
    if (!ctx.state) return ctx.state;
    sort_options opt;
    opt.strategy = static_cast<sort_strategy>(a.strategy);
    opt.order = a.descending ? sort_order::descending : sort_order::ascending;
    opt.begin_bit = a.begin_bit;
    opt.end_bit = a.end_bit;
    const K* keys_in = as_ptr<const K>(a.keys_in);
    K* keys_out = as_ptr<K>(a.keys_out);
    auto pairs = [&](auto word) {
      using V = typename decltype(word)::type;
      return STREAMSCAN_PY_RUN(radix_sort_pairs, ctx, opt, temp, temp_bytes, keys_in, keys_out,
                               as_ptr<const V>(a.values_in), as_ptr<V>(a.values_out), a.n);
    };
    if (a.comm != 0) {
#if defined(STREAMSCAN_PY_NCCL)
      const auto comm = reinterpret_cast<ncclComm_t>(a.comm);
      std::int64_t count = 0;
      auto ranked_pairs = [&](auto word) {
        using V = typename decltype(word)::type;
        return streamscan::nccl::sort_pairs(temp, temp_bytes, keys_in, keys_out, as_ptr<const V>(a.values_in),
                                            as_ptr<V>(a.values_out), a.n, a.capacity, count, comm, ctx.stream, opt);
      };
      switch (a.value_size) {
        case 0:
          return streamscan::nccl::sort_keys(temp, temp_bytes, keys_in, keys_out, a.n, a.capacity, count, comm,
                                             ctx.stream, opt);
        case 4: return ranked_pairs(tag<std::uint32_t>{});
        case 8: return ranked_pairs(tag<std::uint64_t>{});
        default: return not_compiled("a sort across ranks with values of this size");
      }
#else
      return not_compiled("sorts across ranks (NCCL)");
#endif
    }
    switch (a.value_size) {
      case 0: return STREAMSCAN_PY_RUN(radix_sort_keys, ctx, opt, temp, temp_bytes, keys_in, keys_out, a.n);
      case 4: return pairs(tag<std::uint32_t>{});
      case 8: return pairs(tag<std::uint64_t>{});
      default: break;
    }
  }
  return not_compiled("this sort's (key dtype, value size)");
}

}  // namespace streamscan::python
