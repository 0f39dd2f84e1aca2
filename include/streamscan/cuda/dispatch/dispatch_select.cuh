// streamscan/cuda/dispatch/dispatch_select.cuh - validates, sizes temp
// storage, picks the kernel and launches compaction, partition and split.
//
// One dispatcher for every call; a Source (detail/select_sources.hpp) says
// what an element is. Three shapes of call:
//   compaction        selected elements to out[0, capacity); any strategy
//   partition         one pass: selected from 0, rejected from n-1 down (CUB's convention)
//   stable            two passes: count the selected, then place selected
//                     and rejected both in input order (stable_partition, split)
// Counts are 32-bit below 2^32 elements (the look-back packs count and flag
// in one 64-bit status word), 64-bit above.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../detail/select_validate.hpp"
#include "../../detail/select_sources.hpp"
#include "../../detail/validate.hpp"
#include "../../select.hpp"
#include "../../status.hpp"
#include "../kernels/compaction_paper_kernels.cuh"
#include "../kernels/outbox_select_kernel.cuh"
#include "../kernels/select_kernels.cuh"
#include "../util/runtime.cuh"
#include "../../tuning/select.hpp"
#include "dispatch_scan.cuh"
#include "tuned_policy.cuh"

namespace streamscan::cuda::detail {

enum class select_call { compaction, partition, stable };

template <class InIt, class OutIt>
bool same_range(const InIt& in, const OutIt& out) {
  if constexpr (std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>)
    return static_cast<const void*>(in) == static_cast<const void*>(out);
  else
    return false;
}

inline status reset(const char* fn, void* p, std::size_t bytes, cudaStream_t stream, const char* what) {
  if (const cudaError_t e = cudaMemsetAsync(p, 0, bytes, stream); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, what, e);
  }
  return status::ok();
}

// Whether the pipelined select kernel can run a Source: it stages the
// values a raw input pointer holds, 4 or 8 bytes (16-byte rows of them), and
// either they are the items (a predicate decides) or the flags beside them
// come from a raw pointer too (staged as the side stream).
template <class Source>
constexpr bool pipelined_items_fit() {
  using staging = select_staging<Source>;
  constexpr std::size_t bytes = sizeof(typename staging::value);
  if constexpr (!std::is_pointer_v<decltype(Source::in)> || !(bytes == 4 || bytes == 8) ||
                Source::vector_width * bytes != 16)
    return false;
  else if constexpr (staging::flagged)
    return std::is_pointer_v<decltype(Source::flags)>;
  else
    return std::is_same_v<typename Source::item, typename staging::value>;
}
template <class Source, class = void>
struct pipelined_select_fits : std::false_type {};
template <class Source>
struct pipelined_select_fits<Source, std::void_t<decltype(Source::in)>>
    : std::bool_constant<pipelined_items_fit<Source>()> {};

// Whether a Source's raw pointers are aligned for the copy engine (16 bytes).
template <class Source>
bool aligned_for_bulk_copy(const Source& src) {
  bool ok = reinterpret_cast<std::uintptr_t>(src.in) % 16 == 0;
  if constexpr (select_staging<Source>::flagged) ok = ok && reinterpret_cast<std::uintptr_t>(src.flags) % 16 == 0;
  return ok;
}

