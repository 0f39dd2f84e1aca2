// streamscan/cuda/agent/tile_status.cuh - the per-tile status words through
// which the blocks of a single-pass kernel hand prefixes to each other.
//
// A tile's status is X (nothing yet), A (its own aggregate is known) or P (its
// inclusive prefix is known). All statuses start as X, which is all-zero bytes,
// so a stream-ordered cudaMemsetAsync resets them between calls.
//
// Three layouts, chosen by the accumulator's size:
//  * packed (sizeof(A) <= 8, or a composite whose codec says it fits, e.g.
//    a segmented (value, head) pair): flag and value in one word, 64 bits for values of up to 4 bytes,
//    128 bits for up to 8, written and read by single relaxed accesses, so a
//    reader never sees a flag without its value ([LookbackReport] sec. 3.2). One
//    memory round trip per read. A .b128 load or store is one single-copy
//    atomic access in the PTX memory model (sm_70 and later), so 8-byte values
//    need no second word and no fence (faster than the split layout).
//  * paired (other values of 9 to 16 bytes, e.g. a 16-byte struct): two
//    128-bit words, each holding half the value's bits beside its own copy of
//    the flag, written by two relaxed stores and read by two relaxed loads in
//    flight together (one round trip, no fence). A reader takes the status
//    only where both halves carry the same flag; otherwise it caught the words
//    between two publications (A, then P) and reads X, and polls again.
//  * split (larger A): a 32-bit flag word plus separate aggregate and prefix
//    arrays. The writer stores the value, then the flag with release order; the
//    reader loads the flag with acquire order, then the value. A and P values
//    live in separate arrays, so a reader that saw flag A never reads a P value
//    being written over it.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace streamscan::cuda::detail {

enum tile_flag : unsigned { tile_invalid = 0, tile_aggregate = 1, tile_prefix = 2 };

// How a value rides in a packed status word: its bits in the high half (32
// or 64 of them), a few extra bits above the flag byte in the low half.
// A customisation point: a composite accumulator whose payload fits a word
// specialises it next to its algorithm (segmented_tile_status.cuh: the
// (value, head) pair rides as the value's bits plus one extra bit).
template <class A>
struct packed_status_codec {
  static constexpr bool fits = sizeof(A) <= 8;
  using value_word = std::conditional_t<sizeof(A) <= 4, unsigned, unsigned long long>;
  __device__ static value_word value_bits(const A& a) {
    value_word bits = 0;
    memcpy(&bits, &a, sizeof(A));
    return bits;
  }
  __device__ static unsigned extra_bits(const A&) { return 0; }
  __device__ static A decode(value_word value, unsigned) {
    A a;
    memcpy(&a, &value, sizeof(A));
    return a;
  }
};
// One packed status word: a 64-bit word through cuda::atomic_ref, or a
// 128-bit one through .b128 loads and stores.
template <class ValueWord>
struct status_word;
template <>
struct status_word<unsigned> {
  using word_t = unsigned long long;
  using ref_t = ::cuda::atomic_ref<word_t, ::cuda::thread_scope_device>;
  __device__ static void store(word_t* p, unsigned value, unsigned low) {
    ref_t(*p).store((static_cast<word_t>(value) << 32) | low, ::cuda::memory_order_relaxed);
  }
  __device__ static unsigned load(const word_t* p, unsigned& value) {
    const word_t w = ref_t(*const_cast<word_t*>(p)).load(::cuda::memory_order_relaxed);
    value = static_cast<unsigned>(w >> 32);
    return static_cast<unsigned>(w);
  }
};
template <>
struct status_word<unsigned long long> {
  struct alignas(16) word_t {
    unsigned long long low, value;
  };
  __device__ static void store(word_t* p, unsigned long long value, unsigned low) {
    const unsigned long long lo = low;
    asm volatile("{ .reg .b128 w; mov.b128 w, {%1, %2}; st.relaxed.gpu.b128 [%0], w; }"
                 :: "l"(p), "l"(lo), "l"(value) : "memory");
  }
  __device__ static unsigned load(const word_t* p, unsigned long long& value) {
    unsigned long long lo;
    asm volatile("{ .reg .b128 w; ld.relaxed.gpu.b128 w, [%2]; mov.b128 {%0, %1}, w; }"
                 : "=l"(lo), "=l"(value) : "l"(p) : "memory");
    return static_cast<unsigned>(lo);
  }
};

enum class status_layout { packed, paired, split };
template <class A>
constexpr status_layout status_layout_for() {
  return packed_status_codec<A>::fits ? status_layout::packed
         : sizeof(A) <= 16            ? status_layout::paired
                                      : status_layout::split;
}

// What sizes the statuses of a layout: `unit` is a packed word's bytes, a
// pair of paired words' (32), or the split layout's value bytes. Plain data,
// so that a host that knows a value only at run time (a kernel compiled by
// NVRTC reports its size) sizes and resets the words as tile_status<A> does.
struct status_size {
  status_layout layout;
  std::size_t unit;
};
__host__ __device__ constexpr std::size_t status_align(std::size_t b) { return (b + 255) / 256 * 256; }
__host__ __device__ constexpr std::size_t status_bytes(status_size s, std::int64_t tiles) {
  const std::size_t t = static_cast<std::size_t>(tiles);
  return s.layout == status_layout::split ? status_align(t * sizeof(unsigned)) + 2 * status_align(t * s.unit)
                                          : t * s.unit;
}
// What a reset must zero: every word (packed, paired: the flag is in each),
// or the split layout's flags, which lead (a value is read only after its
// flag says it was published).
__host__ __device__ constexpr std::size_t status_reset_bytes(status_size s, std::int64_t tiles) {
  return s.layout == status_layout::split ? status_align(static_cast<std::size_t>(tiles) * sizeof(unsigned))
                                          : status_bytes(s, tiles);
}

