// streamscan/cuda/dispatch/dispatch_segmented_scan.cuh - segmented and
// backward scans as a scan of (value, head) pairs (detail/segmented_scan.hpp).
//
// Every description is first read as head bits: head_bits directly, head
// flags and offsets converted into bits in temp storage (one small kernel).
// Then, for raw 16-byte aligned pointers of the accumulator type (and the
// automatic or decoupled_lookback strategy), the dedicated single-pass kernel
// (segmented_tile_io.cuh: 16-byte loads, values and head bits in registers,
// (value, head, flag) in one status word for values up to 8 bytes); with no
// segments, the plain scan's vectorised kernel, forward or backward (the
// mirrored tile IO of tile_io.cuh). Anything else
// goes through dispatch_scan with pair iterators: every strategy and policy
// of the plain scan, the look-back carrying pairs.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../detail/segmented_scan.hpp"
#include "../../detail/validate.hpp"
#include "../../segmented.hpp"
#include "../../status.hpp"
#include "../agent/segmented_tile_io.cuh"
#include "../kernels/segment_kernels.cuh"
#include "../kernels/pipelined_segmented_scan_kernel.cuh"
#include "../kernels/segmented_scan_kernel.cuh"
#include "../util/runtime.cuh"
#include "../../tuning/segmented_scan.hpp"
#include "dispatch_scan.cuh"
#include "tuned_policy.cuh"