// Launches one select_kernel pass over fresh tile status words; a pipelined
// shape runs pipelined_select_kernel where it can (one persistent block per
// SM slot it fits), else the default shape. A shut `gate` (device memory,
// util/gate.cuh; null: none) makes the kernel write nothing.
template <placement P, class C, int Shape, class Source>
status launch_select_pass(const char* fn, const Source& src, std::int64_t n, std::int64_t capacity,
                          const std::int64_t* rejects_from, std::int64_t* num_selected, unsigned char* temp,
                          bool in_place, cudaStream_t stream, const device_facts& facts,
                          const std::uint32_t* gate = nullptr) {
  using policy = tuning::select_policy<Source::vector_width, Shape>;
  const std::int64_t tiles = (n + policy::tile_items - 1) / policy::tile_items;
  // The scans' layout and reset (dispatch_scan.cuh): the counter, then the words.
  auto reset_status = [&] { return reset_tiles<C>(fn, temp, tiles, stream); };
  const tile_status<C> status_words(temp + tile_counter_bytes, tiles);
  auto* counter = reinterpret_cast<unsigned long long*>(temp);
  if constexpr (policy::outbox_bytes > 0) {
    // The outbox kernel runs the compaction Sources the pipeline can stage.
    if constexpr (P == placement::compact && pipelined_select_fits<Source>::value) {
      using shape = outbox_shape<policy, Source>;
      const auto kernel = outbox_select_kernel<policy, Source, C>;
      int per_sm = 0;
      if (!in_place && aligned_for_bulk_copy(src))
        if (status s = pipelined_blocks_per_sm(fn, "preparing outbox_select_kernel (shared memory, occupancy)", kernel,
                                               shape::threads, shape::dynamic_shared_bytes, facts, per_sm);
            !s)
          return s;
      if (per_sm > 0) {
        if (status s = reset_status(); !s) return s;
        std::int64_t grid = std::min<std::int64_t>(tiles, std::int64_t{facts.sm_count} * per_sm);
        if (const long long limit = testing::persistent_grid_limit(); limit > 0 && grid > limit) grid = limit;
        return launch_with_shared(fn, "outbox_select_kernel", kernel, grid, shape::threads,
                                  shape::dynamic_shared_bytes, stream, src, n, capacity, num_selected, status_words,
                                  counter, gate);
      }
    }
    return launch_select_pass<P, C, tuning::default_select_shape>(fn, src, n, capacity, rejects_from, num_selected,
                                                                  temp, in_place, stream, facts, gate);
  } else if constexpr (policy::stages > 0) {
    int per_sm = 0;
    if constexpr (pipelined_select_fits<Source>::value) {
      using shape = select_pipeline_shape<policy, Source>;
      const auto kernel = pipelined_select_kernel<policy, P, Source, C>;
      if (!in_place && aligned_for_bulk_copy(src))
        if (status s = pipelined_blocks_per_sm(fn, "preparing pipelined_select_kernel (shared memory, occupancy)",
                                               kernel, shape::threads, shape::dynamic_shared_bytes, facts, per_sm);
            !s)
          return s;
      if (per_sm > 0) {
        if (status s = reset_status(); !s) return s;
        const std::int64_t grid = std::min<std::int64_t>(tiles, std::int64_t{facts.sm_count} * per_sm);
        return launch_with_shared(fn, "pipelined_select_kernel", kernel, grid, shape::threads,
                                  shape::dynamic_shared_bytes, stream, src, n, capacity, rejects_from, num_selected,
                                  status_words, counter, gate);
      }
    }
    return launch_select_pass<P, C, tuning::default_select_shape>(fn, src, n, capacity, rejects_from, num_selected,
                                                                  temp, in_place, stream, facts, gate);
  } else {
    if (status s = reset_status(); !s) return s;
    return launch(fn, "select_kernel", select_kernel<policy, P, Source, C>, tiles, policy::threads, stream, src, n,
                  capacity, rejects_from, num_selected, status_words, counter, in_place, gate);
  }
}

// Counts the elements `src` selects into *count (int64, device), which the
// stream has zeroed: count_selected_kernel over at most a full GPU of blocks.
template <class Source>
status launch_count_pass(const char* fn, const Source& src, std::int64_t n, std::int64_t* count, cudaStream_t stream,
                         const device_facts& facts) {
  using policy = tuning::count_policy;
  const std::int64_t per_block = std::int64_t{policy::threads} * policy::unroll * Source::vector_width;
  const std::int64_t wanted = (n + per_block - 1) / per_block;
  const std::int64_t full = std::int64_t{facts.sm_count} * policy::blocks_per_sm;
  return launch(fn, "count_selected_kernel", count_selected_kernel<policy::threads, policy::unroll, Source>,
                wanted < full ? wanted : full, policy::threads, stream, src, n,
                reinterpret_cast<unsigned long long*>(count));
}

