// streamscan/cuda/dispatch/dispatch_tridiagonal.cuh - validates, picks the
// strategy, sizes temp storage and launches a batched tridiagonal solve
// (semantics: streamscan/tridiagonal.hpp; kernels: kernels/tridiagonal_kernels.cuh).
//
// Temp storage: one word for the pivot check; checked mode: a copy of x's
// extent (the solve writes there, x receives it only when no pivot failed);
// thomas: n values per system (none for short systems, which keep them in
// shared memory); partitioned: six edge values per chunk (of a block's or a
// thread's rows), the separators' system (four values per separator) and,
// recursively, what solving that system needs.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "../../detail/tridiagonal_validate.hpp"
#include "../../detail/validate.hpp"
#include "../../status.hpp"
#include "../../tridiagonal.hpp"
#include "../../tuning/tridiagonal.hpp"
#include "../kernels/tridiagonal_kernels.cuh"
#include "../util/runtime.cuh"

namespace streamscan::cuda::detail {

template <class T>
__global__ void tridiagonal_copy_kernel(tridiagonal_problem<T> from, std::int64_t systems, T* to) {
  const std::int64_t total = systems * from.n;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t at = from.rhs_at(t / from.n, t % from.n);
    to[at] = from.x[at];
  }
}

// interleaved: the interleaved automatic rule applies; contiguous: a system's
// rows are contiguous (element_stride 1).
inline tridiagonal_strategy resolve_tridiagonal_strategy(tridiagonal_strategy asked, std::int64_t n,
                                                         std::int64_t systems, bool interleaved,
                                                         const tuning::tridiagonal_shape& shape, bool contiguous) {
  // warp_pcr: a lane holds at most two rows.
  const std::int64_t warp_rows = shape.warp_max_rows < 64 ? shape.warp_max_rows : 64;
  if (asked == tridiagonal_strategy::automatic) {
    // Short systems: a thread each, its factors in shared memory, where the
    // systems are many or need one slice.
    if (shape.automatic_short_thomas && n <= shape.short_max_rows &&
        (systems >= shape.thomas_min_systems || n <= shape.short_slice_rows))
      return tridiagonal_strategy::thomas;
    if (interleaved && systems >= shape.thomas_min_systems && n <= shape.thomas_max_rows)
      return tridiagonal_strategy::thomas;
    if (contiguous && shape.automatic_warp_pcr && n <= warp_rows) return tridiagonal_strategy::warp_pcr;
    return n > shape.max_block_rows   ? tridiagonal_strategy::partitioned
           : shape.automatic_thomas_pcr ? tridiagonal_strategy::thomas_pcr
                                        : tridiagonal_strategy::hybrid;
  }
  if (asked == tridiagonal_strategy::warp_pcr && n > warp_rows)
    return resolve_tridiagonal_strategy(tridiagonal_strategy::automatic, n, systems, interleaved, shape, contiguous);
  if (asked == tridiagonal_strategy::partitioned && n <= shape.chunk_rows)
    return resolve_tridiagonal_strategy(tridiagonal_strategy::automatic, n, systems, false, shape, contiguous);
  return asked;
}

