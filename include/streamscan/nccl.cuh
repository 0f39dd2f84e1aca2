// streamscan/nccl.cuh - scan and compaction of one logical array sharded
// across GPUs, in rank order, over NCCL (CMake target streamscan::nccl).
//
// Each rank calls with its own shard; shard sizes may differ and may be 0.
// The communicator is a caller-created ncclComm_t, or any type with the
// interface of cuda/comm/communicator.cuh (cuda::simulated_ranks runs several
// ranks on one GPU). Every rank of the communicator must make the same call.
//
//   inclusive_scan / exclusive_scan: rank r's out[i] = (init) (+) every element
//     of ranks 0..r-1 (+) in[0..i] of its own shard, with any associative
//     operator (not necessarily commutative) and the accumulator rules of the
//     single-GPU scan (streamscan/accumulator.hpp). Three passes over the shard
//     (dispatch_ranked.cuh); the carries are folded in rank order, so
//     floating-point results repeat run to run. `out == in` is allowed.
//   select_if / select_flagged: each rank compacts its shard locally (stable)
//     and learns where its elements sit globally (rank_placement). The
//     ranks' checks are all-gathered and judged on the device, so the host
//     waits once, after the counts' exchange (dispatch_ranked.cuh).
//   rebalance: moves compacted elements so that every rank holds an equal
//     share of the global order, split the way numpy.array_split (and
//     torch.tensor_split) splits: the first total % size ranks hold one more.
//   sort_keys / sort_pairs: the radix sort of all shards together (every key
//     type, order and bit range of the single-GPU radix sort); afterwards
//     each rank holds its share of the sorted sequence, split as rebalance
//     splits. Stable across ranks: equal keys keep rank order, then
//     position. One all-to-all exchange of the keys (dispatch_ranked_sort.cuh).
//
// Every call waits for the ranks' exchange (a few microseconds of records)
// before any rank writes (the compactions on the device, the other calls on
// the host); a bad argument on any rank gives every rank an error
// naming that rank and argument, and no rank writes its output. A rank that
// never makes the call cannot be told apart from a slow one: NCCL then waits,
// as it does for any collective (a simulated group times out).
//
// Two-phase forms return a status; the convenience forms allocate
// stream-ordered scratch and throw streamscan::error.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "accumulator.hpp"
#include "cuda/comm/nccl_communicator.cuh"
#include "cuda/comm/simulated_ranks.cuh"
#include "cuda/device/device_scan.cuh"
#include "cuda/device/device_select.cuh"
#include "cuda/dispatch/dispatch_ranked.cuh"
#include "cuda/dispatch/dispatch_ranked_sort.cuh"
#include "operators.hpp"
#include "scan_options.hpp"
#include "select.hpp"
#include "sort.hpp"
#include "status.hpp"

namespace streamscan::nccl {

using cuda::rank_placement;

namespace detail {
// An ncclComm_t is wrapped (asking NCCL for rank and size); a communicator
// object is used as it is.
inline status communicator_for(const char* fn, ncclComm_t comm, cuda::nccl_communicator& out) {
  return cuda::nccl_communicator::wrap(fn, comm, out);
}
template <class Comm>
status communicator_for(const char*, const Comm& comm, Comm& out) {
  out = comm;
  return status::ok();
}
template <class Comm>
using communicator_t = std::conditional_t<std::is_same_v<Comm, ncclComm_t>, cuda::nccl_communicator, Comm>;

// Resolves the communicator, then runs `call(comm)`.
template <class Comm, class Call>
status with_communicator(const char* fn, const Comm& comm, Call call) {
  communicator_t<Comm> c;
  if (status s = communicator_for(fn, comm, c); !s) return s;
  return call(c);
}
}  // namespace detail

template <class InIt, class OutIt, class Op, class Comm>
[[nodiscard]] status inclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, Op op,
                                    Comm comm, cudaStream_t stream = nullptr, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt>;
  const char* fn = "streamscan::nccl::inclusive_scan";
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_scan<A>(fn, temp, temp_bytes, in, out, n, op, cuda::detail::maybe<A>{A{}, false},
                                        cuda::detail::scan_mode::inclusive, c, stream, opt);
  });
}

