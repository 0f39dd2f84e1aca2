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

#include "../warp/warp_slice_scan.cuh"

namespace streamscan::cuda::detail {

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
    auto valid_at = [&](std::int64_t off) {
      const std::int64_t left = length - off;
      return left < chunk ? static_cast<int>(left) : chunk;
    };
    A next[Prefetch ? Rows : 1][width];
    meta_t next_meta[Prefetch ? Rows : 1];
    if constexpr (Prefetch) load_chunk(start, 0, valid_at(0), lane, next, next_meta);
    for (std::int64_t off = 0; off < length; off += chunk) {
      const int valid = valid_at(off);
      A v[Rows][width];
      meta_t meta[Rows];
      if constexpr (Prefetch) {
#pragma unroll
        for (int k = 0; k < Rows; ++k) {
          meta[k] = next_meta[k];
#pragma unroll
          for (int c = 0; c < width; ++c) v[k][c] = next[k][c];
        }
        if (off + chunk < length) load_chunk(start, off + chunk, valid_at(off + chunk), lane, next, next_meta);
      } else {
        load_chunk(start, off, valid, lane, v, meta);
      }
      const A total = warp_scan_slice(v, op, lane);
      if (have) warp_prefix_slice(v, carry, op);
#pragma unroll
      for (int k = 0; k < Rows; ++k) {
        const int s0 = (32 * k + lane) * width;
        if (s0 < valid) io.store(start, off + s0, v[k], meta[k]);
      }
      carry = have ? op(carry, total) : total;
      have = true;
    }
  }
};

}  // namespace streamscan::cuda::detail