// Solves p (systems = batch x right-hand sides) with `asked`, carving temp
// storage from `temp` at `used` (bytes). With temp == nullptr it only counts.
template <class T>
status solve_tridiagonal_level(const char* fn, const tridiagonal_problem<T>& p, std::int64_t systems,
                               tridiagonal_strategy asked, unsigned char* temp, std::size_t& used,
                               unsigned long long* fail, cudaStream_t stream,
                               const tuning::tridiagonal_shape& shape = tuning::tridiagonal_shape_for(sizeof(T))) {
  using streamscan::detail::temp_bytes_for;
  const bool interleaved = p.element_stride != 1;
  const tridiagonal_strategy strategy = resolve_tridiagonal_strategy(asked, p.n, systems, interleaved, shape, !interleaved);
  const block_tridiagonal_storage<T, 1> one_rhs{};
  const block_tridiagonal_storage<T, 3> three_rhs{};
  auto take = [&](std::size_t bytes) {
    unsigned char* at = temp == nullptr ? nullptr : temp + used;
    used += bytes;
    return at;
  };
  // A block's method for a padded system: threads, PCR rows, and whether the
  // threads first sweep rows of their own (thomas_pcr).
  struct block_method {
    int threads, pcr;
    bool thread_rows;
  };
  auto method_for = [&](tridiagonal_strategy st, std::int64_t padded) {
    if (st == tridiagonal_strategy::thomas_pcr) {
      std::int64_t threads = padded / shape.thread_rows;
      threads = threads < 32 ? 32 : threads > shape.max_threads ? shape.max_threads : threads;
      if (padded / threads >= 4) return block_method{static_cast<int>(threads), static_cast<int>(2 * threads), true};
    }
    const std::int64_t pcr = st == tridiagonal_strategy::cyclic_reduction              ? 1
                             : st == tridiagonal_strategy::parallel_cyclic_reduction ? padded
                                                                                     : shape.pcr_rows;
    return block_method{tuning::tridiagonal_threads(shape, padded), static_cast<int>(pcr < padded ? pcr : padded),
                        false};
  };
  auto chunk_pass = [&](auto kernel, const char* name, auto storage, std::int64_t chunk_rows, std::int64_t chunks,
                        std::int64_t padded, block_method m, const T* separators, tridiagonal_edges<T>* edges) {
    const int threads = m.threads;
    const std::size_t smem = decltype(storage)::bytes(static_cast<int>(padded), m.pcr);
    if (status s = allow_dynamic_shared(fn, kernel, smem); !s) return s;
    const std::int64_t jobs = systems * chunks;
    return launch_with_shared(fn, name, kernel, jobs < (std::int64_t{1} << 24) ? jobs : (std::int64_t{1} << 24),
                              threads, smem, stream, p, systems, chunk_rows, chunks, static_cast<int>(padded), m.pcr,
                              m.thread_rows, separators, edges, fail);
  };

  // A thread per (system, chunk of chunk_rows rows): the last pass (edges ==
  // nullptr; short systems: chunks = 1) or the edges pass. The kernels' launch
  // bound and slices are the compiled shape's. Whole slices move as 16-byte
  // vectors where rows are contiguous and every slice starts 16-byte aligned in
  // the diagonals, b and x.
  auto thread_pass = [&](std::int64_t chunk_rows, std::int64_t chunks, const T* separators,
                         tridiagonal_edges<T>* edges) {
    constexpr tuning::tridiagonal_shape compiled = tuning::tridiagonal_shape_for(sizeof(T));
    constexpr int threads = compiled.short_threads, rows = compiled.short_slice_rows, depth = compiled.short_depth;
    auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
    const bool vector = (rows * sizeof(T)) % 16 == 0 && p.element_stride == 1 &&
                        (chunks == 1 || chunk_rows % rows == 0) &&
                        (p.batch == 1 || (p.system_stride * sizeof(T)) % 16 == 0) &&
                        (systems <= p.batch || (p.rhs_stride * sizeof(T)) % 16 == 0) && aligned(p.lower) &&
                        aligned(p.diagonal) && aligned(p.upper) && aligned(p.rhs) && aligned(p.x);
    const std::int64_t blocks = (systems * chunks + threads - 1) / threads;
    const std::int64_t grid = blocks < (std::int64_t{1} << 24) ? blocks : (std::int64_t{1} << 24);
    if (edges != nullptr) {
      auto kernel = vector ? tridiagonal_thread_edges_kernel<T, rows, depth, true>
                           : tridiagonal_thread_edges_kernel<T, rows, depth, false>;
      return launch(fn, "tridiagonal_thread_edges_kernel", kernel, grid, threads, stream, p, systems, chunk_rows,
                    chunks, edges, fail);
    }
    auto kernel = vector ? tridiagonal_thread_chunks_kernel<T, rows, depth, true>
                         : tridiagonal_thread_chunks_kernel<T, rows, depth, false>;
    const std::size_t smem = 2 * sizeof(T) * static_cast<std::size_t>(chunk_rows) * threads;
    if (status s = allow_dynamic_shared(fn, kernel, smem); !s) return s;
    return launch_with_shared(fn, "tridiagonal_thread_chunks_kernel", kernel, grid, threads, smem, stream, p, systems,
                              chunk_rows, chunks, separators, fail);
  };

  if (strategy == tridiagonal_strategy::thomas && p.n <= shape.short_max_rows) {
    // Short systems: a thread each, a chunk a system; no temp storage.
    if (temp == nullptr) return status::ok();
    return thread_pass(p.n, 1, nullptr, nullptr);
  }
  if (strategy == tridiagonal_strategy::thomas) {
    T* factors = reinterpret_cast<T*>(take(temp_bytes_for<T>(systems * p.n)));
    if (temp == nullptr) return status::ok();
    return launch(fn, "tridiagonal_thomas_kernel", tridiagonal_thomas_kernel<T>, grid_for(systems, 1 << 20), 256,
                  stream, p, systems, factors, fail);
  }
  if (strategy == tridiagonal_strategy::warp_pcr) {
    // The kernel's launch bound is the compiled shape's block.
    constexpr int threads = tuning::tridiagonal_shape_for(sizeof(T)).warp_block_threads;
    static_assert(threads % 32 == 0, "a warp a system");
    if (temp == nullptr) return status::ok();
    const std::int64_t padded = tuning::tridiagonal_padded_rows(p.n), per_block = threads / 32;
    const std::int64_t blocks = (systems + per_block - 1) / per_block;
    const std::int64_t grid = blocks < (std::int64_t{1} << 24) ? blocks : (std::int64_t{1} << 24);
    if (padded > 32)
      return launch(fn, "tridiagonal_warp_kernel", tridiagonal_warp_kernel<T, 2>, grid, threads, stream, p, systems,
                    static_cast<int>(padded), fail);
    return launch(fn, "tridiagonal_warp_kernel", tridiagonal_warp_kernel<T, 1>, grid, threads, stream, p, systems,
                  static_cast<int>(padded), fail);
  }
  if (strategy != tridiagonal_strategy::partitioned) {
    if (temp == nullptr) return status::ok();
    const std::int64_t padded = tuning::tridiagonal_padded_rows(p.n);
    return chunk_pass(tridiagonal_chunk_kernel<T, false>, "tridiagonal_chunk_kernel", one_rhs, p.n, 1, padded,
                      method_for(strategy, padded), nullptr, nullptr);
  }

  // Partitioned: edges, the separators' system, its solution, the chunks again;
  // a thread a chunk where that gives enough threads, else a block a chunk.
  const std::int64_t tb = shape.thread_chunk_rows;
  const bool thread_chunks = tb > 0 && systems * ((p.n + tb - 1) / tb) >= shape.thomas_min_systems;
  const std::int64_t b = thread_chunks ? tb : shape.chunk_rows, chunks = (p.n + b - 1) / b, per = chunks - 1;
  auto* edges = reinterpret_cast<tridiagonal_edges<T>*>(take(temp_bytes_for<tridiagonal_edges<T>>(systems * chunks)));
  T* lower = reinterpret_cast<T*>(take(temp_bytes_for<T>(systems * per)));
  T* diagonal = reinterpret_cast<T*>(take(temp_bytes_for<T>(systems * per)));
  T* upper = reinterpret_cast<T*>(take(temp_bytes_for<T>(systems * per)));
  T* separators = reinterpret_cast<T*>(take(temp_bytes_for<T>(systems * per)));
  // The separators' system: strided, one right-hand side each, solved in place.
  tridiagonal_problem<T> reduced{lower, diagonal, upper, separators, separators, per, systems, per, 1, 0};
  reduced.rhs_stride = systems * per;
  if (temp == nullptr) return solve_tridiagonal_level(fn, reduced, systems, tridiagonal_strategy::automatic, nullptr,
                                                      used, fail, stream, shape);
  const block_method chunk_method = method_for(
      resolve_tridiagonal_strategy(tridiagonal_strategy::automatic, b, systems, false, shape, false), b);
  status s = thread_chunks ? thread_pass(b, chunks, nullptr, edges)
                           : chunk_pass(tridiagonal_chunk_kernel<T, true>, "tridiagonal_chunk_kernel (edges)",
                                        three_rhs, b, chunks, b, chunk_method, nullptr, edges);
  if (s)
    s = launch(fn, "tridiagonal_separators_kernel", tridiagonal_separators_kernel<T>, grid_for(systems * per, 1 << 20),
               256, stream, p, systems, b, chunks, static_cast<const tridiagonal_edges<T>*>(edges), lower, diagonal,
               upper, separators);
  if (s)
    s = solve_tridiagonal_level(fn, reduced, systems, tridiagonal_strategy::automatic, temp, used, fail, stream, shape);
  if (s)
    s = thread_chunks ? thread_pass(b, chunks, separators, nullptr)
                      : chunk_pass(tridiagonal_chunk_kernel<T, false>, "tridiagonal_chunk_kernel", one_rhs, b, chunks,
                                   b, chunk_method, separators, nullptr);
  return s;
}