// out[i] = init (+) everything before element i in rank order.
template <class InIt, class OutIt, class Init, class Op, class Comm>
[[nodiscard]] status exclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, Init init,
                                    Op op, Comm comm, cudaStream_t stream = nullptr, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  const char* fn = "streamscan::nccl::exclusive_scan";
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_scan<A>(fn, temp, temp_bytes, in, out, n, op,
                                        cuda::detail::maybe<A>{static_cast<A>(init), true},
                                        cuda::detail::scan_mode::exclusive, c, stream, opt);
  });
}

// Keeps in[i] where pred(in[i]), in order; `placement` receives where this
// rank's kept elements sit among all ranks'.
template <class InIt, class OutIt, class Pred, class Comm>
[[nodiscard]] status select_if(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t capacity, Pred pred, rank_placement& placement, Comm comm,
                               cudaStream_t stream = nullptr, select_options opt = {}) {
  const char* fn = "streamscan::nccl::select_if";
  using V = typename std::iterator_traits<InIt>::value_type;
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_compaction<V>(
        fn, "select_if", temp, temp_bytes, n, capacity,
        [&] { return cuda::detail::compaction_arguments(fn, in, out, n, capacity); },
        [&](void* t, std::size_t& b, std::int64_t* count, const std::uint32_t* gate) {
          return cuda::detail::gated_select_if(t, b, in, out, n, capacity, count, pred, stream, opt, gate);
        },
        placement, c, stream);
  });
}

template <class InIt, class FlagIt, class OutIt, class Comm>
[[nodiscard]] status select_flagged(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out,
                                    std::int64_t n, std::int64_t capacity, rank_placement& placement, Comm comm,
                                    cudaStream_t stream = nullptr, select_options opt = {}) {
  const char* fn = "streamscan::nccl::select_flagged";
  using V = typename std::iterator_traits<InIt>::value_type;
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_compaction<V>(
        fn, "select_flagged", temp, temp_bytes, n, capacity,
        [&] {
          if (status s = streamscan::detail::validate_array_arg(fn, flags, "flags", n, false); !s) return s;
          return cuda::detail::compaction_arguments(fn, in, out, n, capacity, "flags", flags);
        },
        [&](void* t, std::size_t& b, std::int64_t* count, const std::uint32_t* gate) {
          return cuda::detail::gated_select_flagged(t, b, in, flags, out, n, capacity, count, stream, opt, gate);
        },
        placement, c, stream);
  });
}

// Moves the compacted elements `in` (this rank's placement.count of them) so
// that rank r ends with global positions [begin(r), begin(r + 1)) in `out`
// (room for `capacity`; in and out must not overlap), where begin(r) =
// r * (total / size) + min(r, total % size): numpy.array_split's (and
// torch.tensor_split's) split, the first total % size ranks holding one
// element more (5 elements on 2 ranks: [0, 3) and [3, 5)). Returns this
// rank's new count. `placement` is what the compaction returned on this rank:
// one that could not have come from it (offsets not rising from 0 to the
// total, this rank's offset or count not its own entry, other offsets than
// another rank's) is refused on every rank. Asynchronous after a short
// exchange of checks.
template <class T, class Comm>
[[nodiscard]] status rebalance(const T* in, T* out, std::int64_t capacity, const rank_placement& placement,
                               std::int64_t& count, Comm comm, cudaStream_t stream = nullptr) {
  const char* fn = "streamscan::nccl::rebalance";
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_rebalance(fn, in, out, capacity, placement, count, c, stream);
  });
}

// Sorts the keys of every rank's shard (keys_in, n of them) together: rank r
// ends with global positions [begin(r), begin(r + 1)) of the sorted sequence
// in keys_out (room for `capacity`), begin as in rebalance, and `count`
// receives how many that is. keys_out == keys_in is allowed (when capacity
// covers the share); other overlaps are refused. Waits for two short
// exchanges (the ranks' checks, then the splitters), then runs
// asynchronously.
template <class K, class Comm>
[[nodiscard]] status sort_keys(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out, std::int64_t n,
                               std::int64_t capacity, std::int64_t& count, Comm comm, cudaStream_t stream = nullptr,
                               sort_options opt = {}) {
  const char* fn = "streamscan::nccl::sort_keys";
  cuda::detail::sort_io<K, cuda::detail::no_values> io{keys_in, keys_out};
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_sort(fn, temp, temp_bytes, io, n, capacity, count, c, stream, opt);
  });
}

