// streamscan/cuda/agent/agent_row_chunks.cuh - an inclusive scan of many rows
// (sequences) laid end to end in scan order, each scanned on its own: one
// warp a row, its positions in chunks of 32 x Rows vectors of IO::width
// values, each chunk scanned in registers (warp_slice_scan.cuh) and joined to
// the running carry of the chunks before it. No tile statuses and no
// look-back: nothing waits on another warp, and the warps of other rows keep
// the loads in flight. A row needs no heads: its warp starts with no carry.
//
// IO: value_type, width, vector_meta, and load(start, p, v, meta) /
// store(start, p, v, meta) of the width values at scan positions start + p
// onwards, where start = row * length opens the row and p is the position in
// it (so that an IO knows where a row begins and ends without a division).
// Users: the linear recurrence (recurrence_tile_io.cuh's chunk IOs, forward or
// gradient, Op recurrence_compose) and associative_scan's zip rows
// (zip_tile_io.cuh's zip_rows_chunk_io, the caller's operator). The callers run it where row
// lengths are multiples of the width, so that every vector of a chunk lies
// wholly inside or wholly past its row's end.
#pragma once

#include <cstdint>

#include "../util/async_copy.cuh"
#include "../warp/warp_slice_scan.cuh"

namespace streamscan::cuda::detail {

// Scans a loaded chunk (valid positions of it lie in the row), joins it to
// the running carry of the row's chunks before it, and stores it.
template <int Rows, class IO, class Op, class A = typename IO::value_type>
__device__ __forceinline__ void row_chunk_scan_store(const IO& io, std::int64_t start, std::int64_t off, int valid,
                                                     int lane, A (&v)[Rows][IO::width],
                                                     const typename IO::vector_meta (&meta)[Rows], A& carry,
                                                     bool& have, Op& op) {
  const A total = warp_scan_slice(v, op, lane);
  if (have) warp_prefix_slice(v, carry, op);
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
    const int s0 = (32 * k + lane) * IO::width;
    if (s0 < valid) io.store(start, off + s0, v[k], meta[k]);
  }
  carry = have ? op(carry, total) : total;
  have = true;
}

// Positions of the chunk at off in a row of `length` that lie in the row.
template <int Chunk>
__device__ __forceinline__ int row_chunk_valid(std::int64_t length, std::int64_t off) {
  const std::int64_t left = length - off;
  return left < Chunk ? static_cast<int>(left) : Chunk;
}

// Prefetch: a chunk's loads are issued before the chunk before it is scanned
// (twice the registers for values, twice the loads in flight a warp).
template <int Threads, int Rows, class IO, class Op, bool Prefetch = false>
struct agent_row_chunks {
  using A = typename IO::value_type;
  using meta_t = typename IO::vector_meta;
  static constexpr int width = IO::width;
  static constexpr int chunk = 32 * Rows * width;  // positions a warp scans at a time

  const IO& io;

  // The chunk at position off of the row opening at start (valid positions of
  // it lie in the row); past the row's end, values scanned after every stored
  // position and never stored.
  __device__ void load_chunk(std::int64_t start, std::int64_t off, int valid, int lane, A (&v)[Rows][width],
                             meta_t (&meta)[Rows]) const {
#pragma unroll
    for (int k = 0; k < Rows; ++k) {
      const int s0 = (32 * k + lane) * width;
      if (s0 < valid) {
        io.load(start, off + s0, v[k], meta[k]);
      } else {
#pragma unroll
        for (int c = 0; c < width; ++c) v[k][c] = A{};
      }
    }
  }

