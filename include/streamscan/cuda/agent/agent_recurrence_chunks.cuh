// streamscan/cuda/agent/agent_recurrence_chunks.cuh - a linear recurrence
// where sequences are many: one warp a sequence, its steps in chunks of
// 32 x Rows 16-byte vectors, each chunk scanned in registers
// (warp_slice_scan.cuh) and joined to the running carry of the chunks before
// it. No tile statuses and no look-back: nothing waits on another warp, and
// the warps of other sequences keep the loads in flight. Reads and writes go
// through the dense-rows IOs of the look-back path (recurrence_tile_io.cuh,
// forward or gradient), whose scan positions the warp's sequence occupies
// from seq * length on; sequence starts are closed there. The dispatch runs
// it where rows are 16-byte multiples (every vector of a chunk lies inside
// its sequence) and there are enough sequences to fill the GPU.
#pragma once

#include <cstdint>

#include "../thread/thread_linear_recurrence.cuh"
#include "../warp/warp_slice_scan.cuh"

namespace streamscan::cuda::detail {

template <int Threads, int Rows, class IO>
struct agent_recurrence_chunks {
  using A = typename IO::value_type;
  static constexpr int width = IO::width;
  static constexpr int chunk = 32 * Rows * width;  // steps a warp scans at a time

  const IO& io;

  // seq: the warp's sequence in scan order; length: a multiple of width.
  __device__ void run(std::int64_t seq, std::int64_t length) const {
    const int lane = static_cast<int>(threadIdx.x % 32);
    recurrence_compose op;
    A carry{};
    bool have = false;
    for (std::int64_t off = 0; off < length; off += chunk) {
      const std::int64_t base = seq * length + off;
      const std::int64_t left = length - off;
      const int valid = left < chunk ? static_cast<int>(left) : chunk;
      A v[Rows][width];
      typename IO::vector_meta meta[Rows];
#pragma unroll
      for (int k = 0; k < Rows; ++k) {
        const int s0 = (32 * k + lane) * width;
        if (s0 < valid) {
          io.load(base, s0, v[k], meta[k]);
        } else {  // past the sequence's end: scanned after every stored step, never stored
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
