// streamscan/cpu/segmented_reduce.hpp - segmented reduction on the CPU: one
// value per segment (detail/segmented_reduce.hpp says exactly what).
//
// Offsets: the segments are reduced in parallel, a block of them per task.
// Head flags and bits: the input is cut into chunks; a first parallel pass
// counts the heads in each chunk, so that each chunk knows the index of its
// first segment; a second reduces, per chunk, every segment that starts in it
// (reading on past the chunk's end when the segment does).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../accumulator.hpp"
#include "../detail/segmented_reduce.hpp"
#include "../detail/validate.hpp"
#include "../operators.hpp"
#include "../segmented.hpp"
#include "../status.hpp"
#include "parallel.hpp"
#include "scan.hpp"
#include "segmented_scan.hpp"

namespace streamscan::cpu {
namespace detail {

// Segments per task of the offsets form.
inline constexpr std::int64_t reduce_segments_per_task = 4096;

template <class A, class InIt, class Op>
A reduce_range(InIt in, std::int64_t begin, std::int64_t end, A acc, Op& op) {
  for (std::int64_t i = begin; i < end; ++i) acc = static_cast<A>(op(acc, static_cast<A>(in[i])));
  return acc;
}

template <class A, class InIt, class OutIt, class Segments, class Op>
status segmented_reduce(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                        const Segments& segments, A init, Op op, std::int64_t* num_segments) {
  namespace sd = streamscan::detail;
  static_assert(std::is_trivially_copyable_v<A>, "streamscan: the accumulator type must be trivially copyable");
  if (status s = sd::validate_segmented_reduce(fn, in, out, n, segments, temp == nullptr); !s) return s;
  constexpr bool by_offsets = sd::is_segment_offsets<Segments>::value;
  // Temp: the head count of each chunk (head forms).
  const std::int64_t chunk = default_scan_policy.chunk_items;
  const std::int64_t chunks = by_offsets ? 0 : (n + chunk - 1) / chunk;
  const std::size_t required = sd::temp_bytes_for<std::int64_t>(chunks);
  if (auto t = sd::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;

  if constexpr (by_offsets) {
    const std::int64_t m = segments.num_segments;
    // The CPU reads the offsets anyway: one that decreases is named (the GPU
    // does so in checked mode and otherwise trusts them).
    for (std::int64_t k = 1; k <= m; ++k)
      if (sd::segment_offset_breaks(segments.offsets, k, m, n, sd::offsets_rule::reduce))
        return sd::segment_offsets_error(fn, k, static_cast<std::int64_t>(segments.offsets[k - 1]),
                                         static_cast<std::int64_t>(segments.offsets[k]), m, n);
    parallel_for((m + reduce_segments_per_task - 1) / reduce_segments_per_task, [&](std::int64_t t) {
      Op local_op = op;
      const std::int64_t last = std::min(m, (t + 1) * reduce_segments_per_task);
      for (std::int64_t k = t * reduce_segments_per_task; k < last; ++k) {
        std::int64_t begin = 0, end = 0;
        sd::segment_range(segments.offsets, k, n, begin, end);
        out[k] = reduce_range<A>(in, begin, end, init, local_op);
      }
    });
    if (num_segments != nullptr) *num_segments = m;
  } else {
    auto head = [&](std::int64_t i) {
      if constexpr (std::is_same_v<Segments, head_flags>) return i == 0 || segments.flags[i] != 0;
      else return i == 0 || ((segments.words[i >> 5] >> (i & 31)) & 1u) != 0;
    };
    // Count pass, then the counts become each chunk's first segment index.
    const partials_view<std::int64_t> first{static_cast<unsigned char*>(temp)};
    parallel_for(chunks, [&](std::int64_t c) {
      std::int64_t heads = 0;
      for (std::int64_t i = c * chunk, end = std::min(n, (c + 1) * chunk); i < end; ++i) heads += head(i);
      first.set(c, heads);
    });
    std::int64_t total = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t heads = first.get(c);
      first.set(c, total);
      total += heads;
    }
    // Reduce pass: the segments that start in the chunk.
    parallel_for(chunks, [&](std::int64_t c) {
      Op local_op = op;
      std::int64_t k = first.get(c);
      const std::int64_t end = std::min(n, (c + 1) * chunk);
      std::int64_t i = c * chunk;
      while (i < end && !head(i)) ++i;
      while (i < end) {
        std::int64_t j = i + 1;
        while (j < n && !head(j)) ++j;
        out[k++] = reduce_range<A>(in, i, j, init, local_op);
        i = j;
      }
    });
    if (num_segments != nullptr) *num_segments = total;
  }
  return status::ok();
}

}  // namespace detail

// out[k] = init (+) in[s_k] (+) ... (+) in[e_k - 1] for every segment k
// (init for an empty one). Two-phase: temp == nullptr -> temp_bytes. When
// num_segments is not null, *num_segments receives the number of segments
// (the number of values written). out must not overlap in. Offsets that
// decrease are always named (options.checked asks nothing more here).
template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus>
[[nodiscard]] status segmented_reduce(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                                      Segments segments, Init init, Op op = {},
                                      std::int64_t* num_segments = nullptr, segmented_reduce_options options = {}) {
  (void)options;
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::segmented_reduce<A>("streamscan::cpu::segmented_reduce", temp, temp_bytes, in, out, n, segments,
                                     static_cast<A>(init), op, num_segments);
}

// Convenience form: heap scratch, throws streamscan::error.
template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_reduce(InIt in, OutIt out, std::int64_t n, Segments segments, Init init, Op op = {},
                      std::int64_t* num_segments = nullptr, segmented_reduce_options options = {}) {
  detail::with_heap_scratch([&](void* t, std::size_t& b) {
    return segmented_reduce(t, b, in, out, n, segments, init, op, num_segments, options);
  });
}

}  // namespace streamscan::cpu
