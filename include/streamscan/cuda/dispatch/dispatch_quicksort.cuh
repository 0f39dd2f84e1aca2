// streamscan/cuda/dispatch/dispatch_quicksort.cuh - quicksort by segmented
// scans ([ScanPrimitives] 4.1, Figure 2), after Blelloch.
//
// The keys start as one segment (head flags: element 0). Each round, every
// segment at once:
//   1. pivot:   pivot_rule::first (the paper's): the segment's first key,
//               spread over the segment by a distribute (1 segmented scan);
//               pivot_rule::middle: the segment's first and last index spread
//               by a forward and a backward distribute of the positions
//               (2 segmented scans), then key[first + (last - first) / 2] is read.
//   2. compare: flag = key > pivot on even rounds, key >= pivot on odd ones
//               (the paper's alternation), written with `less` as
//               less(pivot, key) and !less(key, pivot); one byte per key.
//   3. split_and_segment of keys and heads by the flags (2 segmented scans:
//               the (true, false) counts forward and backward, then a
//               scatter): smaller keys to the front of each segment, and each
//               segment splits into its two non-empty halves.
//   4. the global reduction "is everything sorted?" (some key[i+1] < key[i]?),
//               one flag read back to the host: the loop stops when it is.
// Segmented scans per round: 3 with pivot_rule::first (as Figure 2), 4 with
// pivot_rule::middle; plus the compare kernel, the reduction and the packing
// of head flags into bits inside each segmented scan.
//
// Stable: equal keys get the same flag in every round (the flag depends only
// on how the key compares with its pivot), so they stay in one segment, and
// every split keeps input order.
// Terminates: a segment that does not split keeps its order and so its pivot
// into the next round; `>` leaves it whole only if the pivot is its largest
// key, `>=` only if it is its smallest; so within two rounds every segment
// that is not all-equal splits. Once every segment is all-equal the keys are
// sorted (each split puts no key of the front part after one of the back),
// which the reduction sees; all-equal segments never split. Hence at most
// 2(n - 1) rounds; after 2n the call stops with an invalid_argument (`less`
// is not a strict weak order) rather than loop forever.
//
// Deviations from the paper: the sortedness test also runs once before the
// first round (sorted input costs one reduction and no split); pivot_rule::
// middle is ours, and the default: the paper's rule splits a sorted or
// reversed segment one key per two rounds, so reversed or nearly sorted input
// takes about 2n rounds. Every round is device-wide, as 4.1 describes; the
// paper's timed GPU quicksort ran it per block and merged the blocks, which
// is not built here. No small-segment cutoff.
//
// The keys ping-pong between `out` and a temp copy (the split cannot run in
// place); if the last round left them in the copy, one copy to `out` ends the
// call. The stream is synchronised once per round (the flag read back).
//
// Temp: a copy of the keys, two head-flag arrays and the flags (a byte per
// key each), the reduction flag, then one region shared by the pivot step (the
// distributed pivots or segment bounds and the distribute's temp) and
// split_and_segment's temp (16n bytes below 2^32 - 1 keys, 32n from there,
// plus its scans'): about (sizeof(K) + 19) n bytes and the scans' status words.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../detail/segmented_scan.hpp"
#include "../../detail/validate.hpp"
#include "../../iterators.hpp"
#include "../../segmented.hpp"
#include "../../sort.hpp"
#include "../../status.hpp"
#include "../device/device_select.cuh"
#include "../kernels/quicksort_kernels.cuh"
#include "../util/runtime.cuh"
#include "dispatch_segmented_scan.cuh"

