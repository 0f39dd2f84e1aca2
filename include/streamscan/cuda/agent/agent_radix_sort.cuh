// streamscan/cuda/agent/agent_radix_sort.cuh - what one block does in the
// onesweep radix sort ([Onesweep]): count the digits of every pass (the
// histogram agent), and sort one tile of keys by one digit (the tile agent).
//
// A tile's digit offsets come from a decoupled look-back over one status word
// per (tile, digit): 2 flag bits (aggregate / inclusive prefix) and a 30-bit
// count, so a launch covers at most 2^30 - 1 keys (the dispatcher splits
// larger inputs into portions, launched one after another). Thread d of a
// block owns digit d: it publishes the tile's count, walks back until it meets
// a prefix, and publishes its own. A portion's digit starts cannot come from
// the histogram: after the first pass a portion holds other keys than the
// input's portion did. The portion's last tile, which learns the portion's
// count of each digit, writes the next portion's starts instead.
// Keys travel as their order-preserving bits (radix_key_traits), inverted for
// descending order; they are turned back on the way out.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../operators.hpp"
#include "../../sort.hpp"
#include "../block/block_radix_rank.cuh"
#include "../util/bulk_copy.cuh"
#include "tile_id.cuh"

namespace streamscan::cuda::detail {

// Where a pass's digit sits in the (possibly inverted) key bits.
template <class U>
struct radix_digit {
  int shift = 0;
  unsigned mask = 0;  // 2^width - 1
  U invert = 0;       // all ones for descending order

  __device__ __forceinline__ unsigned of(U bits) const { return static_cast<unsigned>(bits >> shift) & mask; }
};

// The digit positions of every pass of one sort (at most 8 for 64-bit keys).
struct radix_passes {
  static constexpr int max_passes = 8;
  int count = 0;
  int shift[max_passes] = {};
  unsigned mask[max_passes] = {};
};

// The packed (tile, digit) status word.
struct digit_status {
  static constexpr unsigned aggregate = 1u << 30;
  static constexpr unsigned prefix = 2u << 30;
  static constexpr unsigned count_mask = (1u << 30) - 1u;
  using ref = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

  __device__ static void publish(unsigned* word, unsigned flag, unsigned count) {
    ref(*word).store(flag | count, ::cuda::memory_order_relaxed);
  }
  // The sum of the counts of tiles [0, tile) for this word's digit; `column`
  // points at tile 0's word, consecutive tiles `stride` words apart. The
  // words of `window` predecessors are loaded together (one memory latency
  // for all of them), then added nearest first until an inclusive prefix.
  __device__ static unsigned exclusive_prefix(unsigned* column, std::int64_t tile, int stride) {
    constexpr int window = 4;
    unsigned sum = 0;
    for (std::int64_t p = tile - 1; p >= 0; p -= window) {
      unsigned w[window];
#pragma unroll
      for (int i = 0; i < window; ++i)
        w[i] = p - i >= 0 ? ref(column[(p - i) * stride]).load(::cuda::memory_order_relaxed) : prefix;
#pragma unroll
      for (int i = 0; i < window; ++i) {
        while ((w[i] & ~count_mask) == 0) w[i] = ref(column[(p - i) * stride]).load(::cuda::memory_order_relaxed);
        sum += w[i] & count_mask;
        if ((w[i] & ~count_mask) == prefix) return sum;
      }
    }
    return sum;
  }
};

// Counts the digits of every pass of keys [0, n) into `hist` (pass p, digit
// d at p * bins + d): one shared atomic per key and pass. Each thread reads
// ITEMS consecutive keys with 16-byte loads from the first 16-byte boundary
// on; the keys before it and the last partial step are read one by one.
// The shared atomics bound this kernel. Each counter has `parts` copies side
// by side and lane l counts into copy l % parts (CUB's layout): the lanes of a
// copy meet only in its 32 / parts banks, and equal digits of different
// copies not at all.
template <class K, int THREADS, int ITEMS, int RADIX_BITS>
struct agent_radix_histogram {
  using U = typename radix_key_traits<K>::bits_type;
  static constexpr int bins = 1 << RADIX_BITS;
  static constexpr int max_passes = (8 * int(sizeof(K)) + RADIX_BITS - 1) / RADIX_BITS;
  static_assert(max_passes <= radix_passes::max_passes, "the passes of one key");
  static constexpr int parts_fit = 8192 / (max_passes * bins);  // 32 KB of counters
  static constexpr int parts = parts_fit >= 8 ? 8 : parts_fit >= 4 ? 4 : parts_fit >= 2 ? 2 : 1;
  static constexpr int per_vector = 16 / int(sizeof(K));  // keys of one 16-byte load
  static_assert(16 % sizeof(K) == 0 && ITEMS % per_vector == 0, "whole 16-byte loads");

  struct temp_storage {
    unsigned counts[max_passes][bins][parts];
  };

