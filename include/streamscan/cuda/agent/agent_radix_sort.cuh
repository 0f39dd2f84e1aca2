// streamscan/cuda/agent/agent_radix_sort.cuh - what one block does in the
// onesweep radix sort ([Onesweep]): count the digits of every pass (the
// histogram agent), and sort one tile of keys by one digit (the tile agent).
//
// A tile's digit offsets come from a decoupled look-back over one status word
// per (tile, digit): 2 flag bits (aggregate / inclusive prefix) and a 30-bit
// count, so a launch covers at most 2^30 - 1 keys (the dispatcher splits
// larger inputs into portions). Thread d of a block owns digit d: it publishes
// the tile's count, walks back until it meets a prefix, and publishes its own.
// Keys travel as their order-preserving bits (radix_key_traits), inverted for
// descending order; they are turned back on the way out.
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "../../operators.hpp"
#include "../../sort.hpp"
#include "../block/block_radix_rank.cuh"
#include "../block/block_scan.cuh"
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
  // points at tile 0's word, consecutive tiles `stride` words apart.
  __device__ static unsigned exclusive_prefix(unsigned* column, std::int64_t tile, int stride) {
    unsigned sum = 0;
    for (std::int64_t p = tile - 1; p >= 0;) {
      const unsigned w = ref(column[p * stride]).load(::cuda::memory_order_relaxed);
      if ((w & ~count_mask) == 0) continue;  // not published yet
      sum += w & count_mask;
      if ((w & ~count_mask) == prefix) break;
      --p;
    }
    return sum;
  }
};

// Counts the digits of every pass of keys [begin, end) into `hist` (pass p,
// digit d at p * bins + d). Each thread counts runs of ITEMS consecutive
// keys and adds a run of equal digits at once, so sorted or few-valued inputs
// do not pile atomics onto one counter.
template <class K, int THREADS, int ITEMS, int RADIX_BITS>
struct agent_radix_histogram {
  using U = typename radix_key_traits<K>::bits_type;
  static constexpr int bins = 1 << RADIX_BITS;
  static constexpr int max_passes = radix_passes::max_passes;

  struct temp_storage {
    unsigned counts[max_passes][bins];
  };

  __device__ static void run(temp_storage& s, const K* keys, std::int64_t n, const radix_passes& passes, U invert,
                             unsigned* hist) {
    for (int i = static_cast<int>(threadIdx.x); i < passes.count * bins; i += THREADS) (&s.counts[0][0])[i] = 0;
    __syncthreads();
    constexpr std::int64_t step_items = std::int64_t{THREADS} * ITEMS;
    for (std::int64_t base = std::int64_t{blockIdx.x} * step_items; base < n;
         base += std::int64_t{gridDim.x} * step_items) {
      const std::int64_t first = base + std::int64_t{threadIdx.x} * ITEMS;
      U bits[ITEMS];
      int valid = 0;
#pragma unroll
      for (int j = 0; j < ITEMS; ++j) {
        if (first + j < n) {
          bits[j] = static_cast<U>(radix_key_traits<K>::to_bits(keys[first + j]) ^ invert);
          valid = j + 1;
        }
      }
#pragma unroll
      for (int p = 0; p < max_passes; ++p) {
        if (p >= passes.count) break;
        unsigned run_digit = 0, run = 0;
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
          if (j >= valid) break;
          const unsigned d = static_cast<unsigned>(bits[j] >> passes.shift[p]) & passes.mask[p];
          if (run != 0 && d != run_digit) {
            atomicAdd(&s.counts[p][run_digit], run);
            run = 0;
          }
          run_digit = d;
          ++run;
        }
        if (run != 0) atomicAdd(&s.counts[p][run_digit], run);
      }
    }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < passes.count * bins; i += THREADS) {
      const unsigned c = (&s.counts[0][0])[i];
      if (c != 0) atomicAdd(hist + i, c);
    }
  }
};

// Sorts one tile by one digit into its place in the output: load (warp-
// striped), rank (block_radix_rank), publish the tile's digit counts, stage
// the keys in shared memory in digit order, look back for the tile's digit
// offsets, then write the staged keys (runs of one digit are contiguous in
// shared memory and in the output). Values, for pairs, follow the same ranks.
template <class K, class V, bool PAIRS, int THREADS, int ITEMS, int RADIX_BITS>
class agent_onesweep {
 public:
  using U = typename radix_key_traits<K>::bits_type;
  static constexpr int bins = 1 << RADIX_BITS;
  static constexpr int tile_items = THREADS * ITEMS;
  using rank_t = block_radix_rank<THREADS, ITEMS, RADIX_BITS>;
  using scan_t = block_scan<unsigned, THREADS, block_scan_algorithm::kogge_stone>;
  using staged_value = std::conditional_t<PAIRS, V, char>;

