// streamscan/cuda/agent/agent_scan.cuh - what one block does to one tile.
//
// reduce_tile: load -> blocked rows -> row reduce -> block reduce.
// scan_tile:   load -> blocked rows -> row reduce -> block scan of row totals
//              -> rescan rows seeded with (carry, rows before) -> store.
// The carry (everything before the tile) is optional: no identity element is
// assumed for op.
#pragma once

#include <cstdint>

#include "../block/block_exchange.cuh"
#include "../block/block_reduce.cuh"
#include "../block/block_scan.cuh"
#include "../thread/thread_scan.cuh"
#include "../util/maybe.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

enum class scan_mode : int { inclusive, exclusive };

template <class Policy, class A, class Op>
class agent_scan {
  static constexpr int threads = Policy::threads;
  static constexpr int ipt = Policy::items_per_thread;
  using exchange_t = block_exchange<A, threads, ipt>;
  using block_scan_t = block_scan<A, threads, Policy::block_algorithm>;
  using block_reduce_t = block_reduce<A, threads>;

 public:
  static constexpr int tile_items = Policy::tile_items;

  union temp_storage {
    typename exchange_t::temp_storage exchange;
    typename block_scan_t::temp_storage scan;
    typename block_reduce_t::temp_storage reduce;
    uninitialized<A> result;  // a partial tile's total, broadcast
  };

  __device__ agent_scan(temp_storage& storage, Op& op) : s_(storage), op_(op) {}

  // Reduction of tile elements [0, valid) of `in`; valid in thread 0. A
  // partial tile (valid < tile_items, only the input's last) scans its row
  // totals instead, so that no filler value enters: the total is the
  // inclusive prefix of the last row holding elements.
  template <class InIt>
  __device__ A reduce_tile(InIt in, int valid) {
    A items[ipt];
    exchange_t::load_striped(in, valid, items);
    exchange_t(s_.exchange).striped_to_blocked(items);
    if (valid == tile_items) {
      const A row_total = thread_reduce(items, op_);
      __syncthreads();  // exchange buffer -> reduce buffer
      const A total = block_reduce_t(s_.reduce).reduce(row_total, op_);
      __syncthreads();  // before the next tile reuses the storage
      return total;
    }
    const int tid = static_cast<int>(threadIdx.x);
    const int mine = valid - tid * ipt;  // elements of this thread's row (<= 0: none)
    A row_total = items[0];
#pragma unroll
    for (int k = 1; k < ipt; ++k)
      if (k < mine) row_total = op_(row_total, items[k]);
    __syncthreads();  // exchange buffer -> scan buffer
    A row_incl, row_excl, tile_total;
    block_scan_t(s_.scan).scan(row_total, op_, row_incl, row_excl, tile_total);
    __syncthreads();  // scan buffer -> result slot
    if (tid == (valid - 1) / ipt) s_.result.get() = row_incl;
    __syncthreads();
    const A total = s_.result.get();
    __syncthreads();  // before the next tile reuses the storage
    return total;
  }

  // Scans tile elements [0, valid) of `in` into `out`, preceded by `carry`.
  // Returns carry (+) tile total (in every thread): the next tile's carry.
  // Exclusive mode without a carry leaves out[0] unwritten.
  template <class InIt, class OutIt>
  __device__ A scan_tile(InIt in, OutIt out, int valid, maybe<A> carry, scan_mode mode) {
    A items[ipt];
    A row_excl;
    const A tile_total = scan_rows(in, valid, items, row_excl);
    finish_tile(out, valid, items, row_excl, carry, mode);
    return carry.present ? op_(carry.value, tile_total) : tile_total;
  }

  // The two halves of scan_tile, for the single-pass kernels, which learn the
  // carry between them ([StreamScan] fig. 7: reduce and scan the row totals, then
  // synchronise with the predecessors, then rescan the rows).
  //
  // scan_rows: loads the tile into blocked rows, reduces each row and scans the
  // row totals across the block. Returns the tile total (every thread).
  template <class InIt>
  __device__ A scan_rows(InIt in, int valid, A (&items)[ipt], A& row_excl) {
    exchange_t::load_striped(in, valid, items);
    exchange_t(s_.exchange).striped_to_blocked(items);
    const A row_total = thread_reduce(items, op_);
    __syncthreads();  // exchange buffer -> scan buffer
    A row_incl, tile_total;
    block_scan_t(s_.scan).scan(row_total, op_, row_incl, row_excl, tile_total);
    __syncthreads();  // scan buffer -> exchange buffer (finish_tile)
    return tile_total;
  }

  // finish_tile: rescans each row from (carry, rows before it) and stores the
  // tile. `carry` must be the same in every thread.
  template <class OutIt>
  __device__ void finish_tile(OutIt out, int valid, A (&items)[ipt], const A& row_excl, maybe<A> carry,
                              scan_mode mode) {
    const int tid = static_cast<int>(threadIdx.x);
    maybe<A> prefix{row_excl, tid > 0};
    if (carry.present) prefix = {tid > 0 ? op_(carry.value, row_excl) : carry.value, true};
    if (mode == scan_mode::exclusive) {
      thread_exclusive_scan(items, op_, prefix.value, prefix.present);
    } else {
      thread_inclusive_scan(items, op_, prefix.value, prefix.present);
    }
    exchange_t(s_.exchange).blocked_to_striped(items);
    const int first = (mode == scan_mode::exclusive && !carry.present) ? 1 : 0;
    exchange_t::store_striped(out, first, valid, items);
    __syncthreads();  // before the next tile reuses the storage
  }

 private:
  temp_storage& s_;
  Op& op_;
};

}  // namespace streamscan::cuda::detail