  __device__ static void run(temp_storage& s, const K* keys, std::int64_t n, const radix_passes& passes, U invert,
                             unsigned* hist) {
    for (int i = static_cast<int>(threadIdx.x); i < passes.count * bins * parts; i += THREADS)
      (&s.counts[0][0][0])[i] = 0;
    __syncthreads();
    const auto misalignment = reinterpret_cast<std::uintptr_t>(keys) % 16;
    std::int64_t head = misalignment % sizeof(K) != 0 ? n : std::int64_t((16 - misalignment) % 16 / sizeof(K));
    if (head > n) head = n;
    constexpr std::int64_t step_items = std::int64_t{THREADS} * ITEMS;
    const std::int64_t steps = (n - head) / step_items;
    for (std::int64_t step = blockIdx.x; step < steps; step += gridDim.x) {
      const K* run_keys = keys + head + step * step_items + std::int64_t{threadIdx.x} * ITEMS;
      U bits[ITEMS];
#pragma unroll
      for (int v = 0; v < ITEMS / per_vector; ++v) {
        const uint4 word = reinterpret_cast<const uint4*>(run_keys)[v];
        K k[per_vector];
        memcpy(k, &word, sizeof(word));
#pragma unroll
        for (int e = 0; e < per_vector; ++e)
          bits[v * per_vector + e] = static_cast<U>(radix_key_traits<K>::to_bits(k[e]) ^ invert);
      }
      count_run<ITEMS>(s, bits, ITEMS, passes);
    }
    // The keys before the boundary and after the last whole step.
    const std::int64_t rest_begin = head + steps * step_items;
    const std::int64_t threads = std::int64_t{gridDim.x} * THREADS;
    for (std::int64_t i = blockIdx.x * std::int64_t{THREADS} + threadIdx.x; i < head + (n - rest_begin);
         i += threads) {
      U one[1] = {static_cast<U>(radix_key_traits<K>::to_bits(keys[i < head ? i : rest_begin + (i - head)]) ^ invert)};
      count_run<1>(s, one, 1, passes);
    }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < passes.count * bins; i += THREADS) {
      unsigned c = 0;
#pragma unroll
      for (int part = 0; part < parts; ++part) c += s.counts[i / bins][i % bins][part];
      if (c != 0) atomicAdd(hist + i, c);
    }
  }

 private:
  template <int N>
  __device__ static void count_run(temp_storage& s, const U (&bits)[N], int valid, const radix_passes& passes) {
    const int part = static_cast<int>(threadIdx.x % 32) % parts;
#pragma unroll
    for (int p = 0; p < max_passes; ++p) {
      if (p >= passes.count) break;
#pragma unroll
      for (int j = 0; j < N; ++j) {
        if (j >= valid) break;
        atomicAdd(&s.counts[p][static_cast<unsigned>(bits[j] >> passes.shift[p]) & passes.mask[p]][part], 1u);
      }
    }
  }
};

// Sorts one tile by one digit into its place in the output ([Onesweep]):
//   1. load the tile (warp-striped); a partial tile is padded with all-ones
//      keys, which rank after every real key, into the slots past the end;
//   2. count the digits (block_radix_rank::count) and publish the tile's
//      counts at once, so that later tiles' look-backs rarely wait;
//   3. scan the counts, rank every key and stage it in shared memory in
//      digit order;
//   4. look back for the tile's digit offsets (thread d, digit d);
//   5. write the staged keys out: runs of one digit are contiguous in shared
//      memory and in the output;
//   6. (pairs) load the values only now, stage them in the keys' place by the
//      slots kept from step 3 and write them out by the digits kept from
//      step 5, as CUB's onesweep does: no value is held in registers
//      through the ranking and the tile's shared memory holds one array.
// The whole tile lives in dynamic shared memory (storage_bytes).
template <class K, class V, bool PAIRS, int THREADS, int ITEMS, int RADIX_BITS, bool PREFETCH = false>
class agent_onesweep {
 public:
  using U = typename radix_key_traits<K>::bits_type;
  static constexpr int bins = 1 << RADIX_BITS;
  static constexpr int warps = THREADS / 32;
  static constexpr int tile_items = THREADS * ITEMS;
  using rank_t = block_radix_rank<THREADS, RADIX_BITS>;
  using staged_value = std::conditional_t<PAIRS, V, char>;

  struct temp_storage {
    typename rank_t::temp_storage rank;
    K* key_out[bins];            // where staged slot 0 would go, for digit d's run
    staged_value* value_out[PAIRS ? bins : 1];
    std::int64_t tile;
    union {  // the keys, then (pairs) the values in the same slots
      U keys[tile_items];
      staged_value values[PAIRS ? tile_items : 1];
    };
  };
  // Pairs keep each item's slot (16 bits) and each staged key's digit (8
  // bits) in registers, packed.
  static_assert(!PAIRS || (tile_items <= 65536 && RADIX_BITS <= 8), "slots and digits pack into registers");
  static constexpr int slot_words = PAIRS ? (ITEMS + 1) / 2 : 1;
  static constexpr int digit_words = PAIRS ? (ITEMS + 3) / 4 : 1;
  static constexpr std::size_t storage_bytes = sizeof(temp_storage);

