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
// thomas, staged: where a system's rows are contiguous (element_stride 1) and
// it has at most staged_max_rows rows, a block of staged_systems threads
// stages that many systems (lower, diagonal, upper, rhs, a row pitch of n | 1)
// in shared memory, reading them coalesced, and each thread runs the Thomas
// algorithm on its own (cuda/block/block_tridiagonal_staged.cuh). A block
// takes 4 x staged_systems x (n | 1) values: 32 systems of 64 rows are 33 KB
// in float, 66 KB in double, so that several blocks share a multiprocessor.
// automatic_staged_thomas: automatic takes thomas for such systems. Off: a
// block of one warp, and a few blocks an SM for the shared memory, leave too
// few loads in flight; it ran behind hybrid and warp_pcr.
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
  std::int64_t thomas_min_systems;  // automatic, interleaved: a thread per system from this many on,
  std::int64_t thomas_max_rows;     // for systems of at most this many rows
  int warp_max_rows;        // warp_pcr: longest system a warp solves (32 or 64: rows a lane, 1 or 2)
  int warp_block_threads;   // warp_pcr: threads of a block, a warp a system
  bool automatic_warp_pcr;  // automatic takes warp_pcr up to warp_max_rows (where it would take hybrid)
  int staged_systems;       // thomas, staged: systems a block, a thread each (the block's threads)
  int staged_max_rows;      // thomas, staged: longest system staged in shared memory
  bool automatic_staged_thomas;  // automatic takes thomas for strided systems of up to staged_max_rows rows
};

constexpr tridiagonal_shape tridiagonal_shape_for(int value_bytes) {
  return {2048, 1024, 64, 128, 8, 8, false, 8192, 128, 64, 256, value_bytes == 4, 32, 64, false};
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
