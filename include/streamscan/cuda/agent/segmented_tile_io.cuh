// streamscan/cuda/agent/segmented_tile_io.cuh - the tile IO (tile_io.cuh)
// of the dedicated segmented and backward scans: an input vector_input.cuh
// can read (a raw pointer of the value type V, or a transform or counting
// iterator), a raw output pointer of V, head bits, forward or backward.
//
// It hands the agent (agent_segmented_scan.cuh) values and their head bits
// read straight from memory: one 16-byte load of Width values and one 32-bit
// word of head bits per vector (two when a backward vector's flags straddle a
// word), instead of a generic iterator's per-element reads. Backward scans
// read the vector that mirrors the slots and reverse it in registers; the
// dispatcher cuts backward tiles from the far end (the first tile in scan
// order starts with filler slots), so every full tile's vectors are 16-byte
// aligned.
//
// It keeps its own pointers and address arithmetic rather than wrapping
// vector_tile_io: the wrapped version measured slower.
#pragma once

#include <cstdint>

#include "../../detail/segmented_scan.hpp"
#include "segmented_tile_status.cuh"
#include "tile_io.cuh"

namespace streamscan::cuda::detail {

// Backward is a template parameter: the mirrored addresses and the reversal
// in registers then cost nothing in forward scans.
template <class V, int Width, class Op, bool Backward, class In = const V*>
struct segmented_tile_io {
  using value_type = V;
  using input = vector_input<In, Width>;
  static constexpr int width = Width;
  static constexpr bool backward = Backward;
  static constexpr std::uint32_t all_slots = Width == 32 ? ~0u : (1u << Width) - 1u;
  static_assert(32 % Width == 0, "a vector's head bits must not straddle a word going forward");
  // The slots' own head bits (bit c: slot s0 + c): an exclusive scan writes
  // the init there, whatever the pair in the slot holds by then.
  struct vector_meta {
    std::uint32_t heads;
  };

  In in;
  V* out;
  streamscan::detail::segment_heads heads;
  V init;
  bool fold_init;  // inclusive_init and exclusive: every segment starts from init
  bool exclusive;
  mutable Op op;

  // Element of the lowest address among scan positions [k, k + Width).
  __device__ std::int64_t first_element(std::int64_t k) const { return Backward ? heads.n - k - Width : k; }

  // What a warp's lanes hand on from one row of vectors to the next (load):
  // backward, the flag word just above lane 0's vector.
  struct row_link {
    std::uint32_t above = 0;
    bool first_row = true;
  };

  // Heads of scan positions [k, k + Width), all in [0, n), k a multiple of
  // Width, for the warp-striped rows of load().
  __device__ std::uint32_t head_run(std::int64_t k, row_link& link) const {
    if constexpr (!Backward) {
      const std::uint32_t m = (heads.bits[(k >> 5) & heads.word_index_mask] >> (k & 31)) & all_slots;
      return k == 0 ? m | 1u : m;
    } else {
      std::int64_t j, top;
      flag_span(k, j, top);
      const std::uint32_t lo = heads.bits[(j >> 5) & heads.word_index_mask];
      std::uint32_t hi = lo;  // Width 1: j == top
      if constexpr (Width > 1) {
        // The top flag's word is the one lane l - 1 loaded for the vector
        // above (it starts at element top, aligned to Width, so its own j =
        // top + 1 shares top's word); lane 0 takes it from lane 31 of the
        // row before, and loads it in the first row. One flag load per
        // vector instead of two, which brings backward scans close to
        // forward ones.
        const int lane = static_cast<int>(threadIdx.x % 32);
        const std::uint32_t rotated = __shfl_sync(0xffffffffu, lo, (lane + 31) % 32);
        if (lane == 0) {
          hi = link.first_row ? heads.bits[(top >> 5) & heads.word_index_mask] : link.above;
          link.above = rotated;
        } else {
          hi = rotated;
        }
        link.first_row = false;
      }
      return mirrored_run(k, j, lo, hi);
    }
  }
  // Heads of scan positions [k, k + Width) that lie in [0, n) (partial
  // tiles), one position at a time; none elsewhere.
  __device__ std::uint32_t head_run_clipped(std::int64_t k) const {
    std::uint32_t m = 0;
#pragma unroll
    for (int c = 0; c < Width; ++c)
      if (k + c >= 0 && k + c < heads.n) m |= static_cast<std::uint32_t>(heads(k + c)) << c;
    return m;
  }