namespace streamscan::cuda::detail {

// distribute ([ScanPrimitives] 2.3.2) under the caller's name: out[i] = the
// first (backward: last) value of i's segment.
template <class InIt, class A>
status quicksort_distribute(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, A* out, std::int64_t n,
                            head_flags heads, scan_direction direction, cudaStream_t stream) {
  return dispatch_segmented_scan<A>(fn, temp, temp_bytes, in, out, n, heads, streamscan::detail::take_first{},
                                    maybe<A>{A{}, false}, scan_mode::inclusive, stream,
                                    segmented_options{direction, {}});
}

inline std::int64_t quicksort_grid(std::int64_t n) {
  const std::int64_t blocks = (n + 255) / 256;
  return blocks < 65536 ? blocks : 65536;
}

// Whether keys[0, n) is sorted by `less`: one reduction, one flag read back
// (waits for the stream).
template <class K, class Less>
status quicksort_is_sorted(const char* fn, const K* keys, std::int64_t n, Less less, unsigned* d_unsorted,
                           cudaStream_t stream, bool& sorted) {
  if (status s = cuda_call(fn, "clearing the sortedness flag (cudaMemsetAsync)",
                                     cudaMemsetAsync(d_unsorted, 0, sizeof(unsigned), stream));
      !s)
    return s;
  if (status s = launch(fn, "quicksort_unsorted_kernel", quicksort_unsorted_kernel<K, Less>, quicksort_grid(n - 1), 256,
                        stream, keys, n, less, d_unsorted);
      !s)
    return s;
  unsigned unsorted = 0;
  if (status s = cuda_call(fn, "reading the sortedness flag (cudaMemcpyAsync)",
                                     cudaMemcpyAsync(&unsorted, d_unsorted, sizeof unsorted, cudaMemcpyDeviceToHost,
                                                     stream));
      !s)
    return s;
  if (status s = cuda_call(fn, "waiting for the stream (cudaStreamSynchronize)",
                                     cudaStreamSynchronize(stream));
      !s)
    return s;
  sorted = unsorted == 0;
  return status::ok();
}

// C: positions and split_and_segment's counts (32-bit below 2^32 - 1 keys).
template <class C, class K, class Less>
status quicksort_sized(const char* fn, void* temp, std::size_t& temp_bytes, const K* in, K* out, std::int64_t n,
                       cudaStream_t stream, pivot_rule rule, Less less) {
  using streamscan::detail::temp_bytes_for;
  const bool middle = rule == pivot_rule::middle;
  // Size queries of the parts; they check that the head flags are not null.
  static const unsigned char probe_byte = 0;
  const head_flags probe{&probe_byte};
  std::size_t sas_bytes = 0;
  if (status s = split_and_segment<C>(fn, nullptr, sas_bytes, static_cast<const K*>(nullptr),
                                      static_cast<const unsigned char*>(nullptr), probe, static_cast<K*>(nullptr),
                                      static_cast<unsigned char*>(nullptr), n, stream);
      !s)
    return s;
  const std::size_t key_bytes = temp_bytes_for<K>(n), byte_bytes = temp_bytes_for<unsigned char>(n);
  const std::size_t index_bytes = temp_bytes_for<C>(n);
  std::size_t pivot_bytes = 0, dist_bytes = 0;
  if (middle) {
    pivot_bytes = 2 * index_bytes;
    std::size_t fwd = 0, bwd = 0;
    status s = quicksort_distribute(fn, nullptr, fwd, counting_iterator<C>(0), static_cast<C*>(nullptr), n, probe,
                                    scan_direction::forward, stream);
    if (s)
      s = quicksort_distribute(fn, nullptr, bwd, counting_iterator<C>(0), static_cast<C*>(nullptr), n, probe,
                               scan_direction::backward, stream);
    if (!s) return s;
    dist_bytes = fwd > bwd ? fwd : bwd;
  } else {
    pivot_bytes = key_bytes;
    if (status s = quicksort_distribute(fn, nullptr, dist_bytes, static_cast<const K*>(nullptr),
                                        static_cast<K*>(nullptr), n, probe, scan_direction::forward, stream);
        !s)
      return s;
  }
  const std::size_t flag_bytes = 256;
  const std::size_t region_bytes = sas_bytes > pivot_bytes + dist_bytes ? sas_bytes : pivot_bytes + dist_bytes;
  const std::size_t required = 255 + key_bytes + 3 * byte_bytes + flag_bytes + region_bytes;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (status s = check_device_accessible(fn, "in", in, facts); !s) return s;
  if (status s = check_device_accessible(fn, "out", out, facts); !s) return s;
  if (status s = check_device_accessible(fn, "temp", temp, facts); !s) return s;

  auto copy_to_out = [&](const K* from) {
    if (static_cast<const void*>(from) == static_cast<const void*>(out)) return status::ok();
    return cuda_call(fn, "copying the keys to the output (cudaMemcpyAsync)",
                               cudaMemcpyAsync(out, from, static_cast<std::size_t>(n) * sizeof(K),
                                               cudaMemcpyDeviceToDevice, stream));
  };

  // Layout, each piece 256-byte aligned.
  unsigned char* p = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256);
  K* keys_tmp = reinterpret_cast<K*>(p);
  p += key_bytes;
  unsigned char* heads[2] = {p, p + byte_bytes};
  unsigned char* flags = p + 2 * byte_bytes;
  p += 3 * byte_bytes;
  auto* d_unsorted = reinterpret_cast<unsigned*>(p);
  p += flag_bytes;
  unsigned char* region = p;  // pivots or bounds + the distribute's temp; later split_and_segment's temp

