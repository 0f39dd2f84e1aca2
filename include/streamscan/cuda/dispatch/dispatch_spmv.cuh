// streamscan/cuda/dispatch/dispatch_spmv.cuh - validates, sizes temp storage
// and launches y = alpha A x + beta y (semantics: streamscan/spmv.hpp; the
// kernels: kernels/spmv_kernels.cuh).
//
// Temp storage: row_groups: a slot counter and, for the chunks of rows too
// long for their group, a chunk and a partial sum per slot (at most
// nnz / chunk + nnz / (spill + 1) slots); merge_path: the tiles' start
// coordinates and carries (a few bytes per tile of rows + nnz merge items);
// nonzero_split: each tile's first row and its carry, and a counted list of the pieces of rows
// tiles leave to the fix-up (nonzero_split_pieces); segmented_scan: the
// products (nnz values), the head flags (nnz bytes) and
// the segmented scan's own.
// Checked mode adds one word for the first bad entry.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "../../detail/spmv_validate.hpp"
#include "../../detail/validate.hpp"
#include "../../segmented.hpp"
#include "../../spmv.hpp"
#include "../../status.hpp"
#include "../../tuning/spmv.hpp"
#include "../kernels/spmv_kernels.cuh"
#include "../util/runtime.cuh"
#include "dispatch_segmented_scan.cuh"

