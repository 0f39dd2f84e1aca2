// streamscan/cuda/agent/tile_id.cuh - which tile a block of a single-pass
// kernel works on, and where the tile lies.
//
// Each block takes the next tile id from an atomic counter (StreamScan's
// dynamic tile ids, [StreamScan]), so a block only ever waits for tiles that
// blocks already running have taken: no launch order or residency
// assumption, any grid size, no deadlock.
#pragma once

#include <cstddef>
#include <cstdint>

namespace streamscan::cuda::detail {

// A single-pass kernel's temp storage: the tile counter in the first 256
// bytes (which keeps the status words after it 256-byte aligned), then the
// tile status words.
inline constexpr std::size_t tile_counter_bytes = 256;

// Tile `tile` covers slots [lo, valid) at scan positions base + slot.
struct tile_slot {
  std::int64_t tile, base;
  int lo, valid;
  bool last;
};

// Where tile `tile` lies. Tiles are TileItems scan positions; `lead` filler
// slots go before the first (backward scans start there, so that full tiles
// stay aligned and the last tile is full: tile_io.cuh); forward scans pass 0.
template <int TileItems>
__device__ tile_slot tile_at(std::int64_t tile, std::int64_t n, std::int64_t lead = 0) {
  tile_slot t;
  t.tile = tile;
  t.base = t.tile * TileItems - lead;
  t.lo = t.base < 0 ? static_cast<int>(-t.base) : 0;
  const std::int64_t left = n - t.base;
  t.valid = left < TileItems ? static_cast<int>(left) : TileItems;
  t.last = left <= TileItems;
  return t;
}

// Thread 0 takes the next tile id; every thread learns it (a barrier).
template <int TileItems>
__device__ tile_slot next_tile(unsigned long long* counter, std::int64_t n, std::int64_t& shared_tile,
                               std::int64_t lead = 0) {
  if (threadIdx.x == 0) shared_tile = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  __syncthreads();
  return tile_at<TileItems>(shared_tile, n, lead);
}

// The plain agent reads a tile that starts with filler slots as a partial
// tile of the `valid - lo` positions from 0 (no 16-byte accesses there).
__device__ inline tile_slot without_lead(tile_slot t) {
  if (t.lo > 0) {
    t.base += t.lo;
    t.valid -= t.lo;
    t.lo = 0;
  }
  return t;
}

}  // namespace streamscan::cuda::detail