  // Every segment starts from init (inclusive_init, exclusive): folded in at
  // the head. The same for the whole call: no divergence.
  __device__ V fold(V x, bool head) const {
    // A select, not a branch: a branch per slot keeps the compiler from
    // overlapping vectors (the pipelined reduce warps fold one per step).
    const V folded = static_cast<V>(op(init, x));
    return fold_init && head ? folded : x;
  }

  // Full tiles only: all 32 lanes call it together, row after row of a
  // warp's slice, lane l on the vector after lane l - 1's and lane 0 on the
  // one after the previous row's lane 31 (agent_segmented_scan's layout);
  // `link` starts default-constructed for each slice.
  __device__ void load(std::int64_t base, int s0, V (&v)[Width], vector_meta& meta, row_link& link) const {
    const std::int64_t k = base + s0;
    typename input::value raw[Width];
    input::load(in, first_element(k), raw);
    meta.heads = head_run(k, link);
#pragma unroll
    for (int c = 0; c < Width; ++c)
      v[c] = fold(static_cast<V>(raw[Backward ? Width - 1 - c : c]), ((meta.heads >> c) & 1u) != 0);
  }
  __device__ V load_one(std::int64_t base, int s, vector_meta& meta, int c) const {
    const std::int64_t k = base + s;
    const bool head = heads(k);
    meta.heads |= static_cast<std::uint32_t>(head) << c;
    return fold(static_cast<V>(input::one(in, heads.element(k))), head);
  }

  __device__ V result(const V& x, const vector_meta& meta, int c) const {
    return exclusive && ((meta.heads >> c) & 1u) != 0 ? init : x;
  }
  __device__ void store(std::int64_t base, int s0, const V (&v)[Width], const vector_meta& meta) const {
    vector_of<V, Width> raw;
#pragma unroll
    for (int c = 0; c < Width; ++c) raw.x[Backward ? Width - 1 - c : c] = v[c];
    if (exclusive) {  // the same for the whole call
#pragma unroll
      for (int c = 0; c < Width; ++c)
        if ((meta.heads >> c) & 1u) raw.x[Backward ? Width - 1 - c : c] = init;
    }
    store_16<V, Width>(out + first_element(base + s0), raw);
  }
  __device__ void store_one(std::int64_t base, int s, const V& x, const vector_meta& meta, int c) const {
    out[heads.element(base + s)] = result(x, meta, c);
  }
 private:
  // Backward: the Width flags from bit `shift` of the word pair (lo, hi),
  // reversed (slot c <- flag Width - 1 - c). One funnel shift: 32-bit ops
  // keep the backward kernel's register pressure down.
  __device__ static std::uint32_t mirror_flags(std::uint32_t lo, std::uint32_t hi, unsigned shift) {
    const std::uint32_t f = __funnelshift_r(lo, hi, shift) & all_slots;
    return __brev(f) >> (32 - Width);
  }
  // Backward, position k + c restarts where element n - k - c is flagged:
  // the flags of elements j .. top = j + Width - 1, read in reverse. The top
  // one is element n when k == 0 (clamped: position 0 is a head anyway).
  __device__ void flag_span(std::int64_t k, std::int64_t& j, std::int64_t& top) const {
    j = heads.n - k - Width + 1;
    top = j + Width - 1 < heads.n ? j + Width - 1 : heads.n - 1;
    j = j < top ? j : top;  // Width 1, k == 0: element n
  }
  __device__ static std::uint32_t mirrored_run(std::int64_t k, std::int64_t j, std::uint32_t lo, std::uint32_t hi) {
    const std::uint32_t m = mirror_flags(lo, hi, static_cast<unsigned>(j & 31));
    return k == 0 ? m | 1u : m;
  }
};

}  // namespace streamscan::cuda::detail
