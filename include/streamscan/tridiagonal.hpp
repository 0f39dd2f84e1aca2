// streamscan/tridiagonal.hpp - batches of tridiagonal systems, shared by every
// back end. No CUDA.
//
// Each system s of the batch is n equations
//
//   lower[i] x[i-1] + diagonal[i] x[i] + upper[i] x[i+1] = b[i],  i in [0, n)
//
// where lower[0] and upper[n-1] are ignored (read as zero, whatever they hold).
// There is no pivoting (as cuSPARSE's gtsv2_nopivot): the elimination divides
// by pivots it forms from the diagonal, so the matrix should be diagonally
// dominant (|diagonal[i]| >= |lower[i]| + |upper[i]|, strictly in one row of
// every connected block) or symmetric positive definite; then no pivot is zero
// and the result is accurate. Check a result you doubt by its residual.
//
// Layouts (element i of system s):
//   strided      s * batch_stride + i  (cuSPARSE gtsv2StridedBatch; batch_stride >= n)
//   interleaved  i * batch_count + s   (cuSPARSE gtsvInterleavedBatch)
// The right-hand sides use the layout of the matrix. Several right-hand sides
// per system: rhs_count of them, right-hand side r of the batch starting
// rhs_stride elements after right-hand side r - 1 (default: right after it,
// i.e. batch_count * batch_stride strided, n * batch_count interleaved).
// The solution x has the layout of b; x may be b itself (in place), and must
// not overlap the diagonals.
//
// A zero (or infinite, or NaN) pivot: the CPU back end reports it before it
// writes anything (errc::zero_pivot, naming the system). The GPU back end finds
// it while it eliminates: options.checked makes the call wait, report it the
// same way and write nothing (it solves into temp storage first); otherwise
// the call stays asynchronous and, if options.zero_pivot_at points to one
// int64 in device memory, writes there the lowest index s + r * batch_count of
// a system (s) and right-hand side (r) that met one, or -1. The solution of
// such a system is unspecified; the other systems are solved.
//
// Strategies (GPU; the CPU back end always runs the Thomas algorithm, the
// serially optimal one, a system per task):
//   automatic: hybrid for systems of up to max_block_rows (2048)
//     rows, partitioned past that; thomas for interleaved batches of many
//     short systems, where a thread per system reads coalesced; warp_pcr for
//     float systems of contiguous rows, up to warp_max_rows (64) rows.
//   cyclic_reduction: [ScanPrimitives] 4.3, a block per system in shared
//     memory: log2 n levels eliminate every other remaining unknown (the
//     scan's up-sweep), then log2 n levels substitute back (its down-sweep).
//   parallel_cyclic_reduction: every equation is reduced at every level, so
//     log2 n levels with all threads busy leave n decoupled equations.
//   hybrid: cyclic reduction down to the shape's pcr_rows unknowns,
//     parallel cyclic reduction on those, then cyclic reduction's substitution.
//   thomas_pcr: each thread first sweeps its own few consecutive rows (the
//     Thomas algorithm, down and up), leaving two equations a thread that join
//     the threads; PCR solves those, and each thread reads its rows off them.
//   partitioned: each system is cut into chunks of chunk_rows
//     rows whose last row is a separator; every chunk is solved in a block for
//     its right-hand side and its two couplings, the separators form a smaller
//     tridiagonal system (solved by this same call, recursively), and every
//     chunk is solved again with its separators known. Where that gives many
//     chunks, chunks of thread_chunk_rows rows are solved a thread each.
//   thomas: a thread per system and right-hand side, the Thomas algorithm,
//     with one value per equation of temp storage. Systems of up to
//     short_max_rows rows (256 in float, 128 in double) keep those values in
//     shared memory instead and read their rows several at a time, ahead of
//     the elimination (no temp storage).
//   warp_pcr: a warp per system and right-hand side, several a block,
//     parallel cyclic reduction in registers (the same arithmetic as hybrid's
//     PCR at these sizes), for systems of up to warp_max_rows (64) rows;
//     longer systems run what automatic picks.
// Strategies that keep a whole system in one block take systems up to
// max_block_rows rows; larger ones are refused (shapes: tuning/tridiagonal.hpp).
#pragma once

#include <cstdint>

namespace streamscan {

enum class tridiagonal_layout { strided, interleaved };

enum class tridiagonal_strategy {
  automatic,
  cyclic_reduction,
  parallel_cyclic_reduction,
  hybrid,
  thomas_pcr,
  partitioned,
  thomas,
  warp_pcr,
};

inline const char* to_string(tridiagonal_strategy s) noexcept {
  switch (s) {
    case tridiagonal_strategy::automatic: return "automatic";
    case tridiagonal_strategy::cyclic_reduction: return "cyclic_reduction";
    case tridiagonal_strategy::parallel_cyclic_reduction: return "parallel_cyclic_reduction";
    case tridiagonal_strategy::hybrid: return "hybrid";
    case tridiagonal_strategy::thomas_pcr: return "thomas_pcr";
    case tridiagonal_strategy::partitioned: return "partitioned";
    case tridiagonal_strategy::thomas: return "thomas";
    case tridiagonal_strategy::warp_pcr: return "warp_pcr";
  }
  return "unknown";
}

inline const char* to_string(tridiagonal_layout l) noexcept {
  return l == tridiagonal_layout::strided ? "strided" : l == tridiagonal_layout::interleaved ? "interleaved" : "unknown";
}

struct tridiagonal_options {
  tridiagonal_strategy strategy = tridiagonal_strategy::automatic;
  bool checked = false;                     // GPU: wait, and report a zero pivot as an error
  std::int64_t* zero_pivot_at = nullptr;    // GPU, unchecked: device int64 for the first failed system, or -1
};

// A batch of tridiagonal matrices held elsewhere (device memory for the GPU
// back end). batch_stride is read for the strided layout only.
template <class T>
struct tridiagonal_view {
  using value_type = T;
  std::int64_t n = 0;            // equations per system
  std::int64_t batch_count = 0;  // systems
  std::int64_t batch_stride = 0;
  tridiagonal_layout layout = tridiagonal_layout::strided;
  const T* lower = nullptr;     // lower[0] of each system is ignored
  const T* diagonal = nullptr;
  const T* upper = nullptr;     // upper[n-1] of each system is ignored
  std::int64_t rhs_count = 1;   // right-hand sides per system
  std::int64_t rhs_stride = 0;  // elements between right-hand sides; 0: packed
};

// n x batch_count strided systems, batch_stride = n, one right-hand side.
template <class T>
tridiagonal_view<T> make_tridiagonal_view(std::int64_t n, std::int64_t batch_count, const T* lower,
                                          const T* diagonal, const T* upper,
                                          tridiagonal_layout layout = tridiagonal_layout::strided) {
  tridiagonal_view<T> v;
  v.n = n;
  v.batch_count = batch_count;
  v.batch_stride = n;
  v.layout = layout;
  v.lower = lower;
  v.diagonal = diagonal;
  v.upper = upper;
  return v;
}

}  // namespace streamscan
