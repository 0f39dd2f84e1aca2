// streamscan/cuda/agent/tile_prefix.cuh - the tile-prefix protocol of every
// single-pass algorithm (scan, segmented scan, compaction): what a tile
// publishes in its status word and when, and how it learns its exclusive
// prefix. The role of CUB's TilePrefixCallbackOp; the only code that writes
// tile statuses.
//
//  * A tile publishes its aggregate A as soon as its total is known, then
//    its inclusive prefix P once its exclusive prefix is (P = prefix (+)
//    total). Tile 0 publishes P at once: the init (if any) (+) its total.
//    On the grouped walk only the last tile of each aligned window of 32
//    publishes P, the prefix through its window, formed as look_back_grouped
//    defines it.
//  * The last tile publishes nothing: no tile waits for it.
//  * A total that no predecessor can change (a segmented scan's total over a
//    tile holding a segment head) is already the inclusive prefix: it goes
//    out as P at once, so later tree walks stop there (the grouped walk takes
//    it as the tile's term). The same bits as prefix (+) total, so results
//    stay deterministic.
//  * The walk (look_back.cuh). chained [StreamScan]: one thread waits for
//    exactly its predecessor's P and passes its own on at once; no
//    aggregates. decoupled ([DecoupledLookback], [LookbackReport]): a warp
//    walks back over the predecessors' statuses.
//
// One-tile-per-block kernels call it as a prefix callback, `prefix =
// prefix_op(tile, total, storage)`, with the whole block. Pipelined kernels
// (agent_pipeline.cuh) split the two steps across warps: the warp that
// reduces a tile calls publish_aggregate, a look-back warp calls resolve.
#pragma once

#include <cstdint>

#include "../util/maybe.cuh"
#include "../util/uninitialized.cuh"
#include "look_back.cuh"
#include "tile_id.cuh"
#include "tile_status.cuh"

namespace streamscan::cuda::detail {

enum class look_back_kind { chained, decoupled };

// Whether a tile total is already the tile's inclusive prefix. A
// customisation point: an accumulator that can carry such totals specialises
// it next to its algorithm (segmented_tile_status.cuh).
template <class A>
struct tile_total_traits {
  __device__ static bool is_prefix(const A&) { return false; }
};
template <class A>
__device__ __forceinline__ bool total_is_prefix(const A& total) {
  return tile_total_traits<A>::is_prefix(total);
}

// Kind: the walk. Tree: the decoupled walk folds windows as trees on its way
// back and every tile publishes P (look_back_decoupled; only for exactly
// associative operators); otherwise the grouped walk (look_back_grouped), for
// any associative operator. Windows: windows of 32 statuses read per round
// trip. SleepNs: the cap of the decoupled walk's polling backoff (the chained
// wait has its own, lower one).
template <class A, class Op, look_back_kind Kind = look_back_kind::decoupled, bool Tree = false, int Windows = 1,
          unsigned SleepNs = 1024>
struct tile_prefix_op {
  const tile_status<A>& status;  // a kernel parameter: read where used
  maybe<A> init;  // what comes before tile 0
  Op& op;

  // Broadcasts a one-tile block's prefix from the thread that learned it.
  using temp_storage = uninitialized<A>;

  // First step, one thread, once the tile's total is known: what the tile
  // alone can tell its successors.
  __device__ __forceinline__ void publish_aggregate(std::int64_t tile, bool last, const A& total) const {
    const bool first = tile == 0;
    if (last || (!first && Kind == look_back_kind::chained)) return;
    publish(tile, first || total_is_prefix(total) ? tile_prefix : tile_aggregate,
            first && init.present ? op(init.value, total) : total);
  }

  // Second step: the tile's exclusive prefix (tile 0: the init), passed on
  // as P. Decoupled: the whole warp calls it and every lane gets the
  // prefix; chained: one thread. `total` is read after the walk.
  __device__ __forceinline__ maybe<A> resolve(std::int64_t tile, bool last, const A& total) const {
    if (tile == 0) return init;
    if constexpr (Kind == look_back_kind::decoupled && Tree) {
      const A prefix = look_back_decoupled<A, Windows>(status, tile, op, SleepNs);
      if (threadIdx.x % 32 == 0 && !last && !total_is_prefix(total)) publish(tile, tile_prefix, op(prefix, total));
      return {prefix, true};
    } else if constexpr (Kind == look_back_kind::decoupled) {
      // Only a window's last tile publishes P (look_back_grouped): the others'
      // statuses keep their terms.
      const grouped_prefix<A> r = look_back_grouped<A, Windows>(status, tile, total, op, SleepNs);
      if (threadIdx.x % 32 == 0 && tile % 32 == 31 && !last && !total_is_prefix(total))
        publish(tile, tile_prefix, r.through_window);
      return {r.exclusive, true};
    } else {
      // Adjacent synchronisation: wait for the predecessor, pass ours on at once.
      const A prefix = wait_for_predecessor<A>(status, tile);
      if (!last) publish(tile, tile_prefix, op(prefix, total));
      return {prefix, true};
    }
  }

  // Both steps for a one-tile block, called by every thread: the tile's
  // exclusive prefix in every thread (the init, if any, is inside tile 0's
  // P already, so later tiles' prefixes are always present).
  __device__ maybe<A> operator()(const tile_slot& t, const A& total, temp_storage& storage) const {
    if (t.tile == 0) {
      if (threadIdx.x == 0) publish_aggregate(0, t.last, total);
      return init;
    }
    if (Kind == look_back_kind::decoupled ? threadIdx.x < 32 : threadIdx.x == 0) {
      if (threadIdx.x == 0) publish_aggregate(t.tile, t.last, total);
      const maybe<A> prefix = resolve(t.tile, t.last, total);
      if (threadIdx.x == 0) storage.get() = prefix.value;
    }
    __syncthreads();
    return {storage.get(), true};
  }

 private:
  __device__ __forceinline__ void publish(std::int64_t tile, tile_flag flag, const A& value) const {
    status.publish(tile, flag, value);
  }
};

}  // namespace streamscan::cuda::detail
