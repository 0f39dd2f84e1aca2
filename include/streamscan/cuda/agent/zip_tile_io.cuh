// streamscan/cuda/agent/zip_tile_io.cuh - the tile IO (tile_io.cuh) of a
// scan of structs whose fields live in separate arrays (struct of arrays, as
// a Python caller holds them: one array a field), over rows of one length
// laid end to end, each row scanned on its own: the segmented scan's agent
// (agent_segmented_scan.cuh) with heads computed from the position instead of
// read from memory.
//
// Each field is read and written `Width` values at a time (one vector load or
// store of Width * sizeof(field) bytes, at most 16), and the struct is
// assembled in registers; a field whose output pointer is null is not
// written. Backward scans read the vector that mirrors the slots and reverse
// it in registers, as segmented_tile_io.cuh does (the dispatcher cuts
// backward tiles from the far end, so full tiles stay aligned).
// zip_rows_chunk_io: the same rows for the one-warp-a-row agent.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "tile_io.cuh"
#include "vector_input.cuh"

namespace streamscan::cuda::detail {

// One field of the struct V: its member (of type T), and the type its array
// stores (Storage: T, or a narrower type the member widens, e.g. a bfloat16
// array read into a float member and rounded once when written back).
template <class T, class V, T V::*Member, class Storage = T>
struct zip_field {
  using type = Storage;
  using member_type = T;
  __device__ static T& of(V& v) { return v.*Member; }
  __device__ static const T& of(const V& v) { return v.*Member; }
};

// One address a field: the inputs, or the outputs (null: not written).
inline constexpr int zip_max_fields = 16;
struct zip_pointers {
  void* field[zip_max_fields];
};

template <class V, int Width, bool Backward, class... Fields>
struct zip_rows_tile_io {
  using value_type = V;
  static constexpr int width = Width;
  static constexpr bool backward = Backward;
  static_assert(sizeof...(Fields) >= 1 && sizeof...(Fields) <= zip_max_fields, "1 to zip_max_fields fields");
  static_assert(32 % Width == 0, "a vector's head bits must not straddle a word");
  struct vector_meta {
    std::uint32_t heads;
  };
  // A lane's vectors come 32 * Width positions apart (agent_segmented_scan's
  // layout): their places in the row follow from the first one's by an
  // addition, not a division each.
  struct row_link {
    std::int64_t place = -1;  // of the previous vector's first position in its row; -1: none yet
  };

  zip_pointers in, out;
  std::int64_t n;       // scan positions: rows x length
  std::int64_t length;  // of a row (at least 1)
  std::int64_t step;    // (32 * Width) % length

  __device__ std::int64_t element(std::int64_t k) const { return Backward ? n - 1 - k : k; }
  // Element of the lowest address among scan positions [k, k + Width).
  __device__ std::int64_t first_element(std::int64_t k) const { return Backward ? n - k - Width : k; }

  // Heads of scan positions [k, k + Width), the first of which is at place r
  // of its row: a row starts at every multiple of the length, in either
  // direction (n is whole rows).
  __device__ std::uint32_t head_run(std::int64_t r) const {
    std::uint32_t m = 0;
#pragma unroll
    for (int c = 0; c < Width; ++c) {
      m |= static_cast<std::uint32_t>(r == 0) << c;
      r = r + 1 == length ? 0 : r + 1;
    }
    return m;
  }

