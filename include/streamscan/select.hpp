// streamscan/select.hpp - options of stream compaction (select), split and
// partition, shared by every back end. No CUDA.
//
// Compaction keeps the elements whose predicate (or stencil flag) is true, in
// input order, and writes at most `capacity` of them: nothing past the
// capacity is written, and *num_selected receives how many were kept (the
// needed capacity, possibly more than was written). Split ([ScanPrimitives] 2.3.3)
// writes the false elements first, then the true ones, both in input order.
// partition writes the selected first in input order, then the rejected in
// REVERSE input order (CUB's convention: one pass on the GPU, since a
// rejected element's slot counts down from the end); stable_partition keeps
// both halves in input order (two passes on the GPU: count, then place).
// Compaction strategies hybrid and warp_atomic (GPU) leave the selected
// elements in no particular order.
// split_and_segment splits every segment of a segmented input on its own and
// flags the heads of the (non-empty) false and true halves it makes.
#pragma once

namespace streamscan {

enum class select_strategy {
  automatic,    // the back end picks (the CPU: stable)
  stable,       // order-preserving: count, scan the counts, scatter
  multi_level,  // [Compaction] section 3.1 (GPU): 1024-element groups per warp, counter scan, scatter; stable
  hybrid,       // [Compaction] section 3.2 (GPU): one kernel, a group offset per warp by atomicAdd; NOT order-preserving
  warp_atomic,  // [Compaction]'s baseline (GPU): warp-aggregated atomics; NOT order-preserving
};

inline const char* to_string(select_strategy s) noexcept {
  switch (s) {
    case select_strategy::automatic: return "automatic";
    case select_strategy::stable: return "stable";
    case select_strategy::multi_level: return "multi_level";
    case select_strategy::hybrid: return "hybrid";
    case select_strategy::warp_atomic: return "warp_atomic";
  }
  return "unknown";
}

struct select_options {
  select_strategy strategy = select_strategy::automatic;
  // GPU, stable strategy: the kernel shape by name ("t128x8", ...; null or
  // "default": the default). Unknown names are an invalid_argument listing them.
  const char* policy = nullptr;
};

}  // namespace streamscan
