// streamscan/detail/tuning_space.hpp - the compiled-in policy candidates of
// each scan strategy: one constexpr source for the kernels (compile-time
// shapes), the dispatcher (which one runs), `streamscan tune` (which ones to
// time) and the tuning file's validation (which names exist). No CUDA.
//
// A candidate has a short name written to the tuning file, e.g. "t256x12"
// (decoupled look-back: 256 threads, 12 16-byte loads in flight per thread),
// "t512-raking" (chained, 2D matrix scan: 512 threads, raking block scan),
// "c512r8s8" (chained, StreamScan: coalesced loads, 512 threads, 8 register
// and 8 shared-memory pieces per thread group), "p16" (multi-pass:
// 16 partitions per SM).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "../scan_options.hpp"

namespace streamscan {

// How a tile's per-thread totals are scanned inside a block.
enum class block_scan_algorithm { kogge_stone, brent_kung, raking };

inline const char* to_string(block_scan_algorithm a) noexcept {
  switch (a) {
    case block_scan_algorithm::kogge_stone: return "kogge_stone";
    case block_scan_algorithm::brent_kung: return "brent_kung";
    case block_scan_algorithm::raking: return "raking";
  }
  return "unknown";
}

namespace detail {

// decoupled_lookback, vectorised kernel (raw pointers, values of 4, 8 or 16
// bytes): threads per block x 16-byte loads in flight per thread. The
// defaults came from bench/tune_single_pass on an H200 (see scan_policy.cuh).
// A shape with `stages` is the pipelined kernel (sm_90+,
// cuda/kernels/pipelined_scan_kernel.cuh): `threads` scan threads (plus
// producer, reduce and look-back warps) x `vectors` rows, `stages` tiles in
// shared memory.
struct vector_shape {
  int threads;
  int vectors;
  int stages = 0;  // 0: one tile per block, in registers
};
inline constexpr vector_shape vector_shapes[] = {{128, 16}, {128, 8}, {256, 8}, {256, 12}, {256, 16}, {256, 8, 6}};
inline constexpr int vector_shape_count = sizeof(vector_shapes) / sizeof(vector_shapes[0]);
inline constexpr int pipelined_vector_shape = 5;

// From which n the built-in default is the pipelined shape (on GPUs that
// have the bulk copy engine): where it measured faster than the
// one-tile-per-block default on an H200, 2026-11-22 (docs/performance.md,
// "Pipelined look-back"; experiments/pipelined_scan.cu): int32 2^26 0.197
// against 0.208 ms, 2^28 0.677 against 0.716 (1.04x CUB), 2^30 2.616 against
// 2.812; at 2^24 a tie (0.064 / 0.065). uint64 lost through the library (2^28
// 1.324 against 1.288 ms) and 16-byte values were not measured: never.
constexpr std::int64_t pipelined_default_from(std::size_t value_bytes) {
  return value_bytes == 4 ? std::int64_t{1} << 26 : INT64_MAX;
}

// Values of 1 or 2 bytes pack 16 or 8 per load; they keep one fixed shape
// (128 threads, 32 values per thread) instead of a candidate list.
inline constexpr int fixed_vector_threads = 128;
inline constexpr int fixed_vector_values_per_thread = 32;
constexpr bool vector_shapes_tunable(std::size_t value_bytes) {
  return value_bytes == 4 || value_bytes == 8 || value_bytes == 16;
}
constexpr int default_vector_shape(std::size_t value_bytes) {
  return value_bytes == 8 ? 3 : value_bytes == 16 ? 4 : 0;
}

// chained (and the decoupled look-back on iterators): threads x block scan;
// items per thread follow from the value size (about 64 bytes per thread).
struct tile_shape {
  int threads;
  block_scan_algorithm algorithm;
};
inline constexpr tile_shape tile_shapes[] = {{256, block_scan_algorithm::kogge_stone},
                                             {512, block_scan_algorithm::kogge_stone},
                                             {512, block_scan_algorithm::raking},
                                             {128, block_scan_algorithm::kogge_stone}};
inline constexpr int tile_shape_count = sizeof(tile_shapes) / sizeof(tile_shapes[0]);
constexpr int default_tile_shape(bool chained) { return chained ? 1 : 0; }

// chained's own candidates, after the tile shapes above (seed 000's 2D matrix
// scan, agent_scan.cuh): StreamScan's 3D arrangement (agent_stream_scan.cuh).
// Warp-sized thread groups, each owning `register_pieces` + `shared_pieces`
// pieces of 32 x (32 bytes) of the tile: register pieces live in registers,
// shared pieces in shared memory (sec. 3.3.2); loads coalesced through a
// padded shared-memory matrix or strided straight into each lane's rows
// (sec. 3.3.3-3.3.4). Every tile costs one serial hand-off of the chain
// (~0.4 us on an H200), so the shapes are large: one block of 512 threads
// per SM holds 64 KiB of values in registers and 128 KiB in shared memory.
enum class stream_load : char { coalesced = 'c', strided = 's' };
struct stream_shape {
  stream_load load;
  int threads;
  int register_pieces;
  int shared_pieces;
};
inline constexpr stream_shape stream_shapes[] = {{stream_load::coalesced, 512, 8, 8},
                                                 {stream_load::strided, 512, 8, 8},
                                                 {stream_load::coalesced, 512, 0, 8}};
inline constexpr int stream_shape_count = sizeof(stream_shapes) / sizeof(stream_shapes[0]);
inline constexpr int stream_row_bytes = 32;  // a piece's row: 32 bytes of values (at least one value)
constexpr int stream_row_items(std::size_t value_bytes) {
  return value_bytes >= stream_row_bytes ? 1 : static_cast<int>(stream_row_bytes / value_bytes);
}
// Pieces scale down for values past 32 bytes, so a tile's bytes stay put.
constexpr int stream_pieces(int pieces, std::size_t value_bytes) {
  return value_bytes <= stream_row_bytes ? pieces : static_cast<int>(pieces * stream_row_bytes / value_bytes);
}
constexpr std::int64_t stream_tile_items(const stream_shape& s, std::size_t value_bytes) {
  const int pieces = stream_pieces(s.register_pieces, value_bytes) + stream_pieces(s.shared_pieces, value_bytes);
  return std::int64_t{s.threads} * (pieces > 0 ? pieces : 1) * stream_row_items(value_bytes);
}
// The 3D scan takes raw pointers of values whose size divides 16 (16-byte
// accesses); other values and iterators run the 2D default for any stream
// shape (its instances for every iterator type would cost more compile time
// than they would save run time). So do misaligned pointers and GPUs whose
// blocks cannot have the shape's shared memory (c512r8s8 and c512r0s8 need
// 192 KiB, s512r8s8 128 KiB: Hopper and Blackwell have it, an A100's 163 KiB
// does not); candidate_tile_items and describe_scan name the shape asked
// for, not that fallback.
constexpr bool stream_scan_applies(std::size_t value_bytes) { return value_bytes <= 16 && 16 % value_bytes == 0; }
inline constexpr int chained_candidate_count = tile_shape_count + stream_shape_count;
inline constexpr int default_chained_candidate = tile_shape_count;  // the first stream shape

constexpr int items_per_thread_for(std::size_t value_bytes) {
  const int items = value_bytes >= 64 ? 1 : static_cast<int>(64 / value_bytes);
  return items > 16 ? 16 : items;
}

// reduce_then_scan and scan_then_add: 256 threads per block, and partitions
// per SM (a run-time value).
inline constexpr int multi_pass_threads = 256;
inline constexpr int partition_counts[] = {8, 4, 16, 32};
inline constexpr int partition_count_count = sizeof(partition_counts) / sizeof(partition_counts[0]);

// The candidates one strategy has for one value size, by name.
struct candidate_set {
  enum kind_t { none, vector, chained, partitions } kind = none;
  int count = 0;
  int default_index = 0;
};

constexpr candidate_set candidates_for(scan_strategy s, std::size_t value_bytes) {
  switch (s) {
    case scan_strategy::decoupled_lookback:
      if (vector_shapes_tunable(value_bytes))
        return {candidate_set::vector, vector_shape_count, default_vector_shape(value_bytes)};
      return {};
    case scan_strategy::chained: return {candidate_set::chained, chained_candidate_count, default_chained_candidate};
    case scan_strategy::reduce_then_scan:
    case scan_strategy::scan_then_add: return {candidate_set::partitions, partition_count_count, 0};
    default: return {};
  }
}

inline std::string candidate_name(scan_strategy s, std::size_t value_bytes, int index) {
  const candidate_set set = candidates_for(s, value_bytes);
  if (index < 0 || index >= set.count) return {};
  char buf[48];
  switch (set.kind) {
    case candidate_set::vector:
      if (vector_shapes[index].stages > 0)
        std::snprintf(buf, sizeof buf, "p%dx%ds%d", vector_shapes[index].threads, vector_shapes[index].vectors,
                      vector_shapes[index].stages);
      else
        std::snprintf(buf, sizeof buf, "t%dx%d", vector_shapes[index].threads, vector_shapes[index].vectors);
      break;
    case candidate_set::chained:
      if (index < tile_shape_count) {
        std::snprintf(buf, sizeof buf, "t%d-%s", tile_shapes[index].threads, to_string(tile_shapes[index].algorithm));
      } else {
        const stream_shape& t = stream_shapes[index - tile_shape_count];
        std::snprintf(buf, sizeof buf, "%c%dr%ds%d", static_cast<char>(t.load), t.threads, t.register_pieces,
                      t.shared_pieces);
      }
      break;
    case candidate_set::partitions: std::snprintf(buf, sizeof buf, "p%d", partition_counts[index]); break;
    default: return {};
  }
  return buf;
}

// Values per tile of candidate `index` (the vectorised kernel's where the
// decoupled look-back has one for this value size; the multi-pass strategies'
// tile for every partition count). Tests and `verify` aim at its edges.
constexpr std::int64_t candidate_tile_items(scan_strategy s, std::size_t value_bytes, int index) {
  const candidate_set set = candidates_for(s, value_bytes);
  const bool vector_kernel = value_bytes <= 16 && 16 % value_bytes == 0;
  if (set.kind == candidate_set::vector)
    return std::int64_t{vector_shapes[index].threads} * vector_shapes[index].vectors * static_cast<int>(16 / value_bytes);
  if (set.kind == candidate_set::chained)
    return index >= tile_shape_count && stream_scan_applies(value_bytes)
               ? stream_tile_items(stream_shapes[index - tile_shape_count], value_bytes)
               : std::int64_t{tile_shapes[index < tile_shape_count ? index : default_tile_shape(true)].threads} *
                     items_per_thread_for(value_bytes);
  if (s == scan_strategy::decoupled_lookback || s == scan_strategy::automatic)
    return vector_kernel ? std::int64_t{fixed_vector_threads} * fixed_vector_values_per_thread
                         : std::int64_t{tile_shapes[default_tile_shape(false)].threads} * items_per_thread_for(value_bytes);
  return std::int64_t{multi_pass_threads} * items_per_thread_for(value_bytes);
}

// Index of a candidate by name, -1 when this strategy and value size have none of that name.
inline int candidate_index(scan_strategy s, std::size_t value_bytes, const std::string& name) {
  const candidate_set set = candidates_for(s, value_bytes);
  for (int i = 0; i < set.count; ++i)
    if (candidate_name(s, value_bytes, i) == name) return i;
  return -1;
}

}  // namespace detail
}  // namespace streamscan
