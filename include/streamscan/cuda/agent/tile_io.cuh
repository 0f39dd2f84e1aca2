// streamscan/cuda/agent/tile_io.cuh - where the vectorised single-pass agent
// (agent_single_pass_scan.cuh) reads a tile's values and writes its results.
//
// The agent works in scan order: a tile is `valid` consecutive scan positions
// from `base`, and it asks for `Width` of them at a time (slots s0..s0+Width-1
// of the tile, s0 a multiple of Width), one 16-byte access each when the tile
// is full, one position at a time when it is not. An IO maps scan positions to
// memory and may carry a little per-vector state (`vector_meta`) from the load
// to the store. This one is the plain scan's: an input vector_input.cuh can
// read (a raw pointer, or a transform or counting iterator), a raw output
// pointer, forward or backward. segmented_tile_io.cuh adds head bits for the
// segmented scans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../util/bulk_copy.cuh"
#include "vector_input.cuh"

namespace streamscan::cuda::detail {

// Through the st.global.wb intrinsic (the default policy), not a plain
// assignment: the compiler split the latter into one 8-byte and two 4-byte
// stores for 8-byte values, which ran markedly slower.
template <class T, int Width>
__device__ __forceinline__ void store_16(T* p, const vector_of<T, Width>& v) {
  uint4 raw;
  memcpy(&raw, &v, 16);
  __stwb(reinterpret_cast<uint4*>(p), raw);
}

// Forward, or backward: scan position k is element n - 1 - k, and a vector
// of positions [k, k + Width) is the block of elements that mirrors them,
// reversed in registers (aligned when n - k is a multiple of Width: the
// dispatcher cuts backward tiles from the far end; see next_tile). `In` is a
// raw pointer of A (16-byte accesses) or any input vector_input reads.
template <class A, int Width, bool Backward = false, class In = const A*>
struct vector_tile_io {
  using value_type = A;
  using input = vector_input<In, Width>;
  static constexpr int width = Width;
  struct vector_meta {};

  In in;
  A* out;
  std::int64_t n;

  __device__ std::int64_t element(std::int64_t k) const { return Backward ? n - 1 - k : k; }
  // Element of the lowest address among positions [k, k + Width).
  __device__ std::int64_t first_element(std::int64_t k) const { return Backward ? n - k - Width : k; }

  __device__ void load(std::int64_t base, int s0, A (&v)[Width], vector_meta&) const {
    typename input::value raw[Width];
    input::load(in, first_element(base + s0), raw);
#pragma unroll
    for (int c = 0; c < Width; ++c) v[c] = static_cast<A>(raw[Backward ? Width - 1 - c : c]);
  }
  __device__ A load_one(std::int64_t base, int s, vector_meta&, int) const {
    return static_cast<A>(input::one(in, element(base + s)));
  }
  __device__ void store(std::int64_t base, int s0, const A (&v)[Width], const vector_meta&) const {
    vector_of<A, Width> raw;
#pragma unroll
    for (int c = 0; c < Width; ++c) raw.x[Backward ? Width - 1 - c : c] = v[c];
    store_16<A, Width>(out + first_element(base + s0), raw);
  }
  __device__ void store_one(std::int64_t base, int s, const A& v, const vector_meta&, int) const {
    out[element(base + s)] = v;
  }
  // Asks for positions [base + s0, + count) in L2 ahead of their loads,
  // where the input is a raw pointer of A; else nothing.
  __device__ void prefetch(std::int64_t base, int s0, int count) const {
    if constexpr (std::is_same_v<In, const A*>) {
      const A* lowest = in + (Backward ? n - (base + s0 + count) : base + s0);
      prefetch_range_to_l2(lowest, static_cast<std::size_t>(count) * sizeof(A));
    }
  }
};

}  // namespace streamscan::cuda::detail
