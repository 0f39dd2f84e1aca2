// streamscan/tuning/tridiagonal.hpp - the tridiagonal solver's shapes. No CUDA.
//
// A block solves one system (or one chunk of a partitioned system) of up to
// max_block_rows rows in shared memory, padded to a power of two: 3 + K arrays
// of that many values (K right-hand sides solved together: 1, or 3 for a
// partitioned chunk's right-hand side and its two couplings), and two buffers
// of up to pcr_rows rows for parallel cyclic reduction. A block has fewer
// threads than rows: every level past the first leaves most of them idle, and
// small blocks let more systems share a multiprocessor.
//
// warp_pcr: systems of at most warp_max_rows rows, one warp each,
// warp_block_threads / 32 systems a block, no shared memory
// (cuda/warp/warp_tridiagonal.cuh). automatic_warp_pcr: automatic takes it for
// such systems with contiguous rows, where it beat hybrid in float (in double
// hybrid stayed ahead; docs/performance.md, "Tridiagonal systems").
//
// thomas, short systems: systems of at most short_max_rows rows (either
// layout) take a thread each, short_threads a block, the forward sweep's two
// values a row in the thread's column of shared memory (2 n short_threads
// values a block: 128 KB at the longest); the thread reads short_slice_rows
// rows at a time, in 16-byte vectors where rows are contiguous, short_depth
// slices ahead of the one it eliminates (cuda/agent/agent_tridiagonal_short.cuh).
// automatic_short_thomas: automatic takes it for such systems from
// thomas_min_systems systems on (fewer threads than that leave the chain of
// loads exposed), and for systems of one slice at any count.
//
// partitioned, thread chunks: where cutting every system into chunks of
// thread_chunk_rows rows gives thomas_min_systems chunks or more, a thread
// solves each chunk with the short systems' slices (the edges pass in one
// forward sweep, no shared memory; the last pass as a short system with its
// separators known, 2 thread_chunk_rows short_threads values of shared memory a
// block); fewer chunks are solved a block each, chunk_rows rows a chunk.
// Where these values come from: docs/design.md, "Tridiagonal systems".
#pragma once

#include <cstdint>

namespace streamscan::tuning {

struct tridiagonal_shape {
  int max_block_rows;    // largest system one block solves (a power of two)
  int chunk_rows;        // partitioned: rows of a chunk, its separator included (a power of two)
  int pcr_rows;          // hybrid: cyclic reduction stops at this many unknowns, PCR solves them
  int max_threads;       // threads of a block: rows / 2, at least a warp, at most this
  int min_blocks;        // blocks a multiprocessor must fit by registers (__launch_bounds__)
  int thread_rows;       // thomas_pcr: rows a thread sweeps on its own (at least 4)
  bool automatic_thomas_pcr;  // automatic (and partitioned chunks) take thomas_pcr rather than hybrid
  std::int64_t thomas_min_systems;  // automatic: a thread per system from this many on (interleaved, or short),
  std::int64_t thomas_max_rows;     // for systems of at most this many rows
  int warp_max_rows;        // warp_pcr: longest system a warp solves (32 or 64: rows a lane, 1 or 2)
  int warp_block_threads;   // warp_pcr: threads of a block, a warp a system
  bool automatic_warp_pcr;  // automatic takes warp_pcr up to warp_max_rows (where it would take hybrid)
  int short_threads;         // thomas, short systems: threads of a block, a system each
  int short_max_rows;        // thomas, short systems: the longest
  int short_slice_rows;      // thomas, short systems: rows a thread reads at a time
  int short_depth;           // thomas, short systems: slices in flight ahead of the one eliminated
  bool automatic_short_thomas;  // automatic takes thomas up to short_max_rows rows
  int thread_chunk_rows;     // partitioned: chunks of this many rows a thread (0: a block a chunk of chunk_rows)
};

constexpr tridiagonal_shape tridiagonal_shape_for(int value_bytes) {
  return {2048, 1024, 64, 128, 8, 8, false, 8192, 128, 64, 256, value_bytes == 4, 64, 1024 / value_bytes, 8, 1, true,
          512 / value_bytes};
}

// Threads of a block for a padded system of `rows` rows.
constexpr int tridiagonal_threads(const tridiagonal_shape& s, std::int64_t rows) {
  const std::int64_t half = rows / 2;
  return half < 32 ? 32 : half > s.max_threads ? s.max_threads : static_cast<int>(half);
}

// The padded size: the next power of two, at least 1.
constexpr std::int64_t tridiagonal_padded_rows(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace streamscan::tuning
