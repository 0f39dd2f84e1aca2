// streamscan/cuda/dispatch/dispatch_linear_recurrence.cuh - validates, picks
// the kernel, sizes temp storage and launches a linear recurrence or its
// gradient (semantics: streamscan/linear_recurrence.hpp; kernels:
// kernels/linear_recurrence_kernels.cuh; shapes: tuning/linear_recurrence.hpp).
//
// Kernel: rows where time is contiguous (time_stride == 1, or one step),
// 16-byte runs where every pointer is 16-byte aligned and the rows are dense
// or their length and strides are multiples of a run; lanes otherwise.
// Temp storage: a tile counter and the tile statuses (rows: one a tile;
// lanes: one a tile and sequence), zeroed by one cudaMemsetAsync.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../detail/linear_recurrence_validate.hpp"
#include "../../detail/validate.hpp"
#include "../../linear_recurrence.hpp"
#include "../../status.hpp"
#include "../../tuning/linear_recurrence.hpp"
#include "../kernels/linear_recurrence_kernels.cuh"
#include "../util/runtime.cuh"

namespace streamscan::cuda::detail {

// The plan of one call: which kernel and how many tiles and statuses.
struct recurrence_plan {
  bool rows = false, vector = false;
  std::int64_t n = 0, lead = 0, tiles = 0, statuses = 0, groups = 0, steps_tiles = 0;
};

template <class T, bool Grad>
recurrence_plan plan_recurrence(const recurrence_problem<T>& q) {
  constexpr tuning::recurrence_shape rows = tuning::recurrence_rows_shape(sizeof(T));
  constexpr tuning::recurrence_shape lanes = tuning::recurrence_lanes_shape(sizeof(T));
  recurrence_plan p;
  p.n = q.sequences * q.length;
#ifdef STREAMSCAN_RECURRENCE_LANES_ONLY  // experiments: every layout through the lanes kernel
  p.rows = false;
#else
  p.rows = q.time_stride == 1 || q.length == 1;
#endif
  if (p.rows) {
    const std::int64_t v = rows.items;
    auto aligned = [](const void* ptr) { return ptr == nullptr || reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; };
    const bool pointers = aligned(q.a) && aligned(q.b) && aligned(q.out) && (!Grad || (aligned(q.hist) && aligned(q.grad_a)));
    p.vector = pointers && (q.dense || (q.length % v == 0 && q.channel_stride % v == 0 && q.batch_stride % v == 0 &&
                                        q.time_stride == 1));
    p.lead = p.vector && q.backward ? (v - p.n % v) % v : 0;
    const std::int64_t tile = static_cast<std::int64_t>(rows.threads) * rows.items;
    p.tiles = (p.n + p.lead + tile - 1) / tile;
    p.statuses = (p.n + v - 1 + tile - 1) / tile;  // the most any lead needs: a query may pass null pointers
  } else {
    const std::int64_t h = static_cast<std::int64_t>(lanes.threads / 32) * lanes.items;
    p.groups = (q.sequences + 31) / 32;
    p.steps_tiles = (q.length + h - 1) / h;
    p.tiles = p.groups * p.steps_tiles;
    p.statuses = p.tiles * 32;
  }
  return p;
}

// Runs q (validated). temp == nullptr: only sizes temp storage.
template <class T, bool Grad>
status run_recurrence(const char* fn, void* temp, std::size_t& temp_bytes, const recurrence_problem<T>& q,
                      cudaStream_t stream) {
  using S = typename recurrence_value<T>::state;
  using status_t = tile_status<recurrence_pair<S>>;
  constexpr tuning::recurrence_shape rows = tuning::recurrence_rows_shape(sizeof(T));
  constexpr tuning::recurrence_shape lanes = tuning::recurrence_lanes_shape(sizeof(T));
  const bool empty = q.sequences == 0 || q.length == 0;
  const recurrence_plan p = empty ? recurrence_plan{} : plan_recurrence<T, Grad>(q);
  const std::size_t needed = 256 + status_t::bytes(p.statuses) + 255;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, needed); t.done) return t.result;
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (status s = check_device_accessible(fn, "temp", temp, facts); !s) return s;
  if (empty) return status::ok();
  if (status s = check_accessible_args(fn, facts, "a", q.a, Grad ? "dh" : "b", q.b, Grad ? "grad_b" : "h", q.out);
      !s)
    return s;
  if (q.initial != nullptr)
    if (status s = check_device_accessible(fn, "initial", q.initial, facts); !s) return s;
  if constexpr (Grad) {
    if (status s = check_accessible_args(fn, facts, "h", q.hist, "grad_a", q.grad_a); !s) return s;
    if (q.grad_initial != nullptr)
      if (status s = check_device_accessible(fn, "grad_initial", q.grad_initial, facts); !s) return s;
  }
  unsigned char* base = static_cast<unsigned char*>(aligned_256(temp));
  auto* counter = reinterpret_cast<unsigned long long*>(base);
  const status_t words(base + 256, p.statuses);
  if (status s = cuda_call(fn, "resetting the tile statuses (cudaMemsetAsync)",
                           cudaMemsetAsync(base, 0, 256 + status_t::reset_bytes(p.statuses), stream));
      !s)
    return s;
  if (p.rows) {
    if (p.vector && q.dense) {
      // The plain scan's vectorised agent, reading (a, b) pairs (the
      // gradient: (a before, dh)): warp-contiguous loads. Same tile as the
      // rows kernel, so the statuses sized above fit.
      using policy = tuning::recurrence_vector_policy<static_cast<int>(sizeof(T))>;
      static_assert(policy::tile_items == static_cast<std::int64_t>(rows.threads) * rows.items, "the rows tile");
      // Many sequences whose rows are whole 16-byte vectors: one warp a sequence, no look-back.
      constexpr tuning::recurrence_chunk_shape chunks = tuning::recurrence_chunk_shape_for(sizeof(T));
      const bool by_warps = q.length % policy::width == 0 &&
                            q.sequences >= std::int64_t{chunks.min_sequences_per_sm} * facts.sm_count;
      const std::int64_t tiles = (p.n + policy::tile_items - 1) / policy::tile_items;
      const maybe<recurrence_pair<S>> none{recurrence_pair<S>{}, false};
      // io: the look-back path's tile IO; chunk_io: the same for one warp a sequence.
      auto launch_io = [&](auto io, auto chunk_io, auto stages, const char* name) {
        if (by_warps) {
          constexpr std::int64_t per_block = chunks.threads / 32;
          return launch(fn, "recurrence_chunks_kernel",
                        recurrence_chunks_kernel<chunks.threads, chunks.rows, chunks.min_blocks, chunks.prefetch,
                                                 decltype(stages)::value, decltype(chunk_io)>,
                        (q.sequences + per_block - 1) / per_block, chunks.threads, stream, chunk_io, q.sequences,
                        q.length);
        }
        return launch(fn, name,
                      single_pass_vector_scan_kernel<policy, look_back_kind::decoupled, decltype(io),
                                                     recurrence_compose>,
                      tiles, policy::threads, stream, io, p.n, q.backward ? tiles * policy::tile_items - p.n : 0,
                      words, counter, none, scan_mode::inclusive, recurrence_compose{});
      };
      auto run_io = [&](auto backward) {
        constexpr bool b = decltype(backward)::value;
        const recurrence_rows_io<T, b> rows_io{p.n, q.length, 1.0 / static_cast<double>(q.length)};
        if constexpr (Grad) {
          const recurrence_grad_tile_io<T, b> io{rows_io, q.a,       q.b,       q.hist,
                                                 q.grad_a, q.out,    q.initial, q.grad_initial};
          // Staged, the gradient's three inputs a warp (48 KiB a block) ran slower than in registers.
          return launch_io(io, recurrence_grad_chunk_io<T, b>{io}, std::integral_constant<int, 0>{},
                           "single_pass_vector_scan_kernel<recurrence gradient>");
        } else {
          const recurrence_tile_io<T, b> io{rows_io, q.a, q.b, q.out, q.initial};
          return launch_io(io, recurrence_chunk_io<T, b>{io}, std::integral_constant<int, chunks.stages>{},
                           "single_pass_vector_scan_kernel<recurrence>");
        }
      };
      return q.backward ? run_io(std::true_type{}) : run_io(std::false_type{});
    }
    if (p.vector)
      return launch(fn, "recurrence_rows_kernel", recurrence_rows_kernel<T, rows.threads, rows.items, Grad, true>,
                    p.tiles, rows.threads, stream, q, p.n, p.lead, p.tiles, words, counter);
    return launch(fn, "recurrence_rows_kernel (scalar)", recurrence_rows_kernel<T, rows.threads, rows.items, Grad, false>,
                  p.tiles, rows.threads, stream, q, p.n, p.lead, p.tiles, words, counter);
  }
  return launch(fn, "recurrence_lanes_kernel", recurrence_lanes_kernel<T, lanes.threads, lanes.items, Grad>, p.tiles,
                lanes.threads, stream, q, p.groups, p.steps_tiles, words, counter);
}