// The tuning key of a call (tuning/choose.hpp): compaction or a call that
// writes every element, by a predicate or by flags the pipeline stages
// beside the values; and the size of what it moves. Sources the pipelined
// kernels cannot stage take the one-tile default (select_default_cc).
template <class Source>
constexpr bool select_flags_staged() {
  if constexpr (pipelined_select_fits<Source>::value) return select_staging<Source>::flagged;
  else return false;
}
template <class Source>
constexpr std::size_t select_value_bytes() {
  if constexpr (pipelined_select_fits<Source>::value) return sizeof(typename select_staging<Source>::value);
  else return sizeof(typename Source::item);
}
template <class Source>
constexpr tuning::algorithm select_algorithm(select_call call) {
  constexpr bool flagged = select_flags_staged<Source>();
  if (call == select_call::compaction) return flagged ? tuning::algorithm::select_flagged : tuning::algorithm::select_if;
  return flagged ? tuning::algorithm::split : tuning::algorithm::partition;
}
template <class Source>
constexpr int select_default_cc() {
  return pipelined_select_fits<Source>::value ? 1 << 30 : 0;
}

// The arrays a source reads or writes beside `in` and `out` (flags; a pair's
// values), held to the same rule: memory the GPU can reach.
template <class S, class = void>
struct source_reads_flags : std::false_type {};
template <class S>
struct source_reads_flags<S, std::void_t<decltype(std::declval<const S&>().flags)>> : std::true_type {};
template <class S, class = void>
struct source_moves_values : std::false_type {};
template <class S>
struct source_moves_values<S, std::void_t<decltype(std::declval<const S&>().values_out)>> : std::true_type {};

template <class Source>
status check_source_arrays(const char* fn, const Source& src, const device_facts& facts) {
  if constexpr (source_reads_flags<Source>::value)
    if (status s = check_device_accessible(fn, "flags", src.flags, facts); !s) return s;
  if constexpr (source_moves_values<Source>::value) {
    if (status s = check_device_accessible(fn, "values", src.values, facts); !s) return s;
    if (status s = check_device_accessible(fn, "values_out", src.values_out, facts); !s) return s;
  }
  return status::ok();
}

