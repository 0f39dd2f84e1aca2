// streamscan/cuda/agent/vector_input.cuh - how the vectorised agents read an
// input `Width` elements at a time: what lets a transform or counting
// iterator take the fast paths, not only a raw pointer of the scan's type.
//
// vector_input<It, Width> says whether It can be read that way (`applies`)
// and does it:
//   - a raw pointer of T: one load of Width * sizeof(T) bytes (a power of two
//     up to 16, or a multiple of 16: several 16-byte loads), streamed past L1;
//     the pointer must be aligned to min(those bytes, 16) (`aligned`);
//   - a counting or constant iterator: computed, nothing read;
//   - a transform_iterator over any of these: its base's vector, then f in
//     registers.
// Elements [e, e + Width) are read in memory order; e is a multiple of Width.
// The tile IO (tile_io.cuh, segmented_tile_io.cuh) converts to the scan's
// type and maps scan positions to elements.
// store_vector writes such a block of values back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../iterators.hpp"

namespace streamscan::cuda::detail {

// Width values of T in one aligned block: 16 bytes or more when they fill it.
template <class T, int Width>
struct alignas(16) vector_of {
  T x[Width];
};

// Bytes of Width values of T, and whether one load (or 16-byte loads) of
// them is possible.
template <class T, int Width>
inline constexpr std::size_t vector_bytes = sizeof(T) * Width;
template <class T, int Width>
constexpr bool vector_load_fits() {
  constexpr std::size_t b = vector_bytes<T, Width>;
  return b == 1 || b == 2 || b == 4 || b == 8 || b % 16 == 0;
}

// The unsigned word of `Bytes` (1 to 8 bytes, or 16) that one load moves.
template <std::size_t Bytes>
using load_word_t = std::conditional_t<
    Bytes == 1, unsigned char,
    std::conditional_t<Bytes == 2, unsigned short,
                       std::conditional_t<Bytes == 4, unsigned int, std::conditional_t<Bytes == 8, uint2, uint4>>>>;

// Width values of T from p (aligned to min(bytes, 16)). The input is read
// once, so it is not kept in L1 (ld.global.cs).
template <class T, int Width>
__device__ __forceinline__ vector_of<T, Width> load_vector(const T* p) {
  constexpr std::size_t bytes = vector_bytes<T, Width>;
  vector_of<T, Width> v;
  if constexpr (bytes <= 16) {
    using word = load_word_t<bytes>;
    const word raw = __ldcs(reinterpret_cast<const word*>(p));
    memcpy(&v, &raw, bytes);
  } else {
#pragma unroll
    for (std::size_t i = 0; i < bytes / 16; ++i) {
      const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(p) + i);
      memcpy(reinterpret_cast<unsigned char*>(&v) + 16 * i, &raw, 16);
    }
  }
  return v;
}

// Width values of T stored at p (aligned to min(their bytes, 16)): one store
// of a power of two bytes up to 16, or 16-byte stores of a multiple of 16.
template <class T, int Width>
__device__ __forceinline__ void store_vector(T* p, const vector_of<T, Width>& v) {
  constexpr std::size_t bytes = vector_bytes<T, Width>;
  static_assert(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes % 16 == 0,
                "a power of two bytes up to 16, or a multiple of 16");
  if constexpr (bytes <= 16) {
    using word = load_word_t<bytes>;
    word raw;
    memcpy(&raw, &v, bytes);
    __stwb(reinterpret_cast<word*>(p), raw);
  } else {
#pragma unroll
    for (std::size_t i = 0; i < bytes / 16; ++i) {
      uint4 raw;
      memcpy(&raw, reinterpret_cast<const unsigned char*>(&v) + 16 * i, 16);
      __stwb(reinterpret_cast<uint4*>(p) + i, raw);
    }
  }
}

template <class It, int Width, class = void>
struct vector_input {
  static constexpr bool applies = false;
};

// A raw pointer.
template <class T, int Width>
struct vector_input<T*, Width, std::enable_if_t<vector_load_fits<std::remove_cv_t<T>, Width>()>> {
  static constexpr bool applies = true;
  using value = std::remove_cv_t<T>;
  static constexpr std::size_t alignment = vector_bytes<value, Width> < 16 ? vector_bytes<value, Width> : 16;

  static bool aligned(T* p) { return reinterpret_cast<std::uintptr_t>(p) % alignment == 0; }
  __device__ static void load(T* p, std::int64_t e, value (&v)[Width]) {
    const vector_of<value, Width> raw = load_vector<value, Width>(p + e);
#pragma unroll
    for (int c = 0; c < Width; ++c) v[c] = raw.x[c];
  }
  __device__ static value one(T* p, std::int64_t e) { return p[e]; }
};

// Iterators that compute every value from its index: nothing to load.
template <class It, int Width>
struct computed_vector_input {
  static constexpr bool applies = true;
  using value = typename It::value_type;

  static bool aligned(const It&) { return true; }
  __device__ static void load(const It& it, std::int64_t e, value (&v)[Width]) {
#pragma unroll
    for (int c = 0; c < Width; ++c) v[c] = it[e + c];
  }
  __device__ static value one(const It& it, std::int64_t e) { return it[e]; }
};
template <class T, int Width>
struct vector_input<counting_iterator<T>, Width> : computed_vector_input<counting_iterator<T>, Width> {};
template <class T, int Width>
struct vector_input<constant_iterator<T>, Width> : computed_vector_input<constant_iterator<T>, Width> {};

// f applied in registers to the base's vector.
template <class It, class F, int Width>
struct vector_input<transform_iterator<It, F>, Width, std::enable_if_t<vector_input<It, Width>::applies>> {
  using base_input = vector_input<It, Width>;
  using iterator = transform_iterator<It, F>;
  static constexpr bool applies = true;
  using value = typename iterator::value_type;

  static bool aligned(const iterator& it) { return base_input::aligned(it.base()); }
  __device__ static void load(const iterator& it, std::int64_t e, value (&v)[Width]) {
    typename base_input::value raw[Width];
    base_input::load(it.base(), e, raw);
#pragma unroll
    for (int c = 0; c < Width; ++c) v[c] = it.functor()(raw[c]);
  }
  __device__ static value one(const iterator& it, std::int64_t e) { return it[e]; }
};

// Raw pointers are read as pointers to const: one instantiation of each
// kernel whether or not the caller's pointer was.
template <class It>
constexpr auto read_only_input(It it) {
  if constexpr (std::is_pointer_v<It>)
    return static_cast<const std::remove_pointer_t<It>*>(it);
  else
    return it;
}

// Whether the vectorised agents can read In as Width values of A at a time.
template <class In, class A, int Width>
constexpr bool vector_input_fits() {
  if constexpr (vector_input<In, Width>::applies)
    return std::is_constructible_v<A, typename vector_input<In, Width>::value>;
  else
    return false;
}

}  // namespace streamscan::cuda::detail