template <class T>
recurrence_problem<T> make_recurrence_problem(const recurrence_layout& l, bool backward) {
  recurrence_problem<T> q;
  q.sequences = l.sequences();
  q.length = l.length;
  q.channels = l.channels;
  q.time_stride = l.time_stride;
  q.channel_stride = l.channel_stride;
  q.batch_stride = l.batch_stride;
  q.backward = backward;
  q.dense = (l.time_stride == 1 || l.length == 1) && (l.channels <= 1 || l.channel_stride == l.length) &&
            (l.batch_count <= 1 || l.batch_stride == l.channels * l.length);
  return q;
}

template <class T>
status dispatch_linear_recurrence(const char* fn, void* temp, std::size_t& temp_bytes, const recurrence_layout& l,
                                  const T* a, const T* b, T* h, const T* initial, cudaStream_t stream,
                                  const recurrence_options& opt) {
  if (status s = streamscan::detail::validate_linear_recurrence(fn, l, a, b, h, initial, temp != nullptr); !s) return s;
  recurrence_problem<T> q = make_recurrence_problem<T>(l, opt.reverse);
  q.a = a;
  q.b = b;
  q.out = h;
  q.initial = initial;
  return run_recurrence<T, false>(fn, temp, temp_bytes, q, stream);
}

template <class T>
status dispatch_linear_recurrence_backward(const char* fn, void* temp, std::size_t& temp_bytes,
                                           const recurrence_layout& l, const T* a, const T* h, const T* dh,
                                           const T* initial, T* grad_a, T* grad_b, T* grad_initial,
                                           cudaStream_t stream, const recurrence_options& opt) {
  if (status s = streamscan::detail::validate_linear_recurrence_backward(fn, l, a, h, dh, initial, grad_a, grad_b,
                                                                        grad_initial, temp != nullptr);
      !s)
    return s;
  recurrence_problem<T> q = make_recurrence_problem<T>(l, !opt.reverse);  // the gradient runs the other way
  q.a = a;
  q.b = dh;
  q.out = grad_b;
  q.initial = initial;
  q.hist = h;
  q.grad_a = grad_a;
  q.grad_initial = grad_initial;
  return run_recurrence<T, true>(fn, temp, temp_bytes, q, stream);
}

}  // namespace streamscan::cuda::detail
