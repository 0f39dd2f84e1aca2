// streamscan/cuda/agent/agent_stream_scan.cuh - [StreamScan]'s intra-block
// scan for the chained strategy (sec. 3.3): thread groups (a 3D
// matrix), the working set split between registers and shared memory, and
// strided or coalesced loads.
//
// Each warp is a thread group that owns a contiguous sub-block of the tile,
// cut into P = R + L pieces. A piece is a 32 x W matrix: lane t owns row t,
// W consecutive values (32 bytes of them). The first R pieces live in the
// lanes' registers, the last L in shared memory, so a tile holds more than
// either could alone (sec. 3.3.2), and the chain pays one hand-off per tile.
// A group only ever exchanges data among its own lanes, so loading and
// computing need no block barrier (sec. 3.3.1).
//
// Loads (sec. 3.3.3-3.3.4):
//  * strided: each lane reads its own rows straight from global memory, in
//    16-byte vectors where the pointers allow; shared pieces are then written
//    to the lane's own rows. No exchange at all.
//  * coalesced: the group reads a piece in consecutive 16-byte vectors (512
//    contiguous bytes per warp instruction) into a shared-memory matrix whose
//    rows are padded by one vector, so that the lanes' row reads (8 lanes per
//    16-byte phase, strides of an odd number of vectors) hit distinct banks.
//    Register pieces pass through one transit piece; stores go back the same
//    way.
//
// Then [StreamScan]'s Reduce-Scan-Scan, per group: each lane reduces its rows,
// the group scans the row totals (piece by piece, by shuffles) and each lane
// rescans its rows from what precedes them in the group; warp 0 scans the
// group totals, the caller resolves the tile's prefix (the chain), and the
// prefix of the tile and of the groups before goes in front of every value.
// No identity element is assumed: absent prefixes are `maybe`s. Values are
// read and written through tile_io.cuh's vector_tile_io (raw 16-byte-aligned
// pointers; the dispatcher runs the 2D matrix scan for anything else).
#pragma once

#include <cstdint>
#include <cstring>

#include "../thread/thread_scan.cuh"
#include "../util/shuffle.cuh"
#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "agent_scan.cuh"
#include "tile_io.cuh"

namespace streamscan::cuda::detail {

template <class Policy, class IO, class A, class Op>
class agent_stream_scan {
 public:
  static constexpr int V = IO::width;  // values per 16-byte access
  using meta_t = typename IO::vector_meta;
  static constexpr int W = Policy::row_items;
  static constexpr int R = Policy::register_pieces;
  static constexpr int L = Policy::shared_pieces;
  static constexpr int P = R + L;
  static constexpr int RS = R > 0 ? R : 1;  // the register array's extent (no zero-length arrays)
  static constexpr bool coalesced = Policy::coalesced;
  static constexpr int groups = Policy::threads / 32;
  static constexpr int piece_items = 32 * W;
  static constexpr int group_items = P * piece_items;
  static constexpr int tile_items = groups * group_items;
  static_assert(W % V == 0, "a row is whole vectors");
  static_assert(tile_items == Policy::tile_items, "tile size agrees with the tuning space");
  // Shared memory: per group, L pieces (coalesced: at least one, the transit
  // piece), each 32 rows of W values plus, coalesced, one vector of padding.
  static constexpr int slots = coalesced && L == 0 ? 1 : L;
  static constexpr int pad_bytes = coalesced ? (V > 1 ? 16 : static_cast<int>(alignof(A))) : 0;
  static constexpr int row_stride = W * static_cast<int>(sizeof(A)) + pad_bytes;  // bytes
  static constexpr std::size_t shared_bytes = std::size_t{groups} * slots * 32 * row_stride;

  struct temp_storage {
    uninitialized<A> group_inclusive[groups];
  };

  __device__ agent_stream_scan(temp_storage& storage, unsigned char* rows, const IO& io, Op& op)
      : s_(storage), rows_(rows), io_(io), op_(op), lane_(static_cast<int>(threadIdx.x % 32)),
        group_(static_cast<int>(threadIdx.x / 32)) {}