namespace streamscan::cuda::detail {

template <class S>
status check_segments_accessible(const char* fn, const S& s, const device_facts& facts) {
  if constexpr (std::is_same_v<S, head_flags>) return check_device_accessible(fn, "segments", s.flags, facts);
  else if constexpr (std::is_same_v<S, head_bits>) return check_device_accessible(fn, "segments", s.words, facts);
  else if constexpr (streamscan::detail::is_segment_offsets<S>::value)
    return check_device_accessible(fn, "segments", s.offsets, facts);
  else return status::ok();
}

// Whether the dedicated kernel can take these iterators: a raw output pointer
// of the accumulator type whose size divides 16 bytes, and an input
// vector_input reads as values of it (alignment: at run time).
template <class A, class InIt, class OutIt>
constexpr bool segmented_kernel_fits() {
  if constexpr (std::is_pointer_v<OutIt> && sizeof(A) <= 16 && 16 % sizeof(A) == 0) {
    return std::is_same_v<std::remove_pointer_t<OutIt>, A> &&
           vector_input_fits<InIt, A, tuning::segmented_scan_policy<A>::vector_width>();
  } else {
    return false;
  }
}

// The dedicated kernel at the shape `policy_name` names (else the tuning file's
// or the built-in one): a tile counter and the tile status words in `bytes`
// (sized for the smallest shape; the launch resets those of its shape), then
// one kernel.
// Backward scans put filler slots before the first tile, so that full tiles
// are aligned.
template <class A, class In, class Op>
status launch_segmented_kernel(const char* fn, unsigned char* bytes, In in, A* out,
                               std::int64_t n, const streamscan::detail::segment_heads& heads, Op op,
                               maybe<A> init, scan_mode mode, const char* policy_name, cudaStream_t stream,
                               const device_facts& facts) {
  using P = streamscan::detail::seg_pair<A>;
  chosen_policy chosen;
  if (status s = choose_policy(fn, "options.scan.policy", tuning::algorithm::segmented_scan, sizeof(A),
                               streamscan::tuning::op_class<A, Op>(), n, policy_name, facts.device, chosen);
      !s)
    return s;
  const maybe<P> pinit{P{init.value, false}, mode == scan_mode::exclusive};
  auto counter = reinterpret_cast<unsigned long long*>(bytes);
  // One tile per block.
  auto run_dedicated = [&](auto shape_constant) {
    using policy = tuning::segmented_scan_policy<A, decltype(shape_constant)::value>;
    const std::int64_t tiles = (n + policy::tile_items - 1) / policy::tile_items;
    auto go = [&](auto backward) {
      using io_t = segmented_tile_io<A, policy::vector_width, Op, decltype(backward)::value, In>;
      const std::int64_t lead = backward ? tiles * policy::tile_items - n : 0;
      const io_t io{in, out, heads, init.value, init.present, mode == scan_mode::exclusive, op};
      if (status s = reset_tiles<P>(fn, bytes, tiles, stream); !s) return s;
      return launch(fn, "segmented_scan_kernel", segmented_scan_kernel<policy, io_t, Op>, tiles, policy::threads,
                    stream, io, n, lead, tile_status<P>(bytes + tile_counter_bytes, tiles), counter, pinit, mode, op);
    };
    return heads.backward ? go(std::true_type{}) : go(std::false_type{});
  };
  // Persistent blocks on the pipeline; shape 0 where it cannot run (GPU
  // before sm_90, too little shared memory, head words not 16-byte aligned).
  auto run_pipelined = [&](auto shape_constant) {
    using policy = tuning::segmented_scan_policy<A, decltype(shape_constant)::value>;
    using pshape = pipelined_segmented_shape<policy, A>;
    const std::int64_t tiles = (n + pshape::tile_items - 1) / pshape::tile_items;
    auto go = [&](auto backward) {
      using io_t = segmented_tile_io<A, policy::vector_width, Op, decltype(backward)::value>;
      const auto kernel = pipelined_segmented_scan_kernel<policy, io_t, Op>;
      int per_sm = 0;
      if (status s = pipelined_blocks_per_sm(fn, "preparing pipelined_segmented_scan_kernel (shared memory, occupancy)",
                                             kernel, pshape::threads, pshape::dynamic_shared_bytes, facts, per_sm);
          !s)
        return s;
      // Its copy engine stages the head words too: they must be 16-byte aligned.
      if (per_sm == 0 || reinterpret_cast<std::uintptr_t>(heads.bits) % 16 != 0)
        return run_dedicated(std::integral_constant<int, 0>{});
      const std::int64_t lead = backward ? tiles * pshape::tile_items - n : 0;
      const io_t io{in, out, heads, init.value, init.present, mode == scan_mode::exclusive, op};
      const std::int64_t grid = std::min<std::int64_t>(tiles, std::int64_t{facts.sm_count} * per_sm);
      if (status s = reset_tiles<P>(fn, bytes, tiles, stream); !s) return s;
      return launch_with_shared(fn, "pipelined_segmented_scan_kernel", kernel, grid, pshape::threads,
                                pshape::dynamic_shared_bytes, stream, io, n, lead,
                                tile_status<P>(bytes + tile_counter_bytes, tiles), counter, pinit, mode, op);
    };
    return heads.backward ? go(std::true_type{}) : go(std::false_type{});
  };
  // The pipeline stages raw values: other inputs run shape 0 in its place.
  auto run = [&](auto shape_constant) {
    constexpr int index = decltype(shape_constant)::value;
    if constexpr (tuning::segmented_shapes[index].stages == 0) return run_dedicated(shape_constant);
    else if constexpr (tuning::segmented_pipeline_fits(sizeof(A))) return run_pipelined(shape_constant);
    else return run_dedicated(std::integral_constant<int, 0>{});
  };
  // The candidates are shapes for raw pointers of A (the pipeline stages raw
  // values): other inputs run the one-tile default, one kernel each.
  if constexpr (std::is_same_v<In, const A*>)
    return visit_candidate<tuning::segmented_shape_count>(chosen.index, run);
  else
    return run_dedicated(std::integral_constant<int, tuning::default_segmented_shape>{});
}

// Checked mode: the offsets' shape tested on the device (record: 3 words of
// temp storage), then one wait for the verdict.
template <class OffsetIt>
status check_offsets_on_device(const char* fn, const segment_offsets<OffsetIt>& segments, std::int64_t n,
                               streamscan::detail::offsets_rule rule, unsigned long long* record,
                               cudaStream_t stream) {
  const std::int64_t m = segments.num_segments;
  unsigned long long found[3] = {0, 0, 0};
  const status s = device_check(fn, "the offsets check", record, stream, found, [&] {
    status launched = launch(fn, "check_segment_offsets_kernel", check_segment_offsets_kernel<OffsetIt>,
                             grid_for(m + 1, 4096), 256, stream, segments.offsets, m, n, rule, record);
    if (launched)
      launched = launch(fn, "describe_segment_offset_kernel", describe_segment_offset_kernel<OffsetIt>, 1, 1, stream,
                        segments.offsets, record);
    return launched;
  });
  if (!s) return s;
  if (found[0] == ~0ull) return status::ok();
  return streamscan::detail::segment_offsets_error(fn, static_cast<std::int64_t>(found[0]),
                                                   static_cast<std::int64_t>(found[1]),
                                                   static_cast<std::int64_t>(found[2]), m, n);
}

template <class A, class InIt, class OutIt, class Segments, class Op>
status dispatch_segmented_scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                               std::int64_t n, const Segments& segments, Op op, maybe<A> init, scan_mode mode,
                               cudaStream_t stream, segmented_options opt) {
  namespace sd = streamscan::detail;
  if (status s = sd::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (status s = sd::validate_segments(fn, segments, n, temp == nullptr); !s) return s;
  if (status s = sd::validate_segmented_options(fn, opt); !s) return s;
  // The dedicated kernel where it fits; automatic elsewhere is
  // reduce_then_scan, measured faster than the single-pass scan of pair
  // iterators (docs/performance.md).
  constexpr bool dedicated_fits = segmented_kernel_fits<A, InIt, OutIt>();
  const bool dedicated_strategy =
      opt.scan.strategy == scan_strategy::automatic || opt.scan.strategy == scan_strategy::decoupled_lookback;
  if (dedicated_fits && dedicated_strategy) {  // a bad name is reported by a size query too
    int named = -1;
    if (status s = check_policy_name(fn, "options.scan.policy", tuning::algorithm::segmented_scan, sizeof(A),
                                     opt.scan.policy, named);
        !s)
      return s;
  }
  if (opt.scan.strategy == scan_strategy::automatic) opt.scan.strategy = scan_strategy::reduce_then_scan;
  // Temp: the head bits the description is read through (head_flags and
  // offsets are converted; 256-byte aligned size), then the pair scan's.
  const std::size_t words = sd::head_bit_words(segments, n);
  // Checked mode's verdict sits where the bits go next: room for it even at n == 0.
  constexpr bool by_offsets = sd::is_segment_offsets<Segments>::value;
  const bool check_offsets = by_offsets && opt.checked;
  const std::size_t bits_bytes = std::max<std::size_t>((words * 4 + 255) / 256 * 256, check_offsets ? 256 : 0);
  // The pair scan's temp follows the bits; the inner dispatch aligns its own start.
  auto* base = temp == nullptr ? nullptr
                               : reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256);
  auto* bits = reinterpret_cast<std::uint32_t*>(base);
  const sd::segment_heads heads = sd::heads_of(segments, n, opt.direction == scan_direction::backward, bits);
  const sd::segmented_input<InIt, A, Op> pin(in, heads, init.value, init.present, op);
  const sd::segmented_output<OutIt, A> pout(out, heads, init.value, mode == scan_mode::exclusive);
  const sd::segmented_op<Op> pop{op};
  using P = sd::seg_pair<A>;
  const maybe<P> pinit{P{init.value, false}, mode == scan_mode::exclusive};
  std::size_t inner = 0;
  scan_options inner_opt = opt.scan;
  if (dedicated_fits && dedicated_strategy) inner_opt.policy = nullptr;  // the name was the dedicated kernel's
  if (status s = dispatch_scan<P>(fn, nullptr, inner, pin, pout, n, pop, pinit, mode, stream, inner_opt); !s) return s;
  // The dedicated kernel's temp: a tile counter, then the status words. With
  // no segments, the plain scan's vectorised kernel (forward or backward) is
  // the dedicated kernel, at its default shape.
  constexpr bool plain = std::is_same_v<Segments, no_segments>;
  const std::size_t dedicated_bytes =
      !dedicated_fits ? 0
      : plain ? tile_counter_bytes + tile_status<A>::bytes((n + tuning::smallest_single_pass_tile<A>() - 1) /
                                                           tuning::smallest_single_pass_tile<A>())
              : tile_counter_bytes + tile_status<P>::bytes((n + tuning::smallest_segmented_tile<A>() - 1) /
                                                           tuning::smallest_segmented_tile<A>());
  const std::size_t required = 255 + bits_bytes + (inner > dedicated_bytes ? inner : dedicated_bytes);
  if (auto t = sd::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0 && !check_offsets) return status::ok();
  // The pair iterators hide the caller's pointers from dispatch_scan's checks.
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (n > 0)
    if (status s = check_accessible_args(fn, facts, "in", in, "out", out); !s) return s;
  if (status s = check_segments_accessible(fn, segments, facts); !s) return s;
  if constexpr (by_offsets) {
    if (check_offsets)
      if (status s = check_offsets_on_device(fn, segments, n, sd::offsets_rule::scan,
                                             reinterpret_cast<unsigned long long*>(bits), stream);
          !s)
        return s;
  }
  if (n == 0) return status::ok();
  // The conversions write every word; no_segments reads one zero word.
  if constexpr (std::is_same_v<Segments, no_segments>) {
    if (const cudaError_t e = cudaMemsetAsync(bits, 0, words * 4, stream); e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "clearing the head bits (cudaMemsetAsync)", e);
    }
  }
  if constexpr (by_offsets) {
    const int tile_words = tuning::mark_heads_tile_words(static_cast<std::int64_t>(words), facts.sm_count);
    const std::int64_t grid = (static_cast<std::int64_t>(words) + tile_words - 1) / tile_words;
    if (status s = launch_with_shared(fn, "mark_segment_heads_kernel",
                          mark_segment_heads_kernel<tuning::mark_heads_items, decltype(segments.offsets)>, grid,
                          tuning::mark_heads_threads, tile_words * sizeof(std::uint32_t), stream, segments.offsets,
                          segments.num_segments, n, tile_words, bits);
        !s)
      return s;
  } else if constexpr (std::is_same_v<Segments, head_flags>) {
    const std::int64_t warps = (n + 1023) / 1024;  // a warp per 1024 flags
    const std::int64_t grid = (warps + 7) / 8 < 8192 ? (warps + 7) / 8 : 8192;
    if (status s = launch(fn, "pack_head_flags_kernel", pack_head_flags_kernel<unsigned char>, grid, 256, stream, segments.flags, n,
                          bits);
        !s)
      return s;
  }
  if constexpr (dedicated_fits) {
    if (dedicated_strategy && vector_aligned<A, tuning::segmented_scan_policy<A>::vector_width>(in, out)) {
      const auto input = read_only_input(in);
      if constexpr (plain) {
        unsigned char* bytes = base + bits_bytes;  // launch_vector_scan resets it
        constexpr int shape0 = tuning::vector_scan_policy_for<A>::tunable ? tuning::default_vector_shape(sizeof(A)) : 0;
        if (heads.backward)
          return launch_vector_scan<true, shape0>(fn, bytes, input, out, n, op, init, mode, stream, facts);
        return launch_vector_scan<false, shape0>(fn, bytes, input, out, n, op, init, mode, stream, facts);
      }
      return launch_segmented_kernel<A>(fn, base + bits_bytes, input, out, n,
                                        heads, op, init, mode, opt.scan.policy, stream, facts);
    }
  }
  return dispatch_scan<P>(fn, base + bits_bytes, inner, pin, pout, n, pop, pinit, mode, stream, inner_opt);
}

}  // namespace streamscan::cuda::detail
