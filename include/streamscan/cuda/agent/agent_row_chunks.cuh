// streamscan/cuda/agent/agent_row_chunks.cuh - an inclusive scan of many rows
// (sequences) laid end to end in scan order, each scanned on its own: one
// warp a row, its positions in chunks of 32 x Rows vectors of IO::width
// values, each chunk scanned in registers (warp_slice_scan.cuh) and joined to
// the running carry of the chunks before it. No tile statuses and no
// look-back: nothing waits on another warp, and the warps of other rows keep
// the loads in flight. A row needs no heads: its warp starts with no carry.
//
// IO: value_type, width, vector_meta, and load(base, s0, v, meta) /
// store(base, s0, v, meta) of the width values at scan positions base + s0
// onwards (the look-back path's vector IO interface, tile_io.cuh); a row
// occupies positions [row * length, (row + 1) * length). Users: the linear
// recurrence (recurrence_tile_io.cuh's dense-rows IOs, forward or gradient,
// Op recurrence_compose) and associative_scan's zip rows (zip_tile_io.cuh's
// zip_rows_chunk_io, the caller's operator). The callers run it where row
// lengths are multiples of the width, so that every vector of a chunk lies
// wholly inside or wholly past its row's end.
#pragma once

#include <cstdint>

#include "../warp/warp_slice_scan.cuh"

namespace streamscan::cuda::detail {

template <int Threads, int Rows, class IO, class Op>
struct agent_row_chunks {
  using A = typename IO::value_type;
  static constexpr int width = IO::width;
  static constexpr int chunk = 32 * Rows * width;  // positions a warp scans at a time

  const IO& io;

  // row: the warp's row in scan order; length: a multiple of width.
  __device__ void run(std::int64_t row, std::int64_t length) const {
    const int lane = static_cast<int>(threadIdx.x % 32);
    Op op{};  // stateless, as zip_rows_scan's and the recurrence's operators are
    A carry{};
    bool have = false;
    for (std::int64_t off = 0; off < length; off += chunk) {
      const std::int64_t base = row * length + off;
      const std::int64_t left = length - off;
      const int valid = left < chunk ? static_cast<int>(left) : chunk;
      A v[Rows][width];
      typename IO::vector_meta meta[Rows];
#pragma unroll
      for (int k = 0; k < Rows; ++k) {
        const int s0 = (32 * k + lane) * width;
        if (s0 < valid) {
          io.load(base, s0, v[k], meta[k]);
        } else {  // past the row's end: scanned after every stored position, never stored
#pragma unroll
          for (int c = 0; c < width; ++c) v[k][c] = A{};
        }
      }
      const A total = warp_scan_slice(v, op, lane);
      if (have) warp_prefix_slice(v, carry, op);
#pragma unroll
      for (int k = 0; k < Rows; ++k) {
        const int s0 = (32 * k + lane) * width;
        if (s0 < valid) io.store(base, s0, v[k], meta[k]);
      }
      carry = have ? op(carry, total) : total;
      have = true;
    }
  }
};

}  // namespace streamscan::cuda::detail