// The same with a value per key, which travels with it.
template <class K, class V, class Comm>
[[nodiscard]] status sort_pairs(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                                const V* values_in, V* values_out, std::int64_t n, std::int64_t capacity,
                                std::int64_t& count, Comm comm, cudaStream_t stream = nullptr, sort_options opt = {}) {
  const char* fn = "streamscan::nccl::sort_pairs";
  cuda::detail::sort_io<K, V> io{keys_in, keys_out, values_in, values_out};
  return detail::with_communicator(fn, comm, [&](const auto& c) {
    return cuda::detail::ranked_sort(fn, temp, temp_bytes, io, n, capacity, count, c, stream, opt);
  });
}

// ---- convenience forms (stream-ordered scratch; throw streamscan::error) ----

template <class InIt, class OutIt, class Op, class Comm,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void inclusive_scan(InIt in, OutIt out, std::int64_t n, Op op, Comm comm, cudaStream_t stream = nullptr,
                    scan_options opt = {}) {
  cuda::detail::with_scratch("streamscan::nccl::inclusive_scan", stream, [&](void* t, std::size_t& b) {
    return inclusive_scan(t, b, in, out, n, op, comm, stream, opt);
  });
}

template <class InIt, class OutIt, class Init, class Op, class Comm,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void exclusive_scan(InIt in, OutIt out, std::int64_t n, Init init, Op op, Comm comm, cudaStream_t stream = nullptr,
                    scan_options opt = {}) {
  cuda::detail::with_scratch("streamscan::nccl::exclusive_scan", stream, [&](void* t, std::size_t& b) {
    return exclusive_scan(t, b, in, out, n, init, op, comm, stream, opt);
  });
}

template <class InIt, class OutIt, class Pred, class Comm,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
rank_placement select_if(InIt in, OutIt out, std::int64_t n, std::int64_t capacity, Pred pred, Comm comm,
                         cudaStream_t stream = nullptr, select_options opt = {}) {
  rank_placement placement;
  cuda::detail::with_scratch("streamscan::nccl::select_if", stream, [&](void* t, std::size_t& b) {
    return select_if(t, b, in, out, n, capacity, pred, placement, comm, stream, opt);
  });
  return placement;
}

template <class InIt, class FlagIt, class OutIt, class Comm,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
rank_placement select_flagged(InIt in, FlagIt flags, OutIt out, std::int64_t n, std::int64_t capacity, Comm comm,
                              cudaStream_t stream = nullptr, select_options opt = {}) {
  rank_placement placement;
  cuda::detail::with_scratch("streamscan::nccl::select_flagged", stream, [&](void* t, std::size_t& b) {
    return select_flagged(t, b, in, flags, out, n, capacity, placement, comm, stream, opt);
  });
  return placement;
}

template <class T, class Comm>
std::int64_t rebalance(const T* in, T* out, std::int64_t capacity, const rank_placement& placement, Comm comm,
                       cudaStream_t stream = nullptr) {
  std::int64_t count = 0;
  throw_if_error(rebalance(in, out, capacity, placement, count, comm, stream));
  return count;
}

// Returns this rank's count of sorted keys.
template <class K, class Comm>
std::int64_t sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t capacity, Comm comm,
                       cudaStream_t stream = nullptr, sort_options opt = {}) {
  std::int64_t count = 0;
  cuda::detail::with_scratch("streamscan::nccl::sort_keys", stream, [&](void* t, std::size_t& b) {
    return sort_keys(t, b, keys_in, keys_out, n, capacity, count, comm, stream, opt);
  });
  return count;
}

template <class K, class V, class Comm>
std::int64_t sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                        std::int64_t capacity, Comm comm, cudaStream_t stream = nullptr, sort_options opt = {}) {
  std::int64_t count = 0;
  cuda::detail::with_scratch("streamscan::nccl::sort_pairs", stream, [&](void* t, std::size_t& b) {
    return sort_pairs(t, b, keys_in, keys_out, values_in, values_out, n, capacity, count, comm, stream, opt);
  });
  return count;
}

}  // namespace streamscan::nccl