template <class C, select_call Call, class Source, class CountSource, class InIt, class OutIt>
status dispatch_select_sized(const char* fn, void* temp, std::size_t& temp_bytes, const Source& src,
                             const CountSource& count_src, const InIt& in, const OutIt& out, std::int64_t n,
                             std::int64_t capacity, std::int64_t* num_selected, select_strategy strategy,
                             const char* policy_name, cudaStream_t stream, const std::uint32_t* gate) {
  using paper = tuning::compaction_paper_policy;
  const std::int64_t groups = (n + paper::group_items - 1) / paper::group_items;
  using streamscan::detail::temp_bytes_for;
  // multi_level: ballots, group counts, then the temp of the counts' scan.
  const std::size_t pred_bytes = temp_bytes_for<unsigned>(groups * 32), counter_bytes = temp_bytes_for<C>(groups);
  std::size_t scan_bytes = 0;
  std::size_t required = tile_counter_bytes;
  if (strategy == select_strategy::stable) {  // sized for the smallest tile of any shape
    const std::int64_t tile = tuning::smallest_select_tile<Source::vector_width>();
    required += tile_status<C>::bytes((n + tile - 1) / tile);
  } else if (strategy == select_strategy::multi_level) {
    if (status s = dispatch_scan<C>(fn, nullptr, scan_bytes, static_cast<const C*>(nullptr), static_cast<C*>(nullptr),
                                    groups, streamscan::plus{}, maybe<C>{C(0), false}, scan_mode::inclusive, stream,
                                    scan_options{scan_strategy::decoupled_lookback});
        !s)
      return s;
    required = pred_bytes + counter_bytes + scan_bytes;
  }
  device_facts facts;
  if (temp != nullptr) {
    if (status s = current_device_facts(fn, facts); !s) return s;
    if (n > 0)
      if (status s = check_source_arrays(fn, src, facts); !s) return s;
  }
  bool proceed = false;
  void* aligned = nullptr;
  if (status s = check_temp_and_pointers(fn, temp, temp_bytes, required, in, out, n, facts, aligned, proceed); !s)
    return s;
  if (temp == nullptr) return status::ok();
  if (status s = check_device_accessible(fn, "num_selected", num_selected, facts); !s) return s;
  if (!proceed)  // n == 0
    return reset(fn, num_selected, sizeof(std::int64_t), stream, "writing num_selected (cudaMemsetAsync)");
  unsigned char* bytes = static_cast<unsigned char*>(aligned);
  chosen_policy chosen;
  if (strategy == select_strategy::stable)
    if (status s = choose_policy(fn, "options.policy", select_algorithm<Source>(Call), select_value_bytes<Source>(),
                                 streamscan::tuning::no_operator, n, policy_name, facts.device, chosen,
                                 select_default_cc<Source>());
        !s)
      return s;

  const bool in_place = same_range(in, out);
  auto run = [&](auto shape_constant) {
    constexpr int Shape = decltype(shape_constant)::value;
    if constexpr (Call == select_call::partition) {
      return launch_select_pass<placement::reversed_rejects, C, Shape>(fn, src, n, n, nullptr, num_selected, bytes,
                                                                       false, stream, facts, gate);
    } else if constexpr (Call == select_call::stable) {
      status s = reset(fn, num_selected, sizeof(std::int64_t), stream, "zeroing num_selected (cudaMemsetAsync)");
      if (s) s = launch_count_pass(fn, count_src, n, num_selected, stream, facts);
      if (s)
        s = launch_select_pass<placement::rejects_after, C, Shape>(fn, src, n, n, num_selected, nullptr, bytes, false,
                                                                   stream, facts, gate);
      return s;
    } else {
      return launch_select_pass<placement::compact, C, Shape>(fn, src, n, capacity, nullptr, num_selected, bytes,
                                                              in_place, stream, facts, gate);
    }
  };
  if constexpr (Call != select_call::compaction) {
    return visit_candidate<tuning::select_shape_count>(chosen.index, run);
  } else {
    switch (strategy) {
      case select_strategy::stable:
        return visit_candidate<tuning::select_shape_count>(chosen.index, run);
      case select_strategy::multi_level: {
        auto* pred = reinterpret_cast<unsigned*>(bytes);
        auto* counter = reinterpret_cast<C*>(bytes + pred_bytes);
        const std::int64_t blocks = (groups * 32 + paper::threads - 1) / paper::threads;
        status s = launch(fn, "multi_level_count_kernel", multi_level_count_kernel<Source, C>, blocks,
                          paper::threads, stream, src, n, pred, counter);
        if (s)
          s = dispatch_scan<C>(fn, bytes + pred_bytes + counter_bytes, scan_bytes, static_cast<const C*>(counter),
                               counter, groups, streamscan::plus{}, maybe<C>{C(0), false}, scan_mode::inclusive, stream,
                               scan_options{scan_strategy::decoupled_lookback});
        if (s)
          s = launch(fn, "multi_level_scatter_kernel", multi_level_scatter_kernel<Source, C>, blocks,
                     paper::threads, stream, src, n, capacity, static_cast<const unsigned*>(pred),
                     static_cast<const C*>(counter), num_selected, gate);
        return s;
      }
      default: {  // hybrid, warp_atomic: a global slot counter
        auto* counter = reinterpret_cast<unsigned long long*>(bytes);
        status s = reset(fn, counter, sizeof(*counter), stream, "resetting the slot counter (cudaMemsetAsync)");
        if (s && strategy == select_strategy::hybrid) {
          const std::int64_t blocks = (groups * 32 + paper::threads - 1) / paper::threads;
          s = launch(fn, "hybrid_select_kernel", hybrid_select_kernel<Source>, blocks, paper::threads, stream,
                     src, n, capacity, counter, gate);
        } else if (s) {
          const std::int64_t wanted = (n + paper::threads - 1) / paper::threads;
          const std::int64_t blocks = wanted < (std::int64_t{1} << 30) ? wanted : (std::int64_t{1} << 30);
          s = launch(fn, "warp_atomic_select_kernel", warp_atomic_select_kernel<Source>, blocks,
                     paper::threads, stream, src, n, capacity, counter, gate);
        }
        if (s)
          if (const cudaError_t e =
                  cudaMemcpyAsync(num_selected, counter, sizeof(std::int64_t), cudaMemcpyDeviceToDevice, stream);
              e != cudaSuccess) {
            cudaGetLastError();
            return cuda_status(fn, "copying the selected count (cudaMemcpyAsync)", e);
          }
        return s;
      }
    }
  }
}