namespace streamscan::cuda::detail {

struct spmv_layout {
  std::size_t check = 0, starts = 0, carries = 0, products = 0, flags = 0, scan = 0, slots = 0, chunks = 0,
              partials = 0, excess_count = 0, excess = 0, total = 0;
};

template <class V, class O, class I>
double spmv_mean_row_length(const csr_view<V, O, I>& a) {
  return a.rows > 0 ? static_cast<double>(a.nnz) / static_cast<double>(a.rows) : 0.0;
}

// What automatic means for this matrix (by its mean row length).
template <class V, class O, class I>
spmv_strategy resolve_spmv_strategy(const csr_view<V, O, I>& a, spmv_strategy strategy) {
  if (strategy != spmv_strategy::automatic) return strategy;
  return spmv_mean_row_length(a) < tuning::spmv_row_groups_below ? spmv_strategy::row_groups
                                                                  : spmv_strategy::nonzero_split;
}

// Row groups: lanes a row, the longest row a group adds, and the most
// chunk slots the long rows can claim.
struct row_group_plan {
  int lanes;
  std::int64_t spill, max_slots;
};

template <class V, class O, class I>
row_group_plan plan_row_groups(const csr_view<V, O, I>& a) {
  constexpr tuning::spmv_row_groups shape = tuning::spmv_row_groups_shape();
  const int lanes = tuning::spmv_group_lanes(spmv_mean_row_length(a));
  const std::int64_t spill = static_cast<std::int64_t>(shape.spill_steps) * lanes;
  // A spilled row of length L > spill takes ceil(L / chunk) <= L / chunk + 1 slots.
  return {lanes, spill, a.nnz / shape.chunk + a.nnz / (spill + 1) + 1};
}

// Non-zero split: tiles of the non-zeros, at least one (it writes the rows
// of a matrix with no non-zeros).
inline std::int64_t nonzero_split_tiles(std::int64_t nnz, std::size_t value_bytes) {
  const std::int64_t tile = tuning::spmv_nonzero_split_shape_for(static_cast<int>(value_bytes)).tile_items();
  return nnz > 0 ? (nnz + tile - 1) / tile : 1;
}
// The most pieces of rows the split's tiles can list: a tile lists its rows
// past spmv_split_own_rows tiles' worth in pieces of that many, and the
// tiles' rows are disjoint.
inline std::int64_t nonzero_split_pieces(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes) {
  const std::int64_t tile = tuning::spmv_nonzero_split_shape_for(static_cast<int>(value_bytes)).tile_items();
  return nonzero_split_tiles(nnz, value_bytes) + rows / (tuning::spmv_split_own_rows * tile) + 1;
}

template <class V, class O, class I>
status plan_spmv(const char* fn, const csr_view<V, O, I>& a, spmv_strategy strategy, cudaStream_t stream,
                 spmv_layout& l) {
  using streamscan::detail::temp_bytes_for;
  constexpr tuning::spmv_shape shape = tuning::spmv_shape_for(sizeof(V));
  auto place = [&l](std::size_t bytes) {
    const std::size_t at = l.total;
    l.total += (bytes + 255) / 256 * 256;
    return at;
  };
  l.check = place(3 * sizeof(unsigned long long));  // device_check's record
  if (strategy == spmv_strategy::row_groups) {
    const row_group_plan plan = plan_row_groups(a);
    l.slots = place(sizeof(unsigned long long));
    l.chunks = place(temp_bytes_for<long_chunk>(plan.max_slots));
    l.partials = place(temp_bytes_for<V>(plan.max_slots));
    return status::ok();
  }
  if (strategy == spmv_strategy::merge_path) {
    const std::int64_t tiles = (a.rows + a.nnz + shape.tile_items() - 1) / shape.tile_items();
    l.starts = place(temp_bytes_for<merge_coordinate>(tiles + 1));
    l.carries = place(temp_bytes_for<merge_carry<V>>(tiles));
    return status::ok();
  }
  if (strategy == spmv_strategy::nonzero_split) {
    const std::int64_t tiles = nonzero_split_tiles(a.nnz, sizeof(V));
    l.starts = place(temp_bytes_for<std::int64_t>(tiles + 1));
    l.carries = place(temp_bytes_for<merge_carry<V>>(tiles));
    l.excess_count = place(sizeof(unsigned long long));
    l.excess = place(temp_bytes_for<row_range>(nonzero_split_pieces(a.rows, a.nnz, sizeof(V))));
    return status::ok();
  }
  l.products = place(temp_bytes_for<V>(a.nnz));
  l.flags = place(temp_bytes_for<unsigned char>(a.nnz));
  std::size_t scan_bytes = 0;
  segmented_options so;
  so.direction = scan_direction::backward;
  // A size query reads no flags, but it does refuse a null pointer for them.
  const unsigned char placeholder = 0;
  if (status s = dispatch_segmented_scan<V>(fn, nullptr, scan_bytes, static_cast<const V*>(nullptr),
                                            static_cast<V*>(nullptr), a.nnz, head_flags{&placeholder},
                                            streamscan::plus{},
                                            maybe<V>{V(0), false}, scan_mode::inclusive, stream, so);
      !s)
    return s;
  l.scan = place(scan_bytes);
  return status::ok();
}

// Checked mode: the structure test on the device, then one wait for its verdict.
template <class O, class I>
status check_csr_on_device(const char* fn, const O* offsets, const I* columns, std::int64_t rows, std::int64_t cols,
                           std::int64_t nnz, unsigned long long* first_bad, cudaStream_t stream) {
  if (rows == 0) return status::ok();
  unsigned long long found[3] = {0, 0, 0};
  if (status s = device_check(fn, "the structure check", first_bad, stream, found, [&] {
        return launch(fn, "check_csr_kernel", check_csr_kernel<O, I>, grid_for(rows + 1 > nnz ? rows + 1 : nnz, 4096),
                      256, stream, offsets, columns, rows, cols, nnz, first_bad);
      });
      !s)
    return s;
  const unsigned long long bad = found[0];
  if (bad == ~0ull) return status::ok();
  const std::int64_t at = static_cast<std::int64_t>(bad / 2);
  if (bad % 2 == 1) {
    I c = 0;
    cudaMemcpy(&c, columns + at, sizeof(c), cudaMemcpyDeviceToHost);
    return streamscan::detail::invalid_argument(fn, "A.column_indices[" + std::to_string(at) + "] is " +
                                                        std::to_string(c) + ", outside [0, " + std::to_string(cols) +
                                                        ") (checked mode)");
  }
  O here = 0, before = 0;
  cudaMemcpy(&here, offsets + at, sizeof(here), cudaMemcpyDeviceToHost);
  if (at > 0) cudaMemcpy(&before, offsets + at - 1, sizeof(before), cudaMemcpyDeviceToHost);
  if (at == 0 && here != 0)
    return streamscan::detail::invalid_argument(
        fn, "A.row_offsets[0] is " + std::to_string(here) + ", not 0 (checked mode)");
  if (at > 0 && here < before)
    return streamscan::detail::invalid_argument(fn, "A.row_offsets decreases at row " + std::to_string(at - 1) + " (" +
                                                        std::to_string(before) + " then " + std::to_string(here) +
                                                        "; checked mode)");
  return streamscan::detail::invalid_argument(fn, "A.row_offsets[rows] is " + std::to_string(here) +
                                                      ", not A.nnz = " + std::to_string(nnz) + " (checked mode)");
}

template <int G, class V, class O, class I>
status launch_row_groups(const char* fn, const csr_view<V, O, I>& a, const V* x, V* y, V alpha, V beta,
                         const row_group_plan& plan, unsigned long long* slots, long_chunk* chunks,
                         cudaStream_t stream) {
  constexpr tuning::spmv_row_groups shape = tuning::spmv_row_groups_shape();
  return launch(fn, "row_group_spmv_kernel", row_group_spmv_kernel<G, shape.threads, V, O, I>,
                (a.rows * G + shape.threads - 1) / shape.threads, shape.threads, stream, a.row_offsets,
                a.column_indices, a.values, x, y, a.rows, alpha, beta, plan.spill, int{shape.chunk},
                plan.max_slots, slots, chunks);
}

// What a product and spmv_prepare share: the size query (temp == nullptr),
// the arguments' checks (a product's, with x and y, or the pattern's alone:
// x == y == nullptr from spmv_prepare), the layout of temp storage and
// checked mode's structure test. `ready` is false when there is nothing
// more to do.
template <class V, class O, class I>
status spmv_setup(const char* fn, void* temp, std::size_t& temp_bytes, const csr_view<V, O, I>& a, const V* x,
                  const V* y, bool product, cudaStream_t stream, const spmv_options& opt, spmv_layout& l,
                  device_facts& facts, unsigned char*& base, bool& ready) {
  ready = false;
  const spmv_strategy strategy = resolve_spmv_strategy(a, opt.strategy);
  if (temp == nullptr) {  // a size query checks the sizes and the strategy only
    const csr_view<V, O, I> sizes{a.rows, a.cols, a.nnz, nullptr, nullptr, nullptr};
    if (status s = streamscan::detail::validate_spmv_sizes(fn, sizes); !s) return s;
    if (status s = streamscan::detail::validate_spmv_strategy(fn, opt); !s) return s;
    if (status s = plan_spmv(fn, a, strategy, stream, l); !s) return s;
    temp_bytes = l.total + 255;
    return status::ok();
  }
  if (status s = product ? streamscan::detail::validate_spmv(fn, a, x, y, opt)
                         : streamscan::detail::validate_spmv_pattern(fn, a, opt);
      !s)
    return s;
  if (status s = plan_spmv(fn, a, strategy, stream, l); !s) return s;
  if (status s = streamscan::detail::validate_temp_bytes(fn, temp_bytes, l.total + 255); !s) return s;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (a.rows > 0) {
    if (status s = check_device_accessible(fn, "A.row_offsets", a.row_offsets, facts); !s) return s;
    if (product)
      if (status s = check_device_accessible(fn, "y", y, facts); !s) return s;
  }
  if (a.nnz > 0 && (product || opt.checked))
    if (status s = check_device_accessible(fn, "A.column_indices", a.column_indices, facts); !s) return s;
  if (a.nnz > 0 && product) {
    if (status s = check_device_accessible(fn, "A.values", a.values, facts); !s) return s;
    if (status s = check_device_accessible(fn, "x", x, facts); !s) return s;
  }
  if (status s = check_device_accessible(fn, "temp", temp, facts); !s) return s;
  base = static_cast<unsigned char*>(aligned_256(temp));
  if (opt.checked)
    if (status s = check_csr_on_device(fn, a.row_offsets, a.column_indices, a.rows, a.cols, a.nnz,
                                       reinterpret_cast<unsigned long long*>(base + l.check), stream);
        !s)
      return s;
  ready = a.rows > 0;
  return status::ok();
}

// The non-zero split's and merge path's plans: what depends on the pattern alone.
template <class V, class O, class I>
status launch_spmv_plan(const char* fn, const csr_view<V, O, I>& a, spmv_strategy strategy, const spmv_layout& l,
                        unsigned char* base, cudaStream_t stream) {
  if (strategy == spmv_strategy::nonzero_split) {
    constexpr int tile = tuning::spmv_nonzero_split_shape_for(sizeof(V)).tile_items();
    const std::int64_t tiles = nonzero_split_tiles(a.nnz, sizeof(V));
    auto* first_rows = reinterpret_cast<std::int64_t*>(base + l.starts);
    return launch(fn, "nonzero_split_rows_kernel", nonzero_split_rows_kernel<O>, (tiles + 1 + 255) / 256, 256, stream,
                  a.row_offsets, a.rows, std::int64_t{tile}, tiles, first_rows,
                  reinterpret_cast<unsigned long long*>(base + l.excess_count));
  }
  if (strategy == spmv_strategy::merge_path) {
    constexpr int tile = tuning::spmv_shape_for(sizeof(V)).tile_items();
    const std::int64_t tiles = (a.rows + a.nnz + tile - 1) / tile;
    return launch(fn, "merge_path_tiles_kernel", merge_path_tiles_kernel<O>, (tiles + 1 + 255) / 256, 256, stream,
                  a.row_offsets, a.rows, a.nnz, std::int64_t{tile}, tiles,
                  reinterpret_cast<merge_coordinate*>(base + l.starts));
  }
  return status::ok();
}

// spmv_prepare: the plan, and for the split the list its tiles would make.
template <class V, class O, class I>
status dispatch_spmv_prepare(const char* fn, void* temp, std::size_t& temp_bytes, const csr_view<V, O, I>& a,
                             cudaStream_t stream, spmv_options opt) {
  spmv_layout l;
  device_facts facts;
  unsigned char* base = nullptr;
  bool ready = false;
  if (status s = spmv_setup<V>(fn, temp, temp_bytes, a, nullptr, nullptr, false, stream, opt, l, facts, base, ready);
      !s || !ready)
    return s;
  const spmv_strategy strategy = resolve_spmv_strategy(a, opt.strategy);
  status s = launch_spmv_plan(fn, a, strategy, l, base, stream);
  if (s && strategy == spmv_strategy::nonzero_split) {
    constexpr int tile = tuning::spmv_nonzero_split_shape_for(sizeof(V)).tile_items();
    const std::int64_t tiles = nonzero_split_tiles(a.nnz, sizeof(V));
    s = launch(fn, "nonzero_split_list_kernel", nonzero_split_list_kernel<tile>, (tiles + 255) / 256, 256, stream,
               reinterpret_cast<const std::int64_t*>(base + l.starts), tiles,
               reinterpret_cast<unsigned long long*>(base + l.excess_count),
               nonzero_split_pieces(a.rows, a.nnz, sizeof(V)), reinterpret_cast<row_range*>(base + l.excess));
  }
  return s;
}

template <class V, class O, class I>
status dispatch_spmv(const char* fn, void* temp, std::size_t& temp_bytes, const csr_view<V, O, I>& a, const V* x,
                     V* y, V alpha, V beta, cudaStream_t stream, spmv_options opt) {
  spmv_layout l;
  device_facts facts;
  unsigned char* base = nullptr;
  bool ready = false;
  if (status s = spmv_setup(fn, temp, temp_bytes, a, x, y, true, stream, opt, l, facts, base, ready); !s || !ready)
    return s;
  const spmv_strategy strategy = resolve_spmv_strategy(a, opt.strategy);

  if (strategy == spmv_strategy::row_groups) {
    constexpr tuning::spmv_row_groups shape = tuning::spmv_row_groups_shape();
    const row_group_plan plan = plan_row_groups(a);
    auto* slots = reinterpret_cast<unsigned long long*>(base + l.slots);
    auto* chunks = reinterpret_cast<long_chunk*>(base + l.chunks);
    V* partials = reinterpret_cast<V*>(base + l.partials);
    status s = cuda_call(fn, "clearing the slot counter (cudaMemsetAsync)",
                         cudaMemsetAsync(slots, 0, sizeof(*slots), stream));
    if (s) {
      switch (plan.lanes) {
        case 1: s = launch_row_groups<1>(fn, a, x, y, alpha, beta, plan, slots, chunks, stream); break;
        case 2: s = launch_row_groups<2>(fn, a, x, y, alpha, beta, plan, slots, chunks, stream); break;
        case 8: s = launch_row_groups<8>(fn, a, x, y, alpha, beta, plan, slots, chunks, stream); break;
        case 16: s = launch_row_groups<16>(fn, a, x, y, alpha, beta, plan, slots, chunks, stream); break;
        default: s = launch_row_groups<32>(fn, a, x, y, alpha, beta, plan, slots, chunks, stream); break;
      }
    }
    // The long rows' chunks (none, mostly: then both grids find no slot and
    // leave), each kernel placed while the one ahead ends (launch_overlapped).
    const std::int64_t chunk_grid = facts.sm_count > 0 ? 4 * facts.sm_count : 512;
    const auto chunk_kernel = long_chunk_spmv_kernel<shape.threads, V, O, I>;
    bool overlap = false;
    if (s) s = dependent_launch_allowed(fn, facts, chunk_kernel, overlap);
    if (s)
      s = launch_overlapped(fn, "long_chunk_spmv_kernel", overlap, chunk_kernel, chunk_grid, shape.threads, stream,
                            a.row_offsets, a.column_indices, a.values, x, int{shape.chunk}, plan.max_slots,
                            static_cast<const unsigned long long*>(slots), static_cast<const long_chunk*>(chunks),
                            partials);
    if (s)
      s = launch_overlapped(fn, "long_row_spmv_kernel", overlap, long_row_spmv_kernel<V>, chunk_grid, 256, stream,
                            plan.max_slots, static_cast<const unsigned long long*>(slots),
                            static_cast<const long_chunk*>(chunks), static_cast<const V*>(partials), alpha, beta, y);
    return s;
  }

  if (strategy == spmv_strategy::merge_path) {
    constexpr tuning::spmv_shape shape = tuning::spmv_shape_for(sizeof(V));
    const std::int64_t tiles = (a.rows + a.nnz + shape.tile_items() - 1) / shape.tile_items();
    auto* starts = reinterpret_cast<merge_coordinate*>(base + l.starts);
    auto* carries = reinterpret_cast<merge_carry<V>*>(base + l.carries);
    status s = opt.prepared ? status::ok() : launch_spmv_plan(fn, a, strategy, l, base, stream);
    if (s)
      s = launch(fn, "merge_path_spmv_kernel", merge_path_spmv_kernel<shape.threads, shape.items, V, O, I>, tiles,
                 shape.threads, stream, a.row_offsets, a.column_indices, a.values, x, y, a.rows, a.nnz, alpha, beta,
                 static_cast<const merge_coordinate*>(starts), carries);
    if (s)
      s = launch(fn, "merge_path_fixup_kernel", merge_path_fixup_kernel<V>, (tiles + 255) / 256, 256, stream,
                 static_cast<const merge_carry<V>*>(carries), tiles, a.rows, alpha, y);
    return s;
  }

  if (strategy == spmv_strategy::nonzero_split) {
    constexpr tuning::spmv_split_shape shape = tuning::spmv_nonzero_split_shape_for(sizeof(V));
    const std::int64_t tiles = nonzero_split_tiles(a.nnz, sizeof(V));
    auto* first_rows = reinterpret_cast<std::int64_t*>(base + l.starts);
    auto* carries = reinterpret_cast<merge_carry<V>*>(base + l.carries);
    auto* excess_count = reinterpret_cast<unsigned long long*>(base + l.excess_count);
    auto* excess = reinterpret_cast<row_range*>(base + l.excess);
    const std::int64_t capacity = nonzero_split_pieces(a.rows, a.nnz, sizeof(V));
    const auto tile_kernel = nonzero_split_spmv_kernel<shape.threads, shape.items, shape.min_blocks,
                                                       tuning::spmv_nonzero_split_loads, V, O, I>;
    // The tile kernel starts its gathers while the search ends, and the
    // fix-up is placed while the last tiles run (launch_overlapped); the
    // first kernel of the call is launched plainly, after the caller's work.
    bool overlap = false;
    status s = dependent_launch_allowed(fn, facts, tile_kernel, overlap);
    // Prepared, the plan holds the first rows and the listed pieces already.
    if (s && !opt.prepared) s = launch_spmv_plan(fn, a, strategy, l, base, stream);
    if (s)
      s = launch_overlapped(fn, "nonzero_split_spmv_kernel", overlap && !opt.prepared, tile_kernel, tiles,
                            shape.threads, stream, a.row_offsets, a.column_indices, a.values, x, y, a.rows, a.nnz,
                            alpha, beta, static_cast<const std::int64_t*>(first_rows), carries, !opt.prepared,
                            excess_count, capacity, excess);
    // A warp 32 tiles for the carries, and at least two blocks a multiprocessor
    // for the listed pieces.
    const std::int64_t fixup_grid = std::max<std::int64_t>((tiles + 255) / 256, 2 * std::max(facts.sm_count, 1));
    if (s)
      s = launch_overlapped(fn, "nonzero_split_fixup_kernel", overlap, nonzero_split_fixup_kernel<V, O, I>, fixup_grid,
                            256, stream, static_cast<const merge_carry<V>*>(carries), tiles, a.rows, alpha, beta, y,
                            a.row_offsets, a.column_indices, a.values, x,
                            static_cast<const unsigned long long*>(excess_count), capacity,
                            static_cast<const row_range*>(excess));
    return s;
  }

  // [ScanPrimitives] 4.2, step by step.
  V* products = reinterpret_cast<V*>(base + l.products);
  unsigned char* flags = base + l.flags;
  status s = status::ok();
  if (a.nnz > 0) {
    s = launch(fn, "seed_products_kernel", seed_products_kernel<V, I>, grid_for(a.nnz, 8192), 256, stream,
               a.column_indices, a.values, x, a.nnz, products, flags);
    if (s)
      s = launch(fn, "seed_heads_kernel", seed_heads_kernel<O>, grid_for(a.rows, 8192), 256, stream, a.row_offsets,
                 a.rows, a.nnz, flags);
    if (s) {
      segmented_options so;
      so.direction = scan_direction::backward;
      std::size_t scan_bytes = l.total - l.scan;
      s = dispatch_segmented_scan<V>(fn, base + l.scan, scan_bytes, static_cast<const V*>(products), products, a.nnz,
                                     head_flags{flags}, streamscan::plus{}, maybe<V>{V(0), false},
                                     scan_mode::inclusive, stream, so);
    }
  }
  if (s)
    s = launch(fn, "seed_gather_kernel", seed_gather_kernel<V, O>, grid_for(a.rows, 8192), 256, stream, a.row_offsets,
               a.rows, static_cast<const V*>(products), alpha, beta, y);
  return s;
}

}  // namespace streamscan::cuda::detail
