// streamscan/cuda/dispatch/dispatch_segmented_reduce.cuh - segmented
// reduction by composition: one inclusive segmented scan from init into temp
// storage, then each segment's total is the scan at its last element.
//
// Why a full scan into temp rather than an output iterator that writes only
// at segment ends: the segmented scan's dedicated kernels (16-byte loads,
// values and head bits in registers, the pipelined kernel on sm_90+) take raw
// pointers only; an iterator output sends the scan through the general pair
// kernels. So the scan writes n values it need not (temp: n accumulators),
// and a small kernel picks the m totals:
//   offsets: one thread per segment reads scan[o[k+1] - 1] (init if empty);
//   head flags / bits: a scan of the per-word head counts numbers the
//     segments (a transform of a counting iterator through the plain scan),
//     then one thread per 32 elements writes the totals ending there.
// Bytes per call, V-byte values, m segments: the ideal is n*V in + m*V out +
// the description (8m offsets, n/8 bits, n flag bytes). This moves 2n*V (the
// scan reads n values and writes n) + 2m*V (totals read back, written) + the
// description about twice (offsets are marked as head bits first, flags
// packed into bits) + n/2 for head forms (a 64-bit count per word, written
// and read): about twice the ideal, through the segmented scan's dedicated
// kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../detail/segmented_reduce.hpp"
#include "../../detail/validate.hpp"
#include "../../iterators.hpp"
#include "../../operators.hpp"
#include "../../segmented.hpp"
#include "../../status.hpp"
#include "../device/device_scan.cuh"
#include "../device/device_segmented_scan.cuh"
#include "dispatch_segmented_scan.cuh"
#include "../kernels/segment_kernels.cuh"
#include "../kernels/segmented_reduce_kernels.cuh"
#include "../util/runtime.cuh"

namespace streamscan::cuda::detail {

template <class A, class InIt, class OutIt, class Segments, class Op>
status dispatch_segmented_reduce(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                 std::int64_t n, const Segments& segments, A init, Op op,
                                 std::int64_t* num_segments, cudaStream_t stream, segmented_reduce_options opt) {
  namespace sd = streamscan::detail;
  static_assert(std::is_trivially_copyable_v<A>, "streamscan: the accumulator type must be trivially copyable");
  if (status s = sd::validate_segmented_reduce(fn, in, out, n, segments, temp == nullptr); !s) return s;
  constexpr bool by_offsets = sd::is_segment_offsets<Segments>::value;
  constexpr bool by_flags = std::is_same_v<Segments, head_flags>;
  // Temp, each part 256-byte aligned: head bits (flags are packed here), the
  // scan, the running head count per word (offsets in checked mode: the
  // verdict's 3 words), then the inner calls' temp.
  const std::int64_t words = by_offsets ? 0 : (n + 31) / 32;
  const std::size_t bits_bytes = by_flags ? sd::temp_bytes_for<std::uint32_t>(words) : 0;
  const std::size_t scan_bytes = sd::temp_bytes_for<A>(n);
  const std::size_t count_bytes =
      by_offsets ? (opt.checked ? 256 : 0) : sd::temp_bytes_for<std::int64_t>(words);
  auto* base = temp == nullptr
                   ? nullptr
                   : reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256);
  auto* bits = reinterpret_cast<std::uint32_t*>(base);
  A* scanned = reinterpret_cast<A*>(base + bits_bytes);
  auto* heads_through = reinterpret_cast<std::int64_t*>(base + bits_bytes + scan_bytes);
  unsigned char* inner_temp = base == nullptr ? nullptr : base + bits_bytes + scan_bytes + count_bytes;

  // The scan's segments: offsets as given, flags as the bits packed here.
  // (A size query reads nothing: any non-null address sizes it.)
  auto scan_segments = [&] {
    if constexpr (by_flags)
      return head_bits(bits != nullptr ? bits : reinterpret_cast<const std::uint32_t*>(segments.flags));
    else return segments;
  }();
  const std::uint32_t* head_words = nullptr;
  if constexpr (by_flags) head_words = bits;
  else if constexpr (!by_offsets) head_words = segments.words;
  const auto counts_in = make_transform_iterator(counting_iterator<std::int64_t>(0), word_head_count{head_words, n});
  auto run_scan = [&](void* t, std::size_t& b) {
    return streamscan::cuda::segmented_inclusive_scan_init(t, b, in, scanned, n, scan_segments, op, init, stream);
  };
  auto run_counts = [&](void* t, std::size_t& b) {
    return streamscan::cuda::inclusive_scan(t, b, counts_in, heads_through, words, streamscan::plus{}, stream);
  };
  std::size_t scan_inner = 0, count_inner = 0;
  if (status s = run_scan(nullptr, scan_inner); !s) return s;
  if constexpr (!by_offsets) {
    if (status s = run_counts(nullptr, count_inner); !s) return s;
  }
  const std::size_t required =
      255 + bits_bytes + scan_bytes + count_bytes + (scan_inner > count_inner ? scan_inner : count_inner);
  if (auto t = sd::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;

  // Pointers the inner calls would name under their own names are checked
  // here; null ones only where the call has nothing to read or write there.
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  std::int64_t outputs = n;  // head forms: none iff n == 0
  if constexpr (by_offsets) outputs = segments.num_segments;
  if (num_segments != nullptr) {
    if (status s = check_device_accessible(fn, "num_segments", num_segments, facts); !s) return s;
  }
  if (outputs == 0) {
    if (num_segments == nullptr) return status::ok();
    if (const cudaError_t e = cudaMemsetAsync(num_segments, 0, sizeof(std::int64_t), stream); e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "writing num_segments (cudaMemsetAsync)", e);
    }
    return status::ok();
  }
  if (n > 0) {
    if (status s = check_device_accessible(fn, "in", in, facts); !s) return s;
  }
  if (status s = check_device_accessible(fn, "out", out, facts); !s) return s;
  if (status s = check_segments_accessible(fn, segments, facts); !s) return s;
  if constexpr (by_offsets) {
    if (opt.checked)
      if (status s = check_offsets_on_device(fn, segments, n, sd::offsets_rule::reduce,
                                             reinterpret_cast<unsigned long long*>(heads_through), stream);
          !s)
        return s;
  }

  if constexpr (by_flags) {
    // A warp per 1024 flags, 8 warps a block.
    if (status s = launch(fn, "pack_head_flags_kernel", pack_head_flags_kernel<unsigned char>,
                          grid_for((n + 1023) / 1024 * 32, 8192), 256, stream, segments.flags, n, bits);
        !s)
      return s;
  }
  if (n > 0) {
    if (status s = run_scan(inner_temp, scan_inner); !s) return s;
  }
  if constexpr (by_offsets) {
    return launch(fn, "gather_segment_totals_kernel",
                  gather_segment_totals_kernel<decltype(segments.offsets), A, OutIt>, grid_for(outputs, 4096), 256,
                  stream, segments.offsets, outputs, n, static_cast<const A*>(scanned), init, out, num_segments);
  } else {
    if (status s = run_counts(inner_temp, count_inner); !s) return s;
    return launch(fn, "scatter_segment_tails_kernel", scatter_segment_tails_kernel<A, OutIt>,
                  grid_for(words, 8192), 256, stream, head_words, static_cast<const std::int64_t*>(heads_through),
                  n, static_cast<const A*>(scanned), out, num_segments);
  }
}

}  // namespace streamscan::cuda::detail