  struct temp_storage {
    union {
      typename rank_t::temp_storage rank;
      typename scan_t::temp_storage scan;
      U keys[tile_items];
      staged_value values[PAIRS ? tile_items : 1];
    } stage;
    unsigned local_start[bins];    // staged slot of the tile's first key of digit d
    std::int64_t out_start[bins];  // output position of staged slot 0, for digit d's run
    unsigned char digit_at[PAIRS ? tile_items : 1];
    std::int64_t tile;
  };

  struct params {
    const K* keys_in;  // this portion's keys
    K* keys_out;       // the whole output
    const V* values_in;
    V* values_out;
    std::int64_t n;                   // keys in this portion
    const std::int64_t* digit_start;  // output position of this portion's first key of each digit
    unsigned* status;                 // (tile, digit) words of this portion
    unsigned long long* tile_counter;
    radix_digit<U> digit;
  };

  __device__ static void run(temp_storage& s, const params& p) {
    const tile_slot t = next_tile<tile_items>(p.tile_counter, p.n, s.tile);
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp_first = warp * 32 * ITEMS + lane;

    U bits[ITEMS];
    unsigned digits[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int slot = warp_first + j * 32;
      if (slot < t.valid) {
        bits[j] = static_cast<U>(radix_key_traits<K>::to_bits(p.keys_in[t.base + slot]) ^ p.digit.invert);
        digits[j] = p.digit.of(bits[j]);
      } else {
        digits[j] = bins;
      }
    }

    unsigned ranks[ITEMS];
    unsigned count = 0;
    rank_t(s.stage.rank).rank(digits, ranks, count);

    unsigned* my_status = p.status + t.tile * bins + threadIdx.x;
    if (threadIdx.x < bins)
      digit_status::publish(my_status, t.tile == 0 ? digit_status::prefix : digit_status::aggregate, count);

    streamscan::plus add;
    unsigned local_start = scan_t(s.stage.scan).exclusive_scan(threadIdx.x < bins ? count : 0u, add);
    if (threadIdx.x == 0) local_start = 0;  // exclusive_scan leaves thread 0's result unspecified
    if (threadIdx.x < bins) s.local_start[threadIdx.x] = local_start;
    __syncthreads();  // the scan's storage is the stage
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      if (digits[j] < bins) s.stage.keys[s.local_start[digits[j]] + ranks[j]] = bits[j];
    if (threadIdx.x < bins) {
      const unsigned before =
          t.tile == 0 ? 0u : digit_status::exclusive_prefix(p.status + threadIdx.x, t.tile, bins);
      if (t.tile != 0) digit_status::publish(my_status, digit_status::prefix, before + count);
      s.out_start[threadIdx.x] = p.digit_start[threadIdx.x] + before - static_cast<std::int64_t>(local_start);
    }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < t.valid; i += THREADS) {
      const U b = s.stage.keys[i];
      const unsigned d = p.digit.of(b);
      if constexpr (PAIRS) s.digit_at[i] = static_cast<unsigned char>(d);
      p.keys_out[s.out_start[d] + i] = radix_key_traits<K>::from_bits(static_cast<U>(b ^ p.digit.invert));
    }
    if constexpr (PAIRS) {
      V values[ITEMS];
#pragma unroll
      for (int j = 0; j < ITEMS; ++j) {
        const int slot = warp_first + j * 32;
        if (slot < t.valid) values[j] = p.values_in[t.base + slot];
      }
      __syncthreads();  // the staged keys are read
#pragma unroll
      for (int j = 0; j < ITEMS; ++j)
        if (digits[j] < bins) s.stage.values[s.local_start[digits[j]] + ranks[j]] = values[j];
      __syncthreads();
      for (int i = static_cast<int>(threadIdx.x); i < t.valid; i += THREADS)
        p.values_out[s.out_start[s.digit_at[i]] + i] = s.stage.values[i];
    }
  }
};

}  // namespace streamscan::cuda::detail
