// streamscan/cuda/agent/cluster_chain.cuh - [StreamScan]'s chain with a
// thread-block cluster (sm_90) as one link: the protocol of the clustered
// chained scan, as tile_prefix.cuh is the one-tile-a-link chain's.
//
// A serial hand-off through global memory costs the same whether it passes
// one tile's prefix or eight's, so the chain is shortened by making fewer
// links, not faster ones. A cluster of `Cluster` blocks holds consecutive
// tiles; its blocks publish their tile totals in their own shared memory,
// read each other's through distributed shared memory after one cluster
// barrier, and scan them in one warp. One block then waits for the previous
// cluster's inclusive prefix and hands on the cluster's: one global hand-off
// per cluster instead of per tile.
//
//  * Cluster ids come from an atomic counter (taken by rank 0, read by the
//    others through distributed shared memory), so a cluster only ever
//    waits for clusters already running: no launch-order assumption, as
//    with single tiles (tile_id.cuh). Co-scheduling inside a cluster is the
//    hardware's guarantee.
//  * Determinism: with totals t_0..t_{C-1}, the cluster's inclusive prefix
//    is P_k = P_{k-1} (+) S_{C-1} and block r's exclusive prefix
//    P_{k-1} (+) S_{r-1}, where S_r is the warp's Kogge-Stone scan of the
//    totals, a fixed tree for a given n. No grouping depends on timing, so
//    floating-point results are bit-for-bit repeatable (they differ from the
//    one-tile chain's, which groups the totals as a left fold).
//  * Operator order is kept: only ever (earlier) (+) (later).
//  * A block whose tile lies past the input (the last cluster may be
//    partial) takes part in the barriers only.
//  * A block's total must outlive every remote read of it: each thread
//    arrives at a last cluster barrier once the totals are read, and waits
//    for it before the block exits (`release`).
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "../util/maybe.cuh"
#include "../util/shuffle.cuh"
#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "look_back.cuh"
#include "tile_id.cuh"
#include "tile_status.cuh"

namespace streamscan::cuda::detail {

// A block's tile in a clustered chain: the tile (slot.tile is its index in
// the whole scan; valid = 0 past the input), its cluster's link in the
// chain, and how many of the cluster's blocks hold a tile.
struct cluster_tile {
  tile_slot slot;
  std::int64_t link;
  int rank, tiles_here;
  bool last_link;
};

template <class A, class Op, int Cluster>
struct cluster_chain {
  static_assert(Cluster >= 2 && Cluster <= 32, "one warp scans a cluster's totals");
  const tile_status<A>& status;  // one word per link (cluster)
  maybe<A> init;  // what comes before tile 0
  Op& op;

  struct temp_storage {
    std::int64_t link;         // rank 0's: the cluster's link, read by the others
    uninitialized<A> total;    // this block's tile total, read by the others
    uninitialized<A> prefix;   // this block's exclusive prefix, to every thread
    bool has_prefix;           // ... absent only for tile 0 without an init
  };

  // Every thread: this block's tile of TileItems positions.
  template <int TileItems>
  __device__ cluster_tile next_tile(unsigned long long* counter, std::int64_t n, temp_storage& s) const {
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = static_cast<int>(cluster.block_rank());
    if (rank == 0 && threadIdx.x == 0) s.link = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
    cluster.sync();
    // One remote read a block; only rank 0's word is ever read remotely, and
    // rank 0 never writes it again (not even the same value: a write there
    // would race the other blocks' reads).
    if (threadIdx.x == 0 && rank != 0) s.link = *cluster.map_shared_rank(&s.link, 0);
    __syncthreads();
    cluster_tile c;
    c.link = s.link;
    c.rank = rank;
    const std::int64_t tiles = (n + TileItems - 1) / TileItems;
    const std::int64_t first = c.link * Cluster;
    c.tiles_here = tiles - first < Cluster ? static_cast<int>(tiles - first) : Cluster;
    c.last_link = first + Cluster >= tiles;
    c.slot.tile = first + rank;
    c.slot.base = c.slot.tile * TileItems;
    c.slot.lo = 0;
    const std::int64_t left = n - c.slot.base;
    c.slot.valid = left <= 0 ? 0 : left < TileItems ? static_cast<int>(left) : TileItems;
    c.slot.last = left <= TileItems;
    return c;
  }

  // Every thread, once the tile's total is known (any value where the block
  // holds no tile): the tile's exclusive prefix, in every thread (absent
  // only for tile 0 without an init).
  __device__ maybe<A> operator()(const cluster_tile& c, const A& total, temp_storage& s) const {
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) s.total.get() = total;
    cluster.sync();  // every total published (release / acquire across the cluster)
    if (threadIdx.x < 32) {
      const int lane = static_cast<int>(threadIdx.x);
      constexpr unsigned all = 0xffffffffu;
      // Lane j reads tile j's total; lanes past the cluster's tiles repeat the
      // last (their results are never used; op is a pure function). Only the
      // scan's last tile is partial, and its total (padded values included)
      // reaches only the last link's prefixes, which nothing reads.
      const int j = lane < c.tiles_here ? lane : c.tiles_here - 1;
      const A mine = cluster.map_shared_rank(&s.total, j)->get();
      const A inclusive = warp_scan::inclusive(mine, op, lane);
      const A before = shfl_idx(all, inclusive, c.rank > 0 ? c.rank - 1 : 0);  // S_{r-1}
      const A cluster_total = shfl_idx(all, inclusive, c.tiles_here - 1);
      if (lane == 0 && c.slot.valid > 0) {
        maybe<A> link_prefix = init;  // P_{k-1}
        if (c.link > 0) link_prefix = {wait_for_predecessor<A>(status, c.link), true};
        // The block of the cluster's last tile hands the chain on.
        if (c.rank == c.tiles_here - 1 && !c.last_link)
          status.publish(c.link, tile_prefix,
                         link_prefix.present ? op(link_prefix.value, cluster_total) : cluster_total);
        maybe<A> prefix = link_prefix;
        if (c.rank > 0) prefix = {link_prefix.present ? op(link_prefix.value, before) : before, true};
        s.prefix.get() = prefix.value;
        s.has_prefix = prefix.present;
      } else if (lane == 0) {
        s.has_prefix = false;  // no tile: nothing uses the prefix
      }
      __syncwarp();
    }
    cluster.barrier_arrive();  // this thread's remote reads are done
    __syncthreads();
    return {s.prefix.get(), s.has_prefix};
  }

  // Every thread, last: the block's total stays readable until every block
  // of the cluster has read what it needs.
  __device__ void release() const { cooperative_groups::this_cluster().barrier_wait(); }
};

}  // namespace streamscan::cuda::detail