  struct params {
    const K* keys_in;  // this portion's keys
    K* keys_out;       // the whole output
    const V* values_in;
    V* values_out;
    std::int64_t n;                   // keys in this portion
    const std::int64_t* digit_start;  // output position of this portion's first key of each digit
    std::int64_t* next_digit_start;   // the next portion's (written by the last tile), or null
    unsigned* status;                 // (tile, digit) words of this portion
    unsigned long long* tile_counter;
    radix_digit<U> digit;
  };

  __device__ static void run(temp_storage& s, const params& p) {
    if constexpr (PREFETCH) prefetch_tile(p, tile_at<tile_items>(blockIdx.x, p.n));
    const tile_slot t = next_tile<tile_items>(p.tile_counter, p.n, s.tile);
    if (t.valid == tile_items)
      run_tile<true>(s, p, t);
    else
      run_tile<false>(s, p, t);
  }

 private:
  template <bool FULL>
  __device__ static void run_tile(temp_storage& s, const params& p, const tile_slot& t) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int first = warp * 32 * ITEMS + lane;  // this thread's item 0
    const K* keys_in = p.keys_in + t.base + first;

    U bits[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      if (FULL || first + j * 32 < t.valid)
        bits[j] = static_cast<U>(radix_key_traits<K>::to_bits(keys_in[j * 32]) ^ p.digit.invert);
      else
        bits[j] = static_cast<U>(~U(0));
    }

    const radix_digit<U> digit = p.digit;
    rank_t ranker(s.rank);
    ranker.count(bits, [&](U b) { return digit.of(b); });
    __syncthreads();
    unsigned count;
    const unsigned local_start = ranker.scan(count);
    // The padding keys (digit `mask`) are not the tile's.
    const unsigned real = count - (!FULL && threadIdx.x == digit.mask ? tile_items - t.valid : 0u);
    unsigned* my_status = p.status + t.tile * bins + threadIdx.x;
    if (threadIdx.x < bins)
      digit_status::publish(my_status, t.tile == 0 ? digit_status::prefix : digit_status::aggregate, real);

    unsigned slots[slot_words] = {};
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const unsigned slot = ranker.rank(digit.of(bits[j]));
      s.keys[slot] = bits[j];
      if constexpr (PAIRS) slots[j / 2] |= slot << (16 * (j % 2));
    }
    if (threadIdx.x < bins) {
      const unsigned before =
          t.tile == 0 ? 0u : digit_status::exclusive_prefix(p.status + threadIdx.x, t.tile, bins);
      if (t.tile != 0) digit_status::publish(my_status, digit_status::prefix, before + real);
      const std::int64_t portion_start = p.digit_start[threadIdx.x];
      if (t.last && p.next_digit_start != nullptr) p.next_digit_start[threadIdx.x] = portion_start + before + real;
      const std::int64_t start = portion_start + before - static_cast<std::int64_t>(local_start);
      s.key_out[threadIdx.x] = p.keys_out + start;
      if constexpr (PAIRS) s.value_out[threadIdx.x] = p.values_out + start;
    }
    __syncthreads();

    unsigned digits[digit_words] = {};
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * THREADS;
      if (FULL || i < t.valid) {
        const U b = s.keys[i];
        const unsigned d = digit.of(b);
        s.key_out[d][i] = radix_key_traits<K>::from_bits(static_cast<U>(b ^ digit.invert));
        if constexpr (PAIRS) digits[j / 4] |= d << (8 * (j % 4));
      }
    }
    if constexpr (PAIRS) scatter_values<FULL>(s, p, t, first, slots, digits);
  }

  // A hint: each warp's slice of the tile's keys (and values) into L2.
  __device__ static void prefetch_tile(const params& p, const tile_slot& t) {
    if (threadIdx.x % 32 != 0 || t.base >= p.n) return;
    const std::int64_t first = t.base + std::int64_t{32 * ITEMS} * (threadIdx.x / 32);
    const std::int64_t left = p.n - first, count = left < 32 * ITEMS ? left : 32 * ITEMS;
    if (count <= 0) return;
    prefetch_range_to_l2(p.keys_in + first, static_cast<std::size_t>(count) * sizeof(K));
    if constexpr (PAIRS) prefetch_range_to_l2(p.values_in + first, static_cast<std::size_t>(count) * sizeof(V));
  }

  // Step 6: the values of the tile, by the slots their keys took and the
  // digits of the keys staged in each slot.
  template <bool FULL>
  __device__ static void scatter_values(temp_storage& s, const params& p, const tile_slot& t, int first,
                                        const unsigned (&slots)[slot_words], const unsigned (&digits)[digit_words]) {
    const V* values_in = p.values_in + t.base + first;
    __syncthreads();  // every staged key has been read
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      if (FULL || first + j * 32 < t.valid) s.values[(slots[j / 2] >> (16 * (j % 2))) & 0xffffu] = values_in[j * 32];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * THREADS;
      if (FULL || i < t.valid) s.value_out[(digits[j / 4] >> (8 * (j % 4))) & 0xffu][i] = s.values[i];
    }
  }
};

}  // namespace streamscan::cuda::detail