template <class T>
status dispatch_tridiagonal(const char* fn, void* temp, std::size_t& temp_bytes, const tridiagonal_view<T>& a,
                            const T* b, T* x, cudaStream_t stream, const tridiagonal_options& opt) {
  using streamscan::detail::temp_bytes_for;
  if (status s = streamscan::detail::validate_tridiagonal(fn, a, b, x, opt, true, temp != nullptr); !s) return s;

  const streamscan::detail::tridiagonal_addressing m = streamscan::detail::tridiagonal_address(a);
  const std::int64_t systems = a.batch_count * a.rhs_count;
  const bool empty = systems == 0 || a.n == 0;
  const std::int64_t x_extent = empty ? 0 : (a.rhs_count - 1) * m.rhs_stride + m.extent();
  tridiagonal_problem<T> p{a.lower, a.diagonal, a.upper, b, x, a.n, a.batch_count, m.system_stride,
                           m.element_stride, m.rhs_stride};
  // Layout: [fail word][checked: x copy][the levels' storage].
  std::size_t used = 256 + (opt.checked ? temp_bytes_for<T>(x_extent) : 0);
  if (!empty)
    if (status s = solve_tridiagonal_level<T>(fn, p, systems, opt.strategy, nullptr, used, nullptr, stream); !s)
      return s;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, used + 255); t.done) return t.result;
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (status s = check_device_accessible(fn, "temp", temp, facts); !s) return s;
  if (opt.zero_pivot_at != nullptr && !opt.checked)
    if (status s = check_device_accessible(fn, "options.zero_pivot_at", opt.zero_pivot_at, facts); !s) return s;
  if (!empty) {
    if (status s = check_device_accessible(fn, "A.lower", a.lower, facts); !s) return s;
    if (status s = check_device_accessible(fn, "A.diagonal", a.diagonal, facts); !s) return s;
    if (status s = check_device_accessible(fn, "A.upper", a.upper, facts); !s) return s;
    if (status s = check_device_accessible(fn, "b", b, facts); !s) return s;
    if (status s = check_device_accessible(fn, "x", x, facts); !s) return s;
  }
  unsigned char* base = static_cast<unsigned char*>(aligned_256(temp));
  unsigned long long* fail = opt.checked                     ? reinterpret_cast<unsigned long long*>(base)
                             : opt.zero_pivot_at != nullptr ? reinterpret_cast<unsigned long long*>(opt.zero_pivot_at)
                                                             : nullptr;
  if (fail != nullptr) {
    const cudaError_t e = cudaMemsetAsync(fail, 0xff, sizeof(*fail), stream);  // -1: no failure (yet)
    if (e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "resetting the pivot word (cudaMemsetAsync)", e);
    }
  }
  if (empty) return status::ok();
  T* staged = opt.checked ? reinterpret_cast<T*>(base + 256) : nullptr;
  tridiagonal_problem<T> q = p;
  if (staged != nullptr) q.x = staged;
  std::size_t at = 256 + (opt.checked ? temp_bytes_for<T>(x_extent) : 0);
  if (status s = solve_tridiagonal_level<T>(fn, q, systems, opt.strategy, base, at, fail, stream); !s) return s;
  if (!opt.checked) return status::ok();

  unsigned long long first = 0;
  cudaError_t e = cudaMemcpyAsync(&first, fail, sizeof(first), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, "reading the pivot check", e);
  }
  if (first != ~0ull)
    return streamscan::detail::zero_pivot_error(fn, static_cast<std::int64_t>(first), a.batch_count,
                                                " (checked mode)");
  return launch(fn, "tridiagonal_copy_kernel", tridiagonal_copy_kernel<T>, grid_for(systems * a.n, 1 << 20), 256,
                stream, q, systems, x);
}

}  // namespace streamscan::cuda::detail