  // Reduce phase: loads the tile at `base` (positions [0, valid); a partial
  // tile is padded with copies of its first value, whose results are never
  // stored), reduces each row, scans the row totals across the group (piece
  // by piece, by shuffles) and rescans each row from what precedes it in the
  // group, so the rows hold group-local scans; then scans the group totals
  // across the block. Returns the tile total. ([StreamScan] rescans the rows only
  // after the chain; rescanning first and adding the tile's prefix after
  // costs one op more a value but keeps no per-row prefixes in registers.)
  __device__ A reduce(std::int64_t base, int valid, A (&reg)[RS][W], scan_mode mode) {
    if (valid == tile_items)
      load<true>(base, valid, reg);
    else
      load<false>(base, valid, reg);
    maybe<A> running{A{}, false};  // the group's total before piece p
#pragma unroll
    for (int p = 0; p < P; ++p) {
      A row[W];
      read_row(p, reg, row);
      const A incl = warp_scan::inclusive(thread_reduce(row, op_), op_, lane_);
      const A excl = shfl_up(0xffffffffu, incl, 1);
      const A piece_total = shfl_idx(0xffffffffu, incl, 31);
      maybe<A> seed = running;
      if (lane_ > 0) seed = {running.present ? op_(running.value, excl) : excl, true};
      if (mode == scan_mode::exclusive)
        thread_exclusive_scan(row, op_, seed.value, seed.present);
      else
        thread_inclusive_scan(row, op_, seed.value, seed.present);
      write_row(p, reg, row);
      running = {running.present ? op_(running.value, piece_total) : piece_total, true};
    }
    if (lane_ == 0) s_.group_inclusive[group_].get() = running.value;
    __syncthreads();
    if (group_ == 0 && lane_ < groups)
      s_.group_inclusive[lane_].get() = warp_scan::inclusive(s_.group_inclusive[lane_].get(), op_, lane_, groups);
    __syncthreads();
    return s_.group_inclusive[groups - 1].get();
  }

