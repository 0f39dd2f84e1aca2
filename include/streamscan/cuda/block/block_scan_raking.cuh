// streamscan/cuda/block/block_scan_raking.cuh - block scan in matrix (raking)
// form: [StreamScan] sec. 3.3's Reduce-Scan-Scan inside one block.
//
// The block's values form a matrix of `rows` rows of `row_length` values in
// shared memory. Phase 1: one thread per row reduces it serially. Phase 2: one
// warp scans the row totals by shuffles. Phase 3: each row thread rescans its
// row seeded with the rows before it. Rows are padded by one slot so that the
// row threads, which walk columns in lockstep, hit different banks.
#pragma once

#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"

namespace streamscan::cuda {

template <class T, int BLOCK_THREADS>
class block_scan_raking {
  static_assert(BLOCK_THREADS >= 1 && BLOCK_THREADS <= 1024, "block size out of range");
  static constexpr int row_length = (BLOCK_THREADS + 31) / 32;
  static constexpr int rows = (BLOCK_THREADS + row_length - 1) / row_length;  // <= 32
  static constexpr int padded_row = row_length + 1;

  __device__ static int slot(int i) { return (i / row_length) * padded_row + i % row_length; }

 public:
  struct temp_storage {
    detail::uninitialized<T> grid[rows * padded_row];
    detail::uninitialized<T> aggregate;
  };

  __device__ explicit block_scan_raking(temp_storage& storage) : s_(storage) {}

  template <class Op>
  __device__ void scan(const T& x, Op& op, T& inclusive, T& exclusive, T& aggregate) {
    const int tid = static_cast<int>(threadIdx.x);
    s_.grid[slot(tid)].get() = x;
    __syncthreads();
    if (tid < rows) {
      const int begin = tid * row_length;
      const int end = begin + row_length < BLOCK_THREADS ? begin + row_length : BLOCK_THREADS;
      T* row = &s_.grid[tid * padded_row].get();
      // Reduce this row (phase 1).
      T total = row[0];
      for (int i = 1; i < end - begin; ++i) total = op(total, row[i]);
      // Scan the row totals across the raking warp (phase 2).
      T row_incl, row_excl;
      warp_scan::scan(total, op, tid, rows, row_incl, row_excl);
      if (tid == rows - 1) s_.aggregate.get() = row_incl;
      // Rescan the row, seeded with the rows before it (phase 3).
      T running = tid > 0 ? op(row_excl, row[0]) : row[0];
      row[0] = running;
      for (int i = 1; i < end - begin; ++i) {
        running = op(running, row[i]);
        row[i] = running;
      }
    }
    __syncthreads();
    inclusive = s_.grid[slot(tid)].get();
    if (tid > 0) exclusive = s_.grid[slot(tid - 1)].get();
    aggregate = s_.aggregate.get();
  }

 private:
  temp_storage& s_;
};

}  // namespace streamscan::cuda
