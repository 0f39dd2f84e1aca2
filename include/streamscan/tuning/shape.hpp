// streamscan/tuning/shape.hpp - the one record that describes a compiled-in
// kernel shape of any algorithm, and its one name grammar. No CUDA.
//
// Every algorithm with shapes (tuning/scan.hpp, tuning/segmented_scan.hpp,
// tuning/select.hpp) lists its candidates as `shape`s; the kernels read them
// as compile-time constants, the dispatcher picks one by index
// (tuning/choose.hpp), `streamscan tune` times them and the tuning file
// (streamscan/tuning.hpp) stores the winner by name. Names:
//
//   tile            t<threads>x<vectors>             one tile per block, `vectors`
//                                                    16-byte loads per thread
//   segmented_tile  s<threads>x<vectors>             the segmented scan's one-tile kernel
//   pipeline        p<threads>x<vectors>s<stages>[r<reduce warps, if not 2>]
//                                                    persistent blocks, `stages` tiles
//                                                    streamed into shared memory
//   outbox          o<threads>x<vectors>s<stages>b<ring KB>
//                                                    compaction whose selections wait
//                                                    for their prefix in a ring
//   matrix          t<threads>-<block scan>          the 2D matrix scan [StreamScan]
//   stream          c|s<threads>r<register pieces>s<shared pieces>[k<cluster>]
//                                                    StreamScan's 3D scan, coalesced or
//                                                    strided loads; with k, the chain's
//                                                    links are clusters of that many
//                                                    blocks (sm_90), not single tiles
//   partitions      p<partitions per SM>             the multi-pass scans
#pragma once

#include <cstdint>
#if !defined(__CUDACC_RTC__)  // the names are host code; NVRTC (streamscan/nvrtc) compiles the shapes only
#include <cstdio>
#include <string>
#endif

#include "../block_scan_algorithm.hpp"

namespace streamscan::tuning {

enum class shape_kind : unsigned char { tile, segmented_tile, pipeline, outbox, matrix, stream_coalesced, stream_strided, partitions };

struct shape {
  shape_kind kind = shape_kind::tile;
  int threads = 0;          // threads per block; a pipeline's consumer (scan, pack) threads
  int vectors = 0;          // 16-byte loads (rows) per thread
  int stages = 0;           // pipeline, outbox: tiles in shared memory at once
  int reduce_warps = 2;     // pipeline: warps that reduce each landed tile
  int ring_kb = 0;          // outbox: the ring holding selections until their prefix is known
  int register_pieces = 0;  // stream: pieces of 32 rows a thread group keeps in registers
  int shared_pieces = 0;    // stream: ... and in shared memory
  int cluster = 0;          // stream: blocks per thread-block cluster (one chain link each); 0: none
  block_scan_algorithm algorithm = block_scan_algorithm::kogge_stone;  // matrix
  int partitions_per_sm = 0;  // partitions
  int min_blocks = 1;  // tile: blocks a multiprocessor must hold (__launch_bounds__); not in the name
};

constexpr shape tile(int threads, int vectors, int min_blocks = 1) {
  shape s{shape_kind::tile, threads, vectors};
  s.min_blocks = min_blocks;
  return s;
}
constexpr shape segmented_tile(int threads, int vectors) { return {shape_kind::segmented_tile, threads, vectors}; }
constexpr shape pipeline(int threads, int vectors, int stages, int reduce_warps = 2) {
  return {shape_kind::pipeline, threads, vectors, stages, reduce_warps};
}
constexpr shape outbox(int threads, int vectors, int stages, int ring_kb) {
  return {shape_kind::outbox, threads, vectors, stages, 2, ring_kb};
}
constexpr shape matrix(int threads, block_scan_algorithm a) {
  shape s{shape_kind::matrix, threads};
  s.algorithm = a;
  return s;
}
constexpr shape stream(bool coalesced, int threads, int register_pieces, int shared_pieces, int cluster = 0) {
  shape s{coalesced ? shape_kind::stream_coalesced : shape_kind::stream_strided, threads};
  s.register_pieces = register_pieces;
  s.shared_pieces = shared_pieces;
  s.cluster = cluster;
  return s;
}
constexpr shape partitions(int per_sm) {
  shape s{shape_kind::partitions};
  s.partitions_per_sm = per_sm;
  return s;
}

constexpr bool is_persistent(const shape& s) { return s.kind == shape_kind::pipeline || s.kind == shape_kind::outbox; }

// Loads per thread of a shape for `width` items per load, capped so that a
// thread holds at most `max_items` items (one bit each in the agents' masks).
constexpr int vectors_for(const shape& s, int width, int max_items = 64) {
  return s.vectors * width > max_items ? max_items / width : s.vectors;
}

#if !defined(__CUDACC_RTC__)
// The name of a shape (the grammar above).
inline std::string name(const shape& s) {
  char buf[48];
  switch (s.kind) {
    case shape_kind::tile: std::snprintf(buf, sizeof buf, "t%dx%d", s.threads, s.vectors); break;
    case shape_kind::segmented_tile: std::snprintf(buf, sizeof buf, "s%dx%d", s.threads, s.vectors); break;
    case shape_kind::pipeline:
      if (s.reduce_warps != 2)
        std::snprintf(buf, sizeof buf, "p%dx%ds%dr%d", s.threads, s.vectors, s.stages, s.reduce_warps);
      else
        std::snprintf(buf, sizeof buf, "p%dx%ds%d", s.threads, s.vectors, s.stages);
      break;
    case shape_kind::outbox:
      std::snprintf(buf, sizeof buf, "o%dx%ds%db%d", s.threads, s.vectors, s.stages, s.ring_kb);
      break;
    case shape_kind::matrix: std::snprintf(buf, sizeof buf, "t%d-%s", s.threads, to_string(s.algorithm)); break;
    case shape_kind::stream_coalesced:
    case shape_kind::stream_strided: {
      const int at = std::snprintf(buf, sizeof buf, "%c%dr%ds%d", s.kind == shape_kind::stream_coalesced ? 'c' : 's',
                                   s.threads, s.register_pieces, s.shared_pieces);
      if (s.cluster > 0) std::snprintf(buf + at, sizeof buf - at, "k%d", s.cluster);
      break;
    }
    case shape_kind::partitions: std::snprintf(buf, sizeof buf, "p%d", s.partitions_per_sm); break;
    default: return {};
  }
  return buf;
}
#endif

// The look-back's constants, shared by every single-pass kernel: the cap of
// the polling backoff, and a pipeline's look-back warps and the windows of
// 32 predecessors each inspects per round trip.
struct look_back_tuning {
  static constexpr unsigned look_back_sleep_ns = 1024;
  static constexpr int look_back_warps = 2;
  static constexpr int look_back_windows = 4;
  // The vectorised one-tile kernel (single_pass_vector_scan_kernel), which
  // vector_scan_policy_for (scan.hpp) sets per shape: windows its look-back
  // reads a round trip; whether a block first asks for its own index's tile
  // in L2; blocks a multiprocessor must hold. Experiments only
  // (experiments/scan_shapes): the tree walk (exactly associative operators),
  // and tile ids by block index instead of the counter (which assumes blocks
  // start in index order: no forward-progress guarantee).
  static constexpr int one_tile_windows = 1;
  static constexpr bool prefetch_own_tile = false;
  static constexpr int min_blocks = 1;
  static constexpr bool one_tile_trees = false;
  static constexpr bool tiles_by_block_index = false;
};

}  // namespace streamscan::tuning
