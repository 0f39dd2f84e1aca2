// streamscan/tuning/scan.hpp - the shapes of the plain scans: each
// strategy's candidates, its built-in default, and the compile-time policies
// the kernels are instantiated with. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shape.hpp"

namespace streamscan::tuning {

// ---- decoupled_lookback: the vectorised kernel (raw pointers of 4-, 8- or
// 16-byte values): threads x 16-byte loads in flight per thread; the
// pipelined kernel (sm_90+): scan threads x rows, stages tiles in shared
// memory, two reduce and two look-back warps. t256x8 holds 3 blocks a
// multiprocessor: its look-back's second window would otherwise take double
// sums' registers down to 2.
inline constexpr shape decoupled_shapes[] = {tile(128, 16), tile(128, 8),  tile(256, 8, 3),
                                             tile(256, 12), tile(256, 16), pipeline(256, 8, 6)};
inline constexpr int decoupled_shape_count = sizeof(decoupled_shapes) / sizeof(decoupled_shapes[0]);
inline constexpr int pipelined_decoupled_shape = 5;
static_assert(decoupled_shapes[pipelined_decoupled_shape].kind == shape_kind::pipeline);
static_assert(decoupled_shapes[4].threads == 256 && decoupled_shapes[4].vectors == 16);  // t256x16

// Values of 1 or 2 bytes pack 16 or 8 per load; they keep one fixed shape
// (128 threads, 32 values per thread) instead of candidates.
inline constexpr int fixed_vector_threads = 128;
inline constexpr int fixed_vector_values_per_thread = 32;
constexpr bool vector_shapes_tunable(std::size_t value_bytes) {
  return value_bytes == 4 || value_bytes == 8 || value_bytes == 16;
}
constexpr int default_vector_shape(std::size_t value_bytes) {
  return value_bytes == 8 ? 2 : value_bytes == 16 ? 4 : 0;
}
// The one-tile default at n values: t256x16 (tiles of 64 KB) in a middle
// range of sizes: half the tiles of the smaller shapes, so half the status
// words to reset and to walk back over.
constexpr int default_vector_shape_for(std::size_t value_bytes, std::int64_t n) {
  constexpr int wide = 4;
  if (value_bytes == 4 && n >= (std::int64_t{1} << 22) && n < (std::int64_t{1} << 24)) return wide;
  if (value_bytes == 8 && n >= (std::int64_t{1} << 20) && n < (std::int64_t{1} << 22)) return wide;
  return default_vector_shape(value_bytes);
}
// From which n the default is the pipelined shape, on GPUs with the bulk
// copy engine: where it measured faster than the one-tile kernel
// (docs/performance.md).
constexpr std::int64_t pipelined_default_from(std::size_t value_bytes) {
  return std::int64_t{1} << (value_bytes == 8 ? 23 : 25);
}

// ---- chained (and the decoupled look-back on iterators): the 2D matrix
// scan [StreamScan] (threads x block scan; items per thread from the value
// size), then StreamScan's 3D arrangement: warp-sized thread groups, each
// owning `register_pieces` + `shared_pieces` pieces of 32 rows x 32 bytes,
// register pieces in registers, shared pieces in shared memory, loads
// coalesced through a padded matrix or strided into each lane's rows. Every
// tile costs one serial hand-off of the chain, so the 3D tiles are large.
// The clustered shapes (k<blocks>, sm_90) make a thread-block cluster one
// link of the chain: its blocks combine their tile totals through
// distributed shared memory and the cluster hands on one prefix
// (agent/cluster_chain.cuh), so the chain has `cluster` times fewer links.
inline constexpr shape chained_shapes[] = {matrix(256, block_scan_algorithm::kogge_stone),
                                           matrix(512, block_scan_algorithm::kogge_stone),
                                           matrix(512, block_scan_algorithm::raking),
                                           matrix(128, block_scan_algorithm::kogge_stone),
                                           stream(true, 512, 8, 8),
                                           stream(false, 512, 8, 8),
                                           stream(true, 512, 0, 8),
                                           stream(true, 512, 8, 8, 8),
                                           stream(true, 512, 8, 8, 16)};
inline constexpr int chained_shape_count = sizeof(chained_shapes) / sizeof(chained_shapes[0]);
inline constexpr int matrix_shape_count = 4;  // chained_shapes[0, 4) are matrix shapes, the rest stream shapes
// The seed's own chain, one link a tile: the default where clusters are not
// (before sm_90), and a policy by name (c512r8s8) everywhere.
inline constexpr int default_chained_shape = matrix_shape_count;  // c512r8s8
inline constexpr int default_cluster_chained_shape = matrix_shape_count + 3;  // c512r8s8k8
static_assert(chained_shapes[default_cluster_chained_shape].cluster > 0);
// Blocks of a cluster beyond 8 need the GPU's non-portable cluster sizes.
inline constexpr int portable_cluster_blocks = 8;
// The longest cudaMemsetAsync that takes the driver's short path: a memset
// up to this many bytes before a kernel costs a fraction of a longer one. A
// single-pass scan whose tile counter and status words together pass it, but
// whose words alone do not, resets them with two memsets (dispatch_scan.cuh:
// reset_tiles).
inline constexpr std::size_t short_memset_bytes = 4096;
// The matrix kernel's default: chained has twice the threads (each tile
// costs a serial hand-off); the decoupled look-back on iterators 256.
constexpr int default_matrix_shape(bool chained) { return chained ? 1 : 0; }

inline constexpr int stream_row_bytes = 32;  // a piece's row: 32 bytes of values (at least one value)
constexpr int stream_row_items(std::size_t value_bytes) {
  return value_bytes >= stream_row_bytes ? 1 : static_cast<int>(stream_row_bytes / value_bytes);
}
// Pieces scale down for values past 32 bytes, so a tile's bytes stay put.
constexpr int stream_pieces(int pieces, std::size_t value_bytes) {
  return value_bytes <= stream_row_bytes ? pieces : static_cast<int>(pieces * stream_row_bytes / value_bytes);
}
constexpr std::int64_t stream_tile_items(const shape& s, std::size_t value_bytes) {
  const int pieces = stream_pieces(s.register_pieces, value_bytes) + stream_pieces(s.shared_pieces, value_bytes);
  return std::int64_t{s.threads} * (pieces > 0 ? pieces : 1) * stream_row_items(value_bytes);
}
// The 3D scan takes raw pointers of values whose size divides 16 (16-byte
// accesses); other values, iterators, misaligned pointers and GPUs whose
// blocks cannot have the shape's shared memory run the 2D default (its
// instances for every iterator type would cost more compile time than they
// save run time). Tile sizes and describe_scan name the shape asked for.
constexpr bool stream_scan_applies(std::size_t value_bytes) { return value_bytes <= 16 && 16 % value_bytes == 0; }

// About 64 bytes of values per thread in registers, at most 16 values.
constexpr int items_per_thread_for(std::size_t value_bytes) {
  const int items = value_bytes >= 64 ? 1 : static_cast<int>(64 / value_bytes);
  return items > 16 ? 16 : items;
}

// ---- reduce_then_scan and scan_then_add: 256 threads per block; the
// candidates are partitions per SM (a run-time value: ~1k partition totals
// stay one block's work for the middle pass while every SM has several).
inline constexpr int multi_pass_threads = 256;
inline constexpr shape multi_pass_shapes[] = {partitions(8), partitions(4), partitions(16), partitions(32)};
inline constexpr int multi_pass_shape_count = sizeof(multi_pass_shapes) / sizeof(multi_pass_shapes[0]);

// ---- compile-time policies

// reduce_then_scan / scan_then_add: a tile's exchange buffer stays at 16 KiB.
template <class A>
struct scan_policy_for {
  static constexpr int threads = multi_pass_threads;
  static constexpr int items_per_thread = items_per_thread_for(sizeof(A));
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr block_scan_algorithm block_algorithm = block_scan_algorithm::kogge_stone;
};

// The matrix-scan single-pass kernel at chained_shapes[Shape] (Shape < matrix_shape_count).
template <class A, bool Chained, int Shape = default_matrix_shape(Chained)>
struct single_pass_policy_for : look_back_tuning {
  static_assert(Shape < matrix_shape_count, "a matrix shape");
  static constexpr int threads = chained_shapes[Shape].threads;
  static constexpr int items_per_thread = items_per_thread_for(sizeof(A));
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr block_scan_algorithm block_algorithm = chained_shapes[Shape].algorithm;
};

// The vectorised single-pass kernel at decoupled_shapes[Shape]; a pipelined
// shape's scan warps are its threads, its rows the vectors.
template <class A, int Shape = default_vector_shape(sizeof(A))>
struct vector_scan_policy_for : look_back_tuning {
  static constexpr bool applies = sizeof(A) <= 16 && 16 % sizeof(A) == 0;
  static constexpr bool tunable = vector_shapes_tunable(sizeof(A));
  static constexpr int vector_width = applies ? static_cast<int>(16 / sizeof(A)) : 1;
  static constexpr int threads = tunable ? decoupled_shapes[Shape].threads : fixed_vector_threads;
  static constexpr int vectors =
      tunable ? decoupled_shapes[Shape].vectors : fixed_vector_values_per_thread / vector_width;
  static constexpr int tile_items = threads * vectors * vector_width;
  static constexpr int stages = tunable ? decoupled_shapes[Shape].stages : 0;
  static constexpr int scan_warps = threads / 32;
  static constexpr int rows = vectors;
  static constexpr int reduce_warps = decoupled_shapes[Shape].reduce_warps;
  // The one-tile kernel: its look-back reads two windows of 32 predecessors
  // a round trip for values of up to 8 bytes (16-byte values would lose
  // blocks a multiprocessor to the registers); on tiles of up to 32 KB each
  // block first asks for the tile of its own index in L2, which its tile id
  // is likely to name (a 64 KB tile's hint competes with its own loads); and
  // it holds the shape's blocks a multiprocessor.
  static constexpr int one_tile_windows = sizeof(A) <= 8 ? 2 : 1;
  static constexpr bool prefetch_own_tile = std::int64_t{threads} * vectors * 16 <= 32 * 1024;
  static constexpr int min_blocks = tunable ? decoupled_shapes[Shape].min_blocks : 1;
};

// StreamScan's 3D scan at chained_shapes[Shape] (a stream shape) for values of A.
template <class A, int Shape>
struct stream_scan_policy_for {
  static constexpr shape s = chained_shapes[Shape];
  static_assert(s.kind == shape_kind::stream_coalesced || s.kind == shape_kind::stream_strided, "a stream shape");
  static constexpr bool coalesced = s.kind == shape_kind::stream_coalesced;
  static constexpr int threads = s.threads;
  static constexpr int row_items = stream_row_items(sizeof(A));  // W
  static constexpr int shared_pieces = stream_pieces(s.shared_pieces, sizeof(A));
  // At least one piece: in registers when the shape's scale down to none.
  static constexpr int register_pieces =
      stream_pieces(s.register_pieces, sizeof(A)) + shared_pieces > 0 ? stream_pieces(s.register_pieces, sizeof(A))
                                                                      : 1;
  static constexpr std::int64_t tile_items = stream_tile_items(s, sizeof(A));
  static constexpr int cluster = s.cluster;  // blocks per chain link; 0: one tile a link
  static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, at most 32 groups");
  static_assert(cluster <= 32, "a cluster's totals are scanned by one warp");
};

// The smallest tile any single-pass candidate of A can run with: the status
// array is sized for it, so one temp allocation fits whichever candidate runs.
template <class A>
constexpr std::int64_t smallest_single_pass_tile() {
  std::int64_t t = vector_scan_policy_for<A>::tile_items;
  if (vector_scan_policy_for<A>::tunable)
    for (const shape& v : decoupled_shapes) {
      const std::int64_t x = std::int64_t{v.threads} * v.vectors * vector_scan_policy_for<A>::vector_width;
      t = x < t ? x : t;
    }
  for (int i = 0; i < matrix_shape_count; ++i) {
    const std::int64_t x = std::int64_t{chained_shapes[i].threads} * items_per_thread_for(sizeof(A));
    t = x < t ? x : t;
  }
  return t;
}

}  // namespace streamscan::tuning
