// streamscan/tuning/linear_recurrence.hpp - the linear recurrence's tile
// shapes. No CUDA.
//
// Two kernels (cuda/agent/agent_linear_recurrence.cuh):
//  * rows (time contiguous, time_stride == 1): every sequence laid end to end
//    in scan order, a thread owns `items` consecutive steps (16-byte vector
//    loads where the rows allow), a tile is threads x items steps, chained to
//    its predecessor tile by the decoupled look-back. Short sequences are many
//    per tile; a tile holding a sequence's first step is its own prefix.
//  * lanes (any other layout): a lane owns one sequence, a warp 32 adjacent
//    sequences (coalesced when channel_stride == 1), the block's warps
//    consecutive runs of `items` steps; each lane looks back along its own
//    sequence's chain of tiles.
// items is chosen so that a thread moves 64 bytes of each input (16 for
// 2-byte values: 32 bytes), which keeps enough loads in flight per SM.
#pragma once

#include "shape.hpp"

// Shape experiments rebuild with other values (scripts/gpu-linear-recurrence's
// LR_SHAPES); the defaults are the tuned ones.
#ifndef STREAMSCAN_RECURRENCE_ROWS_THREADS
#define STREAMSCAN_RECURRENCE_ROWS_THREADS 256
#endif
#ifndef STREAMSCAN_RECURRENCE_ROWS_BYTES  // of each input a thread moves (4- and 8-byte values)
#define STREAMSCAN_RECURRENCE_ROWS_BYTES 64
#endif
#ifndef STREAMSCAN_RECURRENCE_CHUNK_ROWS  // one warp a sequence: a lane's vectors a chunk
#define STREAMSCAN_RECURRENCE_CHUNK_ROWS 1
#endif
#ifndef STREAMSCAN_RECURRENCE_CHUNK_BLOCKS  // and the blocks an SM its registers must allow
#define STREAMSCAN_RECURRENCE_CHUNK_BLOCKS 4
#endif
#ifndef STREAMSCAN_RECURRENCE_CHUNK_PREFETCH  // a chunk's loads issued before the previous chunk's scan
#define STREAMSCAN_RECURRENCE_CHUNK_PREFETCH true
#endif
#ifndef STREAMSCAN_RECURRENCE_CHUNK_STAGES  // the forward's chunks staged in shared memory instead (0: in registers)
#define STREAMSCAN_RECURRENCE_CHUNK_STAGES 4
#endif

namespace streamscan::tuning {

struct recurrence_shape {
  int threads;  // a block
  int items;    // steps a thread owns
};

constexpr recurrence_shape recurrence_rows_shape(int value_bytes) {
  constexpr int bytes = STREAMSCAN_RECURRENCE_ROWS_BYTES;
  return {STREAMSCAN_RECURRENCE_ROWS_THREADS, value_bytes >= 8 ? bytes / 8 : bytes / 4};
}
constexpr recurrence_shape recurrence_lanes_shape(int value_bytes) {
  return {256, value_bytes >= 8 ? 8 : 16};
}

// The forward pass of dense rows through the plain scan's vectorised agent
// (agent/recurrence_tile_io.cuh): the rows shape, its items as 16-byte
// vectors of each input (Width values of ValueBytes).
template <int ValueBytes>
struct recurrence_vector_policy : look_back_tuning {
  static constexpr recurrence_shape shape = recurrence_rows_shape(ValueBytes);
  static constexpr int width = 16 / ValueBytes;
  static constexpr int threads = shape.threads;
  static constexpr int vectors = shape.items / width > 0 ? shape.items / width : 1;
  static constexpr int tile_items = threads * vectors * width;
};

// One warp a sequence (agent/agent_row_chunks.cuh): a block's
// threads, a lane's 16-byte vectors of each input per chunk, the blocks an
// SM the kernel's registers must allow (its launch bound), how a warp keeps
// loads in flight while it scans (the forward, stages > 0: the next stages - 1
// chunks as asynchronous copies to shared memory; the gradient, and the
// forward with stages 0: with prefetch, the next chunk in registers), and from
// how many sequences an SM the dispatch prefers it to the look-back. Staged
// chunks keep a warp's next 3 KiB of input in flight at no register cost,
// which the register prefetch could not reach.
struct recurrence_chunk_shape {
  int threads, rows, min_blocks, min_sequences_per_sm;
  bool prefetch;  // agent_row_chunks' Prefetch
  int stages;     // the forward: > 0, agent_row_chunks_staged's Stages (asynchronous copies); 0: Prefetch
};
constexpr recurrence_chunk_shape recurrence_chunk_shape_for(int /*value_bytes*/) {
  return {256, STREAMSCAN_RECURRENCE_CHUNK_ROWS, STREAMSCAN_RECURRENCE_CHUNK_BLOCKS, 24,
          STREAMSCAN_RECURRENCE_CHUNK_PREFETCH, STREAMSCAN_RECURRENCE_CHUNK_STAGES};
}

}  // namespace streamscan::tuning