  // row: the warp's row in scan order; length: a multiple of width.
  __device__ void run(std::int64_t row, std::int64_t length) const {
    const int lane = static_cast<int>(threadIdx.x % 32);
    Op op{};  // stateless, as zip_rows_scan's and the recurrence's operators are
    A carry{};
    bool have = false;
    const std::int64_t start = row * length;
    A next[Prefetch ? Rows : 1][width];
    meta_t next_meta[Prefetch ? Rows : 1];
    if constexpr (Prefetch) load_chunk(start, 0, row_chunk_valid<chunk>(length, 0), lane, next, next_meta);
    for (std::int64_t off = 0; off < length; off += chunk) {
      const int valid = row_chunk_valid<chunk>(length, off);
      A v[Rows][width];
      meta_t meta[Rows];
      if constexpr (Prefetch) {
#pragma unroll
        for (int k = 0; k < Rows; ++k) {
          meta[k] = next_meta[k];
#pragma unroll
          for (int c = 0; c < width; ++c) v[k][c] = next[k][c];
        }
        if (off + chunk < length)
          load_chunk(start, off + chunk, row_chunk_valid<chunk>(length, off + chunk), lane, next, next_meta);
      } else {
        load_chunk(start, off, valid, lane, v, meta);
      }
      row_chunk_scan_store<Rows>(io, start, off, valid, lane, v, meta, carry, have, op);
    }
  }
};

// The same scan with each warp's next Stages - 1 chunks in flight as
// asynchronous copies to shared memory (util/async_copy.cuh) rather than in
// registers: more bytes in flight a warp at no register cost. IO adds
// staged_parts (16-byte pieces a vector reads), stage(start, p, base, index,
// count) issuing them (piece q of vector `index` of `count` at base + (q *
// count + index) * 16: each piece's lanes contiguous, no bank conflicts) and
// load_staged(base, index, count, start, p, v, meta).
template <int Threads, int Rows, int Stages, class IO, class Op>
struct agent_row_chunks_staged {
  static_assert(Stages >= 2, "at least one chunk in flight while another is scanned");
  using A = typename IO::value_type;
  using meta_t = typename IO::vector_meta;
  static constexpr int width = IO::width;
  static constexpr int chunk = 32 * Rows * width;
  static constexpr int vectors = 32 * Rows;                     // a warp's vectors a chunk
  static constexpr int stage_bytes = vectors * IO::staged_parts * 16;  // a warp's bytes a chunk

  struct temp_storage {
    alignas(16) unsigned char bytes[Threads / 32][Stages][stage_bytes];
  };

  const IO& io;
  temp_storage& storage;

  __device__ void stage_chunk(unsigned char* base, std::int64_t start, std::int64_t off, int valid,
                              int lane) const {
#pragma unroll
    for (int k = 0; k < Rows; ++k) {
      const int s0 = (32 * k + lane) * width;
      if (s0 < valid) io.stage(start, off + s0, base, 32 * k + lane, vectors);
    }
    async_copy_commit();  // every thread commits every time: the groups stay counted alike
  }

  __device__ void run(std::int64_t row, std::int64_t length) const {
    const int lane = static_cast<int>(threadIdx.x % 32);
    unsigned char(&mine)[Stages][stage_bytes] = storage.bytes[threadIdx.x / 32];
    Op op{};
    A carry{};
    bool have = false;
    const std::int64_t start = row * length;
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s)
      stage_chunk(mine[s], start, std::int64_t{s} * chunk, row_chunk_valid<chunk>(length, std::int64_t{s} * chunk),
                  lane);
    int slot = 0;
    for (std::int64_t off = 0; off < length; off += chunk) {
      // The slot the previous chunk was read from (its values already scanned) takes the chunk
      // Stages - 1 ahead; then the oldest group, this chunk's, is waited for.
      const std::int64_t ahead = off + std::int64_t{Stages - 1} * chunk;
      stage_chunk(mine[slot == 0 ? Stages - 1 : slot - 1], start, ahead, row_chunk_valid<chunk>(length, ahead), lane);
      async_copy_wait<Stages - 1>();
      const int valid = row_chunk_valid<chunk>(length, off);
      A v[Rows][width];
      meta_t meta[Rows];
#pragma unroll
      for (int k = 0; k < Rows; ++k) {
        const int s0 = (32 * k + lane) * width;
        if (s0 < valid) {
          io.load_staged(mine[slot], 32 * k + lane, vectors, start, off + s0, v[k], meta[k]);
        } else {
#pragma unroll
          for (int c = 0; c < width; ++c) v[k][c] = A{};
        }
      }
      row_chunk_scan_store<Rows>(io, start, off, valid, lane, v, meta, carry, have, op);
      slot = slot == Stages - 1 ? 0 : slot + 1;
    }
    async_copy_wait<0>();  // no copy outlives the warp's use of the shared memory
  }
};

}  // namespace streamscan::cuda::detail
