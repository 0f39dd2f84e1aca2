// streamscan/cuda/block/block_radix_rank.cuh - stable ranks of a tile's keys
// by digit, counted before they are ranked.
//
// The tile is warp-striped: item j of lane l in warp w is tile position
// w * 32 * ITEMS + j * 32 + l. Three steps, so that the tile's digit counts
// are known (and can be published) before the ranks are:
//   count   each warp adds its items to its own row of digit counters
//           (shared atomics);
//   scan    (after a barrier) thread d < bins turns column d into a prefix
//           over the warps, which gives the tile's count of digit d; a block
//           scan of the counts gives each digit's first slot in the tile
//           sorted by digit, and each warp's counter becomes the slot of its
//           first item of that digit;
//   rank    (after a barrier) each warp walks its items in order: the lanes
//           holding the same digit find each other (one ballot per digit
//           bit), the highest of them bumps the counter, the others take its
//           old value by a shuffle: slot = old value + lower peers.
// The slots are the tile's stable order by digit: a permutation of
// [0, THREADS * ITEMS). Digits are recomputed from the keys where needed
// rather than kept: registers bound how many blocks share a multiprocessor.
#pragma once

#include "../../operators.hpp"
#include "block_scan.cuh"

namespace streamscan::cuda {

template <int THREADS, int RADIX_BITS>
class block_radix_rank {
 public:
  static constexpr int bins = 1 << RADIX_BITS;
  static constexpr int warps = THREADS / 32;
  static_assert(THREADS % 32 == 0, "whole warps");
  static_assert(THREADS >= bins, "a thread per digit");
  using scan_t = block_scan<unsigned, THREADS, block_scan_algorithm::kogge_stone>;

  struct temp_storage {
    unsigned counters[warps][bins];
    typename scan_t::temp_storage scan;
  };

  __device__ explicit block_radix_rank(temp_storage& storage)
      : s_(storage), warp_(static_cast<int>(threadIdx.x) / 32), lane_(static_cast<int>(threadIdx.x) % 32) {}

  // Step 1: digit(keys[j]) < bins for every item.
  template <class Key, int ITEMS, class Digit>
  __device__ void count(const Key (&keys)[ITEMS], Digit digit) {
    unsigned* row = s_.counters[warp_];
#pragma unroll
    for (int b = lane_; b < bins; b += 32) row[b] = 0;
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) atomicAdd(&row[digit(keys[j])], 1u);
  }

  // Step 2, after a barrier that follows every warp's count; every thread
  // calls it. Returns, for thread d < bins, the tile's number of items of
  // digit d in `count` and the slot of its first one (others: 0, 0), and
  // leaves each warp's counter at its first slot. Ends with a barrier.
  __device__ unsigned scan(unsigned& count) {
    count = 0;
    if (threadIdx.x < bins) {
#pragma unroll
      for (int w = 0; w < warps; ++w) {
        const unsigned c = s_.counters[w][threadIdx.x];
        s_.counters[w][threadIdx.x] = count;
        count += c;
      }
    }
    streamscan::plus add;
    unsigned first = scan_t(s_.scan).exclusive_scan(count, add);
    if (threadIdx.x == 0) first = 0;  // exclusive_scan leaves thread 0's result unspecified
    if (threadIdx.x < bins) {
#pragma unroll
      for (int w = 0; w < warps; ++w) s_.counters[w][threadIdx.x] += first;
    }
    __syncthreads();
    return first;
  }

  // Step 3: the slot of this lane's next item (call in order of j, every
  // lane of the warp together).
  __device__ unsigned rank(unsigned digit) {
    const unsigned peers = lanes_with_same(digit);
    const int lead = 31 - __clz(peers);
    // Only the leader bumps the counter: a predicated atomic, no branch.
    unsigned before = 0;
    const auto counter = static_cast<unsigned>(__cvta_generic_to_shared(&s_.counters[warp_][digit]));
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.eq.s32 p, %1, %2;\n\t"
        "@p atom.shared.add.u32 %0, [%3], %4;\n\t}"
        : "+r"(before)
        : "r"(lane_), "r"(lead), "r"(counter), "r"(__popc(peers))
        : "memory");
    before = __shfl_sync(0xffffffffu, before, lead);
    return before + __popc(peers & ((1u << lane_) - 1u));
  }

 private:
  // The lanes whose digit equals this lane's: one ballot per digit bit,
  // inverted where this lane's bit is clear (__match_any_sync runs on a narrow
  // pipe and would bound the whole pass). Written in PTX so that each bit
  // costs a predicate, a vote and a predicated inversion.
  __device__ static unsigned lanes_with_same(unsigned d) {
    unsigned peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b < RADIX_BITS; ++b) {
      unsigned voters;
      asm("{\n\t.reg .pred p;\n\t"
          "and.b32 %0, %1, %2;\n\t"
          "setp.ne.u32 p, %0, 0;\n\t"
          "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
          "@!p not.b32 %0, %0;\n\t}"
          : "=r"(voters)
          : "r"(d), "r"(1u << b));
      peers &= voters;
    }
    return peers;
  }

  temp_storage& s_;
  int warp_, lane_;
};

}  // namespace streamscan::cuda
