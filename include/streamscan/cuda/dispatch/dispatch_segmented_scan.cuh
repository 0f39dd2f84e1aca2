// streamscan/cuda/dispatch/dispatch_segmented_scan.cuh - segmented and
// backward scans as a scan of (value, head) pairs (detail/segmented_scan.hpp)
// through dispatch_scan: every strategy and policy of the plain scan, the
// look-back carrying pairs. The offsets form first marks head bits in temp
// storage (one small kernel over the segments).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../detail/segmented_scan.hpp"
#include "../../detail/validate.hpp"
#include "../../segmented.hpp"
#include "../../status.hpp"
#include "../kernels/segment_kernels.cuh"
#include "../util/runtime.cuh"
#include "dispatch_scan.cuh"

namespace streamscan::cuda::detail {

template <class S>
status check_segments_accessible(const char* fn, const S& s, const device_facts& facts) {
  if constexpr (std::is_same_v<S, head_flags>) return check_device_accessible(fn, "segments", s.flags, facts);
  else if constexpr (std::is_same_v<S, head_bits>) return check_device_accessible(fn, "segments", s.words, facts);
  else if constexpr (streamscan::detail::is_segment_offsets<S>::value)
    return check_device_accessible(fn, "segments", s.offsets, facts);
  else return status::ok();
}

template <class A, class InIt, class OutIt, class Segments, class Op>
status dispatch_segmented_scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                               std::int64_t n, const Segments& segments, Op op, maybe<A> init, scan_mode mode,
                               cudaStream_t stream, segmented_options opt) {
  namespace sd = streamscan::detail;
  if (status s = sd::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (status s = sd::validate_segments(fn, segments, n); !s) return s;
  if (opt.scan.strategy == scan_strategy::scan_then_add)
    return sd::invalid_argument(fn, "argument 'options.scan.strategy': segmented scans do not offer scan_then_add");
  // automatic: reduce_then_scan, measured faster than the single-pass pair
  // scan for now (H200, 2026-11-21, int32 sums over head bits, 2^28: 3.47 ms
  // against decoupled_lookback's 5.50; docs/performance.md). Both are far from
  // the copy bound: the pair path is not yet a dedicated kernel.
  if (opt.scan.strategy == scan_strategy::automatic) opt.scan.strategy = scan_strategy::reduce_then_scan;
  // Temp: the head bits the description is read through (head_flags and
  // offsets are converted; 256-byte aligned size), then the pair scan's.
  const std::size_t words = sd::head_bit_words(segments, n);
  const std::size_t bits_bytes = (words * 4 + 255) / 256 * 256;
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
  if (status s = dispatch_scan<P>(fn, nullptr, inner, pin, pout, n, pop, pinit, mode, stream, opt.scan); !s) return s;
  const std::size_t required = 255 + bits_bytes + inner;
  if (temp == nullptr) {
    temp_bytes = required;
    return status::ok();
  }
  if (status s = sd::validate_temp_bytes(fn, temp_bytes, required); !s) return s;
  if (n == 0) return status::ok();
  // The pair iterators hide the caller's pointers from dispatch_scan's checks.
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (status s = check_device_accessible(fn, "in", in, facts); !s) return s;
  if (status s = check_device_accessible(fn, "out", out, facts); !s) return s;
  if (status s = check_segments_accessible(fn, segments, facts); !s) return s;
  if (words > 0) {
    if (const cudaError_t e = cudaMemsetAsync(bits, 0, words * 4, stream); e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "clearing the head bits (cudaMemsetAsync)", e);
    }
  }
  if constexpr (sd::is_segment_offsets<Segments>::value) {
    const std::int64_t m = segments.num_segments;
    const std::int64_t grid = m == 0 ? 0 : (m + 255) / 256 < 4096 ? (m + 255) / 256 : 4096;
    if (status s = launch(fn, "mark_segment_heads_kernel", mark_segment_heads_kernel<decltype(segments.offsets)>,
                          grid, 256, stream, segments.offsets, m, n, bits);
        !s)
      return s;
  } else if constexpr (std::is_same_v<Segments, head_flags>) {
    const std::int64_t warps = (n + 31) / 32;
    const std::int64_t grid = (warps + 7) / 8 < 8192 ? (warps + 7) / 8 : 8192;
    if (status s = launch(fn, "pack_head_flags_kernel", pack_head_flags_kernel<unsigned char>, grid, 256, stream, segments.flags, n,
                          bits);
        !s)
      return s;
  }
  return dispatch_scan<P>(fn, base + bits_bytes, inner, pin, pout, n, pop, pinit, mode, stream, opt.scan);
}

}  // namespace streamscan::cuda::detail
