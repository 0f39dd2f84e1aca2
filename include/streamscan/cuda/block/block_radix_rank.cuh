// streamscan/cuda/block/block_radix_rank.cuh - stable ranks of a tile's keys
// by digit.
//
// The tile is warp-striped: item j of lane l in warp w is tile position
// w * 32 * ITEMS + j * 32 + l. Each warp counts its items in its own row of
// shared counters, item by item: the lanes holding the same digit find each
// other by ballots, the lowest of them bumps the counter by their number,
// and each takes the count before it plus the peers on lower lanes. Then one
// thread per digit turns the rows into a prefix over warps. The result is the
// position of every item among the tile's items of its digit, in tile order.
#pragma once

#include <cstdint>

namespace streamscan::cuda {

template <int THREADS, int ITEMS, int RADIX_BITS>
class block_radix_rank {
 public:
  static constexpr int bins = 1 << RADIX_BITS;
  static constexpr int warps = THREADS / 32;
  static_assert(THREADS % 32 == 0, "whole warps");
  static_assert(THREADS >= bins, "a thread per digit");

  struct temp_storage {
    unsigned counts[warps][bins];
  };

  __device__ explicit block_radix_rank(temp_storage& storage) : s_(storage) {}

  // digits[j] < bins, or bins for an empty slot (not counted, rank unset).
  // ranks[j] receives the item's rank within its digit; bin_count (thread
  // t < bins) the tile's number of items of digit t. Ends with a barrier
  // after the last read of the storage.
  __device__ void rank(const unsigned (&digits)[ITEMS], unsigned (&ranks)[ITEMS], unsigned& bin_count) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    for (int i = static_cast<int>(threadIdx.x); i < warps * bins; i += THREADS) (&s_.counts[0][0])[i] = 0;
    __syncthreads();
    const unsigned lower_lanes = (1u << lane) - 1u;
    unsigned* row = s_.counts[warp];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const unsigned d = digits[j];
      const unsigned peers = lanes_with_same(d);
      unsigned before = 0;
      if (d < bins) {
        before = row[d];
        ranks[j] = before + __popc(peers & lower_lanes);
      }
      __syncwarp();
      if (d < bins && lane == __ffs(peers) - 1) row[d] = before + __popc(peers);
      __syncwarp();
    }
    __syncthreads();
    if (threadIdx.x < bins) {
      unsigned running = 0;
#pragma unroll
      for (int w = 0; w < warps; ++w) {
        const unsigned c = s_.counts[w][threadIdx.x];
        s_.counts[w][threadIdx.x] = running;
        running += c;
      }
      bin_count = running;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      if (digits[j] < bins) ranks[j] += row[digits[j]];
    __syncthreads();
  }

 private:
  // The lanes whose digit equals this lane's (empty slots, digit `bins`,
  // match each other). One ballot per digit bit: __match_any_sync runs on a
  // narrow pipe and would bound the whole pass.
  __device__ static unsigned lanes_with_same(unsigned d) {
    unsigned peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b <= RADIX_BITS; ++b) {
      const bool set = (d >> b) & 1u;
      const unsigned voters = __ballot_sync(0xffffffffu, set);
      peers &= set ? voters : ~voters;
    }
    return peers;
  }

  temp_storage& s_;
};

}  // namespace streamscan::cuda
