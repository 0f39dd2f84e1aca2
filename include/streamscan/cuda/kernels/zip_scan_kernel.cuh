// streamscan/cuda/kernels/zip_scan_kernel.cuh - an inclusive scan, with any
// associative operator (not assumed commutative), of structs whose fields
// live in separate arrays, over rows of one length laid end to end, each row
// scanned on its own: the dedicated segmented scan (segmented_scan_kernel.cuh)
// through zip_tile_io.cuh, heads at every multiple of the row length.
//
// For kernels compiled at run time (NVRTC; a Python user's operator,
// streamscan.associative_scan): a generated source defines the struct V and
// the operator, and an extern "C" kernel (a name the driver finds without
// mangling) whose body is zip_rows_scan<...>::run, taking plain arguments a
// host that knows V only at run time can pass. `shape` tells that host how to
// size the launch and the temp storage: threads, tile items, and the tile
// status words' layout (tile_status.cuh: status_size).
//
// zip_scan_plan turns that shape into the launch: grid, lead, temp bytes,
// and what to zero before each launch.
//
// zip_rows_chunks (same template parameters): the same scan with one warp a
// row (agent_row_chunks.cuh), for many rows whose length is a multiple of its
// `width` (every vector aligned and inside its row): no temp storage, no tile
// statuses. Its `shape` tells the host the block's threads, the width, and
// from how many rows an SM to prefer it (zip_chunk_plan).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/segmented_pair.hpp"
#include "../../tuning/segmented_scan.hpp"
#include "../agent/agent_row_chunks.cuh"
#include "../agent/segmented_tile_status.cuh"
#include "../agent/tile_id.cuh"
#include "../agent/tile_status.cuh"
#include "../agent/zip_tile_io.cuh"
#include "segmented_scan_kernel.cuh"

namespace streamscan::cuda::detail {

// A launch of zip_rows_scan's kernel over n scan positions (rows x length),
// from the kernel's shape. Temp storage: the tile counter's slot, then the
// tile status words; before each launch zero the counter and reset_bytes
// after the slot (dispatch_scan.cuh's reset_tile_words).
struct zip_scan_plan {
  int threads = 0;  // a block
  std::int64_t tile_items = 0;
  status_size status{};
  bool backward = false;

  __host__ __device__ std::int64_t tiles(std::int64_t n) const { return (n + tile_items - 1) / tile_items; }  // grid
  __host__ __device__ std::int64_t lead(std::int64_t n) const { return backward ? tiles(n) * tile_items - n : 0; }
  __host__ __device__ std::size_t temp_bytes(std::int64_t n) const {
    return tile_counter_bytes + status_bytes(status, tiles(n));
  }
  __host__ __device__ std::size_t reset_bytes(std::int64_t n) const { return status_reset_bytes(status, tiles(n)); }
};

// A launch of zip_rows_chunks's kernel over rows x length: one warp a row,
// threads / 32 rows a block; taken where rows are many (min_rows_per_sm an
// SM) and whole vectors (length a multiple of width).
struct zip_chunk_plan {
  int threads = 0;  // a block; 0: the module has no chunk kernel
  std::int64_t width = 1;
  std::int64_t min_rows_per_sm = 0;

  __host__ __device__ bool fits(std::int64_t rows, std::int64_t length, int sm_count) const {
    return threads > 0 && length % width == 0 && rows >= min_rows_per_sm * sm_count;
  }
  __host__ __device__ std::int64_t blocks(std::int64_t rows) const {
    const std::int64_t per_block = threads / 32;
    return (rows + per_block - 1) / per_block;
  }
};

template <class... T>
constexpr std::size_t widest_of() {
  std::size_t w = 0;
  ((w = sizeof(T) > w ? sizeof(T) : w), ...);
  return w;
}

template <class V, class Op, bool Backward, class... Fields>
struct zip_rows_scan {
  static constexpr std::size_t widest_field = widest_of<typename Fields::type...>();
  using policy = tuning::zip_scan_policy<V, widest_field>;
  using io_t = zip_rows_tile_io<V, policy::vector_width, Backward, Fields...>;
  using pair = streamscan::detail::seg_pair<V>;
  static constexpr int threads = policy::threads;
  static constexpr int min_blocks_per_sm = policy::min_blocks_per_sm;
  static constexpr std::int64_t tile_items = policy::tile_items;
  static constexpr status_size status = tile_status<pair>::size;
  static_assert(agent_segmented_scan<policy, io_t, Op>::tile_items == tile_items, "the host's tiles are the agent's");
  static constexpr zip_scan_plan plan{threads, tile_items, status, Backward};
  // The plan as numbers, for a host that reads it from a module compiled at
  // run time: threads, tile items, status layout, status unit, backward.
  static constexpr unsigned long long shape[5] = {
      static_cast<unsigned long long>(threads), static_cast<unsigned long long>(tile_items),
      static_cast<unsigned long long>(status.layout), static_cast<unsigned long long>(status.unit), Backward ? 1ull : 0ull};

  // Grid: one block a tile (plan.tiles(n)); lead: plan.lead(n).
  __device__ static void run(const zip_pointers& in, const zip_pointers& out, std::int64_t n, std::int64_t length,
                             std::int64_t lead, void* status_words, std::int64_t tiles,
                             unsigned long long* tile_counter) {
    const io_t io{in, out, n, length, (32 * policy::vector_width) % length};
    Op op{};
    segmented_scan_tile<policy>(io, n, lead, tile_status<pair>(status_words, tiles), tile_counter,
                                maybe<pair>{pair{}, false}, scan_mode::inclusive, op);
  }
};

template <class V, class Op, bool Backward, class... Fields>
struct zip_rows_chunks {
  static constexpr std::size_t widest_field = widest_of<typename Fields::type...>();
  static constexpr int width = tuning::segmented_vector_width(widest_field);  // zip_rows_scan's vectors
  static constexpr tuning::zip_chunk_shape chunk_shape = tuning::zip_chunk_shape_for<V, widest_field>();
  using io_t = zip_rows_chunk_io<V, width, Backward, Fields...>;
  static constexpr int threads = chunk_shape.threads;
  static constexpr int min_blocks = chunk_shape.min_blocks;  // the kernel's launch bound
  static_assert(threads % 32 == 0, "whole warps, one a row");
  static constexpr zip_chunk_plan plan{threads, width, chunk_shape.min_rows_per_sm};
  // The plan as numbers, for a host that reads it from a module compiled at
  // run time: threads, width, rows an SM from which to prefer it.
  static constexpr unsigned long long shape[3] = {static_cast<unsigned long long>(threads),
                                                  static_cast<unsigned long long>(width),
                                                  static_cast<unsigned long long>(chunk_shape.min_rows_per_sm)};

  // Grid: plan.blocks(rows), plan.threads a block. length: a multiple of width.
  __device__ static void run(const zip_pointers& in, const zip_pointers& out, std::int64_t rows, std::int64_t length) {
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * (threads / 32) + threadIdx.x / 32;
    if (row >= rows) return;  // the whole warp
    const io_t io{in, out, rows * length, length};
    agent_row_chunks<threads, chunk_shape.rows, io_t, Op, chunk_shape.prefetch>{io}.run(row, length);
  }
};

}  // namespace streamscan::cuda::detail