  // Full tiles only (agent_segmented_scan's layout).
  __device__ void load(std::int64_t base, int s0, V (&v)[Width], vector_meta& meta, row_link& link) const {
    const std::int64_t k = base + s0;
    load_fields(first_element(k), v, std::index_sequence_for<Fields...>{});
    std::int64_t r = link.place + step;
    if (link.place < 0) r = k % length;
    else if (r >= length) r -= length;
    link.place = r;
    meta.heads = head_run(r);
  }
  __device__ V load_one(std::int64_t base, int s, vector_meta& meta, int c) const {
    const std::int64_t k = base + s;
    V x;
    load_one_fields(element(k), x, std::index_sequence_for<Fields...>{});
    meta.heads |= static_cast<std::uint32_t>(k % length == 0) << c;
    return x;
  }
  __device__ void store(std::int64_t base, int s0, const V (&v)[Width], const vector_meta&) const {
    store_fields(first_element(base + s0), v, std::index_sequence_for<Fields...>{});
  }
  __device__ void store_one(std::int64_t base, int s, const V& x, const vector_meta&, int) const {
    store_one_fields(element(base + s), x, std::index_sequence_for<Fields...>{});
  }

 protected:  // zip_rows_chunk_io reads and writes through these
  template <std::size_t... I>
  __device__ void load_fields(std::int64_t e, V (&v)[Width], std::index_sequence<I...>) const {
    (load_field<Fields>(in.field[I], e, v), ...);
  }
  template <class F>
  __device__ static void load_field(const void* p, std::int64_t e, V (&v)[Width]) {
    using T = typename F::type;
    const vector_of<T, Width> raw = load_vector<T, Width>(static_cast<const T*>(p) + e);
#pragma unroll
    for (int c = 0; c < Width; ++c)
      F::of(v[c]) = static_cast<typename F::member_type>(raw.x[Backward ? Width - 1 - c : c]);
  }
  template <std::size_t... I>
  __device__ void load_one_fields(std::int64_t e, V& x, std::index_sequence<I...>) const {
    ((Fields::of(x) =
          static_cast<typename Fields::member_type>(static_cast<const typename Fields::type*>(in.field[I])[e])),
     ...);
  }

  template <std::size_t... I>
  __device__ void store_fields(std::int64_t e, const V (&v)[Width], std::index_sequence<I...>) const {
    (store_field<Fields>(out.field[I], e, v), ...);
  }
  template <class F>
  __device__ static void store_field(void* p, std::int64_t e, const V (&v)[Width]) {
    using T = typename F::type;
    if (p == nullptr) return;  // a field the caller does not keep (the same for the whole call)
    vector_of<T, Width> raw;
#pragma unroll
    for (int c = 0; c < Width; ++c) raw.x[Backward ? Width - 1 - c : c] = static_cast<T>(F::of(v[c]));
    store_vector<T, Width>(static_cast<T*>(p) + e, raw);
  }
  template <std::size_t... I>
  __device__ void store_one_fields(std::int64_t e, const V& x, std::index_sequence<I...>) const {
    ((out.field[I] != nullptr ? void(static_cast<typename Fields::type*>(out.field[I])[e] =
                                         static_cast<typename Fields::type>(Fields::of(x)))
                              : void()),
     ...);
  }
};

// The same rows for agent_row_chunks.cuh (one warp a row, associative_scan's
// zip_rows_chunks): whole vectors only, no heads (a warp starts its row with
// no carry). Rows must be multiples of Width long, so that every vector is
// aligned and lies inside one row.
template <class V, int Width, bool Backward, class... Fields>
struct zip_rows_chunk_io : zip_rows_tile_io<V, Width, Backward, Fields...> {
  using base_t = zip_rows_tile_io<V, Width, Backward, Fields...>;
  struct vector_meta {};

  __device__ zip_rows_chunk_io(const zip_pointers& in, const zip_pointers& out, std::int64_t n, std::int64_t length)
      : base_t{in, out, n, length, 0} {}

  __device__ void load(std::int64_t start, std::int64_t p, V (&v)[Width], vector_meta&) const {
    this->load_fields(this->first_element(start + p), v, std::index_sequence_for<Fields...>{});
  }
  __device__ void store(std::int64_t start, std::int64_t p, const V (&v)[Width], const vector_meta&) const {
    this->store_fields(this->first_element(start + p), v, std::index_sequence_for<Fields...>{});
  }
};

}  // namespace streamscan::cuda::detail