  // Scan phase: puts (prefix, groups before) in front of every value and
  // stores positions [0, valid). `prefix` is the same in every thread; absent
  // only for the first tile without an init, where an exclusive scan leaves
  // position 0 unwritten. In exclusive mode a group's first value has no
  // group-local part: it is `before` itself.
  __device__ void scan(std::int64_t base, int valid, A (&reg)[RS][W], maybe<A> prefix, scan_mode mode) {
    maybe<A> before = prefix;
    if (group_ > 0) {
      const A g = s_.group_inclusive[group_ - 1].get();
      before = {before.present ? op_(before.value, g) : g, true};
    }
    if (before.present) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        A row[W];
        read_row(p, reg, row);
#pragma unroll
        for (int c = 0; c < W; ++c)
          row[c] = mode == scan_mode::exclusive && p == 0 && c == 0 && lane_ == 0 ? before.value
                                                                                : op_(before.value, row[c]);
        write_row(p, reg, row);
      }
    }
    const bool skip_first = mode == scan_mode::exclusive && !before.present;  // position 0 of the scan
    if (valid == tile_items && !skip_first)
      store<true>(base, valid, reg, false);
    else
      store<false>(base, valid, reg, skip_first);
  }

 private:
  // Position in the tile of piece p's vector k (coalesced: the group's k-th
  // 16-byte unit of the piece) or of row t's first value (strided).
  __device__ int piece_start(int p) const { return group_ * group_items + p * piece_items; }
  __device__ unsigned char* slot(int s) const {
    return rows_ + (static_cast<std::size_t>(group_) * slots + s) * 32 * row_stride;
  }
  // Row t of a shared slot, values [c, c + V): one 16-byte access (V > 1).
  __device__ void slot_read(int s, int t, int c, A (&v)[V]) const {
    const unsigned char* at = slot(s) + t * row_stride + c * static_cast<int>(sizeof(A));
    if constexpr (V > 1) {
      const vector_of<A, V> raw = *reinterpret_cast<const vector_of<A, V>*>(at);
#pragma unroll
      for (int i = 0; i < V; ++i) v[i] = raw.x[i];
    } else {
      v[0] = *reinterpret_cast<const A*>(at);
    }
  }
  __device__ void slot_write(int s, int t, int c, const A (&v)[V]) const {
    unsigned char* at = slot(s) + t * row_stride + c * static_cast<int>(sizeof(A));
    if constexpr (V > 1) {
      vector_of<A, V> raw;
#pragma unroll
      for (int i = 0; i < V; ++i) raw.x[i] = v[i];
      *reinterpret_cast<vector_of<A, V>*>(at) = raw;
    } else {
      *reinterpret_cast<A*>(at) = v[0];
    }
  }
  // The lane's row of shared slot s.
  __device__ void read_slot_row(int s, A (&row)[W]) const {
#pragma unroll
    for (int c = 0; c < W; c += V) {
      A v[V];
      slot_read(s, lane_, c, v);
#pragma unroll
      for (int i = 0; i < V; ++i) row[c + i] = v[i];
    }
  }
  __device__ void write_slot_row(int s, const A (&row)[W]) const {
#pragma unroll
    for (int c = 0; c < W; c += V) {
      A v[V];
#pragma unroll
      for (int i = 0; i < V; ++i) v[i] = row[c + i];
      slot_write(s, lane_, c, v);
    }
  }
  // Row (p, lane): registers for p < R, else shared slot p - R.
  __device__ void read_row(int p, const A (&reg)[RS][W], A (&row)[W]) const {
    if (p < R) {
#pragma unroll
      for (int c = 0; c < W; ++c) row[c] = reg[p][c];
    } else {
      read_slot_row(p - R, row);
    }
  }
  __device__ void write_row(int p, A (&reg)[RS][W], const A (&row)[W]) const {
    if (p < R) {
#pragma unroll
      for (int c = 0; c < W; ++c) reg[p][c] = row[c];
    } else {
      write_slot_row(p - R, row);
    }
  }

  // V values at tile position `at`: one access when the tile is full, else
  // value by value, the filler past `valid`.
  template <bool Full>
  __device__ void load_vector(std::int64_t base, int at, int valid, const A& filler, A (&v)[V]) const {
    meta_t meta{};
    if (Full) {
      io_.load(base, at, v, meta);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) v[i] = at + i < valid ? io_.load_one(base, at + i, meta, i) : filler;
    }
  }
  template <bool Full>
  __device__ void store_vector(std::int64_t base, int at, int valid, bool skip_first, const A (&v)[V]) const {
    const meta_t meta{};
    if (Full) {
      io_.store(base, at, v, meta);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i)
        if (at + i < valid && !(skip_first && base + at + i == 0)) io_.store_one(base, at + i, v[i], meta, i);
    }
  }

  // A coalesced piece is read and written in units of V values (16 bytes),
  // lane l taking units k = 32 j + l: unit k is row k / (W / V) of the
  // piece, from column (k % (W / V)) * V.
  static constexpr int units_per_row = W / V;
  __device__ void slot_write_unit(int s, int k, const A (&v)[V]) const {
    slot_write(s, k / units_per_row, (k % units_per_row) * V, v);
  }
  __device__ void slot_read_unit(int s, int k, A (&v)[V]) const {
    slot_read(s, k / units_per_row, (k % units_per_row) * V, v);
  }

  template <bool Full>
  __device__ void load(std::int64_t base, int valid, A (&reg)[RS][W]) {
    meta_t none{};
    const A filler = Full ? A{} : io_.load_one(base, 0, none, 0);
    if constexpr (coalesced) {
      // Every register piece's units first (all in flight at once), then
      // each through the transit slot (slot 0) into its rows, then the
      // shared pieces into their slots (slot 0 last held a register piece).
#pragma unroll
      for (int p = 0; p < R; ++p)
#pragma unroll
        for (int j = 0; j < units_per_row; ++j) {
          A v[V];
          load_vector<Full>(base, piece_start(p) + (32 * j + lane_) * V, valid, filler, v);
#pragma unroll
          for (int i = 0; i < V; ++i) reg[p][j * V + i] = v[i];
        }
#pragma unroll
      for (int p = 0; p < R; ++p) {
        __syncwarp();  // the transit slot's previous rows have been read
#pragma unroll
        for (int j = 0; j < units_per_row; ++j) {
          const int k = 32 * j + lane_;
          A v[V];
#pragma unroll
          for (int i = 0; i < V; ++i) v[i] = reg[p][j * V + i];
          slot_write_unit(0, k, v);
        }
        __syncwarp();
        read_slot_row(0, reg[p]);
      }
      __syncwarp();  // slot 0 read out
#pragma unroll
      for (int p = R; p < P; ++p)
#pragma unroll
        for (int j = 0; j < units_per_row; ++j) {
          const int k = 32 * j + lane_;
          A v[V];
          load_vector<Full>(base, piece_start(p) + k * V, valid, filler, v);
          slot_write_unit(p - R, k, v);
        }
      __syncwarp();  // the shared pieces' rows are in place
    } else {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        A row[W];
#pragma unroll
        for (int c = 0; c < W; c += V) {
          A v[V];
          load_vector<Full>(base, piece_start(p) + lane_ * W + c, valid, filler, v);
#pragma unroll
          for (int i = 0; i < V; ++i) row[c + i] = v[i];
        }
        write_row(p, reg, row);
      }
    }
  }

  template <bool Full>
  __device__ void store(std::int64_t base, int valid, A (&reg)[RS][W], bool skip_first) {
    if constexpr (coalesced) {
      __syncwarp();  // every lane's rescanned shared rows
#pragma unroll
      for (int p = R; p < P; ++p)
#pragma unroll
        for (int j = 0; j < units_per_row; ++j) {
          const int k = 32 * j + lane_;
          A v[V];
          slot_read_unit(p - R, k, v);
          store_vector<Full>(base, piece_start(p) + k * V, valid, skip_first, v);
        }
#pragma unroll
      for (int p = 0; p < R; ++p) {
        __syncwarp();  // slot 0's previous contents have been read
        write_slot_row(0, reg[p]);
        __syncwarp();
#pragma unroll
        for (int j = 0; j < units_per_row; ++j) {
          const int k = 32 * j + lane_;
          A v[V];
          slot_read_unit(0, k, v);
          store_vector<Full>(base, piece_start(p) + k * V, valid, skip_first, v);
        }
      }
    } else {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        A row[W];
        read_row(p, reg, row);
#pragma unroll
        for (int c = 0; c < W; c += V) {
          A v[V];
#pragma unroll
          for (int i = 0; i < V; ++i) v[i] = row[c + i];
          store_vector<Full>(base, piece_start(p) + lane_ * W + c, valid, skip_first, v);
        }
      }
    }
  }

  temp_storage& s_;
  unsigned char* rows_;
  const IO& io_;
  Op& op_;
  int lane_, group_;
};

}  // namespace streamscan::cuda::detail