template <class A, status_layout Layout = status_layout_for<A>()>
class tile_status;

template <class A>
class tile_status<A, status_layout::packed> {
  using codec = packed_status_codec<A>;
  using word = status_word<typename codec::value_word>;
  using word_t = typename word::word_t;

 public:
  static constexpr status_size size{status_layout::packed, sizeof(word_t)};
  __host__ __device__ static constexpr std::size_t bytes(std::int64_t tiles) { return status_bytes(size, tiles); }
  __host__ __device__ static constexpr std::size_t reset_bytes(std::int64_t tiles) { return status_reset_bytes(size, tiles); }

  __host__ __device__ tile_status(void* storage, std::int64_t) : words_(static_cast<word_t*>(storage)) {}

  __device__ void publish(std::int64_t tile, tile_flag flag, const A& value) const {
    word::store(words_ + tile, codec::value_bits(value), static_cast<unsigned>(flag) | (codec::extra_bits(value) << 8));
  }

  // Returns the tile's flag; `value` is meaningful when the flag is not X.
  __device__ tile_flag peek(std::int64_t tile, A& value) const {
    typename codec::value_word bits;
    const unsigned low = word::load(words_ + tile, bits);
    value = codec::decode(bits, low >> 8);
    return static_cast<tile_flag>(low & 0xffu);
  }

 private:
  word_t* words_;
};

template <class A>
class tile_status<A, status_layout::paired> {
  using word = status_word<unsigned long long>;
  using word_t = typename word::word_t;
  static_assert(sizeof(A) <= 2 * sizeof(unsigned long long), "two halves of up to 8 bytes");

 public:
  static constexpr status_size size{status_layout::paired, 2 * sizeof(word_t)};
  __host__ __device__ static constexpr std::size_t bytes(std::int64_t tiles) { return status_bytes(size, tiles); }
  __host__ __device__ static constexpr std::size_t reset_bytes(std::int64_t tiles) { return status_reset_bytes(size, tiles); }

  __host__ __device__ tile_status(void* storage, std::int64_t) : words_(static_cast<word_t*>(storage)) {}

  __device__ void publish(std::int64_t tile, tile_flag flag, const A& value) const {
    unsigned long long half[2] = {0, 0};
    memcpy(half, &value, sizeof(A));
    word::store(words_ + 2 * tile, half[0], static_cast<unsigned>(flag));
    word::store(words_ + 2 * tile + 1, half[1], static_cast<unsigned>(flag));
  }

  // Returns the tile's flag; `value` is meaningful when the flag is not X.
  __device__ tile_flag peek(std::int64_t tile, A& value) const {
    unsigned long long half[2];
    const unsigned low = word::load(words_ + 2 * tile, half[0]);
    const unsigned high = word::load(words_ + 2 * tile + 1, half[1]);
    memcpy(&value, half, sizeof(A));
    return low == high ? static_cast<tile_flag>(low & 0xffu) : tile_invalid;
  }

 private:
  word_t* words_;
};

template <class A>
class tile_status<A, status_layout::split> {
  using ref_t = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

 public:
  static constexpr status_size size{status_layout::split, sizeof(A)};
  __host__ __device__ static constexpr std::size_t bytes(std::int64_t tiles) { return status_bytes(size, tiles); }
  __host__ __device__ static constexpr std::size_t reset_bytes(std::int64_t tiles) { return status_reset_bytes(size, tiles); }

  __host__ __device__ tile_status(void* storage, std::int64_t tiles) {
    unsigned char* p = static_cast<unsigned char*>(storage);
    const std::size_t t = static_cast<std::size_t>(tiles);
    flags_ = reinterpret_cast<unsigned*>(p);
    aggregates_ = reinterpret_cast<A*>(p + status_align(t * sizeof(unsigned)));
    prefixes_ = reinterpret_cast<A*>(p + status_align(t * sizeof(unsigned)) + status_align(t * sizeof(A)));
  }

  __device__ void publish(std::int64_t tile, tile_flag flag, const A& value) const {
    (flag == tile_prefix ? prefixes_ : aggregates_)[tile] = value;
    ref_t(flags_[tile]).store(flag, ::cuda::memory_order_release);
  }

  __device__ tile_flag peek(std::int64_t tile, A& value) const {
    const auto flag = static_cast<tile_flag>(ref_t(flags_[tile]).load(::cuda::memory_order_acquire));
    if (flag != tile_invalid) value = load_l2((flag == tile_prefix ? prefixes_ : aggregates_) + tile);
    return flag;
  }

 private:
  // The widest word that divides A's size and alignment.
  using word_t = std::conditional_t<
      sizeof(A) % 8 == 0 && alignof(A) >= 8, unsigned long long,
      std::conditional_t<sizeof(A) % 4 == 0 && alignof(A) >= 4, unsigned,
                         std::conditional_t<sizeof(A) % 2 == 0 && alignof(A) >= 2, unsigned short, unsigned char>>>;

  // Reads past L1 (ld.cg): the value was written by another SM.
  __device__ static A load_l2(const A* p) {
    constexpr int words = static_cast<int>(sizeof(A) / sizeof(word_t));
    word_t w[words];
    const word_t* src = reinterpret_cast<const word_t*>(p);
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] = __ldcg(src + i);
    A v;
    memcpy(&v, w, sizeof(A));
    return v;
  }

  unsigned* flags_;
  A* aggregates_;
  A* prefixes_;
};

}  // namespace streamscan::cuda::detail