  bool sorted = false;
  if (status s = quicksort_is_sorted(fn, in, n, less, d_unsorted, stream, sorted); !s) return s;
  if (sorted) return copy_to_out(in);

  // One segment: only element 0 is a head. split_and_segment writes every
  // head of its output, so the other array needs no reset.
  if (status s = cuda_call(fn, "setting the head flags (cudaMemsetAsync)",
                                     cudaMemsetAsync(heads[0], 0, static_cast<std::size_t>(n), stream));
      !s)
    return s;
  if (status s = cuda_call(fn, "setting the head flags (cudaMemsetAsync)",
                                     cudaMemsetAsync(heads[0], 1, 1, stream));
      !s)
    return s;

  // Round r reads `cur` and writes dst[r & 1]; out first unless it is the input.
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);
  K* const dst[2] = {in_place ? keys_tmp : out, in_place ? out : keys_tmp};
  const K* cur = in;
  const std::int64_t grid = quicksort_grid(n);
  const std::int64_t max_rounds = 2 * n;
  for (std::int64_t r = 0;; ++r) {
    if (r >= max_rounds)
      return streamscan::detail::invalid_argument(
          fn, "argument 'less' is not a strict weak order: quicksort did not finish after " + std::to_string(r) +
                  " rounds");
    const head_flags seg{heads[r & 1]};
    const bool or_equal = (r & 1) != 0;
    if (middle) {
      C* first = reinterpret_cast<C*>(region);
      C* last = reinterpret_cast<C*>(region + index_bytes);
      std::size_t b = dist_bytes;
      status s = quicksort_distribute(fn, region + pivot_bytes, b, counting_iterator<C>(0), first, n, seg,
                                      scan_direction::forward, stream);
      b = dist_bytes;
      if (s)
        s = quicksort_distribute(fn, region + pivot_bytes, b, counting_iterator<C>(0), last, n, seg,
                                 scan_direction::backward, stream);
      if (s)
        s = launch(fn, "quicksort_compare_kernel", quicksort_compare_kernel<K, middle_pivot<K, C>, Less>, grid, 256,
                   stream, cur, middle_pivot<K, C>{first, last}, flags, n, or_equal, less);
      if (!s) return s;
    } else {
      K* pivots = reinterpret_cast<K*>(region);
      std::size_t b = dist_bytes;
      status s = quicksort_distribute(fn, region + pivot_bytes, b, cur, pivots, n, seg, scan_direction::forward,
                                      stream);
      if (s)
        s = launch(fn, "quicksort_compare_kernel", quicksort_compare_kernel<K, distributed_pivot<K>, Less>, grid, 256,
                   stream, cur, distributed_pivot<K>{pivots}, flags, n, or_equal, less);
      if (!s) return s;
    }
    K* next = dst[r & 1];
    std::size_t b = sas_bytes;
    if (status s = split_and_segment<C>(fn, region, b, cur, static_cast<const unsigned char*>(flags), seg, next,
                                        heads[(r + 1) & 1], n, stream);
        !s)
      return s;
    cur = next;
    if (status s = quicksort_is_sorted(fn, cur, n, less, d_unsorted, stream, sorted); !s) return s;
    if (sorted) break;
  }
  return copy_to_out(cur);
}

template <class K, class Less>
status dispatch_quicksort(const char* fn, void* temp, std::size_t& temp_bytes, const K* in, K* out, std::int64_t n,
                          cudaStream_t stream, const quicksort_options& opt, Less less) {
  static_assert(std::is_trivially_copyable_v<K>, "streamscan::cuda::quicksort: keys must be trivially copyable");
  using streamscan::detail::invalid_argument;
  if (opt.pivot != pivot_rule::first && opt.pivot != pivot_rule::middle)
    return invalid_argument(fn, "argument 'options.pivot' is not a pivot rule this build knows");
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (n < (std::int64_t{1} << 32) - 1)
    return quicksort_sized<std::uint32_t>(fn, temp, temp_bytes, in, out, n, stream, opt.pivot, less);
  return quicksort_sized<std::uint64_t>(fn, temp, temp_bytes, in, out, n, stream, opt.pivot, less);
}

}  // namespace streamscan::cuda::detail