// Validates the arguments every call shares, then runs with the count type.
// `in` and `out` are the primary ranges (checked for null, reach, aliasing).
// `count_src` classifies the same way as `src` for the counting pass of
// stable calls, reading no more than it needs (split: only the flags).
// `gate` (device memory; null: none): where it is shut when the kernels run,
// they write nothing to the outputs nor to num_selected (util/gate.cuh; the
// compaction across ranks).
template <select_call Call, class Source, class CountSource, class InIt, class OutIt>
status dispatch_select(const char* fn, void* temp, std::size_t& temp_bytes, const Source& src,
                       const CountSource& count_src, const InIt& in, const OutIt& out, std::int64_t n,
                       std::int64_t capacity, std::int64_t* num_selected, cudaStream_t stream, select_options opt,
                       const std::uint32_t* gate = nullptr) {
  constexpr select_call call = Call;
  using streamscan::detail::invalid_argument;
  select_strategy strategy = select_strategy::stable;
  if (status s = streamscan::detail::resolve_select_strategy(fn, opt.strategy, call == select_call::compaction, strategy);
      !s)
    return s;
  int named = -1;  // checked here so that a size query reports a bad name too
  if (status s = check_policy_name(fn, "options.policy", select_algorithm<Source>(call), select_value_bytes<Source>(),
                                   opt.policy, named);
      !s)
    return s;
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (capacity < 0) return invalid_argument(fn, "argument 'capacity' is negative (" + std::to_string(capacity) + ")");
  if (temp != nullptr && num_selected == nullptr)
    return invalid_argument(fn, "argument 'num_selected' is a null pointer");
  // Only the stable single pass may run in place: it writes each element at
  // or below its own position after every earlier tile has read its input.
  if (n > 0 && same_range(in, out) && (call != select_call::compaction || strategy != select_strategy::stable))
    return invalid_argument(fn, std::string("arguments 'in' and 'out' are the same: ") +
                                    (call == select_call::compaction ? to_string(strategy) : "this call") +
                                    " cannot run in place (stable compaction can)");
  if (n < (std::int64_t{1} << 32) - 1)
    return dispatch_select_sized<std::uint32_t, Call>(fn, temp, temp_bytes, src, count_src, in, out, n, capacity,
                                                      num_selected, strategy, opt.policy, stream, gate);
  return dispatch_select_sized<std::uint64_t, Call>(fn, temp, temp_bytes, src, count_src, in, out, n, capacity,
                                                    num_selected, strategy, opt.policy, stream, gate);
}

}  // namespace streamscan::cuda::detail
