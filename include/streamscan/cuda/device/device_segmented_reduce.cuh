// streamscan/cuda/device/device_segmented_reduce.cuh - public API of the
// segmented reduction: one value per segment,
//   out[k] = init (+) in[s_k] (+) ... (+) in[e_k - 1]
// (init for an empty segment), for segments given as segment_offsets{o, m}
// (m outputs, CSR row pointers), head_flags or head_bits (one output per
// segment, in order). detail/segmented_reduce.hpp says exactly what each
// description means. op must be associative, need not commute; the
// accumulator rule is the scans' (accumulator.hpp). Two forms, as for the
// scans: two-phase (temp == nullptr -> temp_bytes; returns a status) and
// convenience (stream-ordered scratch, throws streamscan::error).
//
// num_segments (optional, device memory) receives the number of segments:
// with head flags or bits the caller may not know it in advance, and out must
// have room for that many values (at most n). Temp storage holds n
// accumulators (the segmented scan underneath: dispatch_segmented_reduce.cuh
// says why). out must not overlap in. options.checked: offsets that decrease
// are named before anything is written (one wait; segmented.hpp).
//
// SpMV y = A x over CSR (row_ptr, col, val) is one call:
//   segmented_reduce(make_transform_iterator(counting_iterator<std::int64_t>(0), product{val, col, x}),
//                    y, nnz, segment_offsets{row_ptr, rows}, 0.0);
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../accumulator.hpp"
#include "../../operators.hpp"
#include "../../segmented.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_segmented_reduce.cuh"
#include "device_scan.cuh"

namespace streamscan::cuda {

template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus>
[[nodiscard]] status segmented_reduce(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                                      Segments segments, Init init, Op op = {}, cudaStream_t stream = nullptr,
                                      std::int64_t* num_segments = nullptr, segmented_reduce_options options = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::dispatch_segmented_reduce<A>("streamscan::cuda::segmented_reduce", temp, temp_bytes, in, out, n,
                                              segments, static_cast<A>(init), op, num_segments, stream, options);
}

template <class InIt, class OutIt, class Segments, class Init, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void segmented_reduce(InIt in, OutIt out, std::int64_t n, Segments segments, Init init, Op op = {},
                      cudaStream_t stream = nullptr, std::int64_t* num_segments = nullptr,
                      segmented_reduce_options options = {}) {
  detail::with_scratch("streamscan::cuda::segmented_reduce", stream, [&](void* t, std::size_t& b) {
    return segmented_reduce(t, b, in, out, n, segments, init, op, stream, num_segments, options);
  });
}

}  // namespace streamscan::cuda
