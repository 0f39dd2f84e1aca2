// streamscan/cuda/kernels/spmv_kernels.cuh - the kernels of y = alpha A x + beta y
// (semantics in streamscan/spmv.hpp).
//
// Merge path: the row ends (row_offsets[1..rows]) and the non-zero indices
// 0..nnz-1 are merged into one sequence of rows + nnz items (a row end
// comes before the non-zero with the same index, which belongs to the next
// row) and cut into tiles of equal length. merge_path_tiles_kernel finds each
// tile's start (row, non-zero) by a binary search along its diagonal.
// merge_path_spmv_kernel stages the tile's row ends and products in shared
// memory, gives each thread an equal slice of the tile (another search),
// lets it add products and close rows, joins the partial row a thread hands
// to the next by a block scan of (row, sum) pairs, and writes the rows the
// tile closed. A tile's unfinished last row goes out as a carry;
// merge_path_fixup_kernel adds the carries to the rows they belong to, after
// every tile has written.
//
// Row groups: row_group_spmv_kernel gives each row G lanes of a warp, which
// stride over its non-zeros and add their partial sums by shuffles (a fixed
// tree). A row longer than `spill` non-zeros is not added there: its group
// claims slots for the row's chunks (`chunk` non-zeros each) at an atomic
// counter and lists them; long_chunk_spmv_kernel adds each chunk in one
// block, and long_row_spmv_kernel adds a row's chunk sums in chunk order.
// Slots are claimed in whatever order groups run, but a row's chunks lie
// in consecutive slots in chunk order, so every sum is a fixed sequence of
// operations: results are repeatable bit for bit.
//
// Non-zero split: tile b is non-zeros [b T, (b + 1) T) (T = threads x items),
// so every block gathers the same number of x's whatever the rows' lengths.
// A tile closes the rows whose closing position lies in it: the last
// non-zero of a non-empty row, the position of an empty one (that order is
// the rows' order, so a tile closes a run of rows; nonzero_split_rows_kernel
// finds each run's first row by a binary search). nonzero_split_spmv_kernel
// stages the tile's products and its row-start flags in shared memory, lets
// each thread scan its `items` consecutive products, joins the threads by a
// segmented block scan, and writes each closed row from the scanned value at
// its last non-zero. The part of a row that goes on past the tile leaves as
// a carry, which nonzero_split_fixup_kernel adds after every tile has
// written, as merge path's does; it also writes the rows a tile closes past
// spmv_split_own_rows x tile (only long runs of empty rows make that many),
// which the tile lists rather than walk them alone.
// It reads the matrix streaming (evict-first) and gathers x by plain loads,
// so that L2 keeps x and lets the matrix pass (spmv_loads).
//
// [ScanPrimitives] section 4.2: seed_products_kernel, seed_heads_kernel,
// then a backward segmented sum (the library's), then seed_gather_kernel.
#pragma once

#include <cstdint>

#include "../../detail/spmv_validate.hpp"
#include "../block/block_reduce.cuh"
#include "../block/block_scan.cuh"
#include "../../detail/segmented_pair.hpp"
#include "../../operators.hpp"
#include "../../tuning/spmv.hpp"
#include "../util/grid_dependency.cuh"
#include "../util/uninitialized.cuh"

namespace streamscan::cuda::detail {

// A tile's start in the merge: rows closed and non-zeros taken before it.
struct merge_coordinate {
  std::int64_t row;
  std::int64_t nz;
};

// The number of row ends among the first `diagonal` merge items.
// row_end(i) = offsets[i + 1]; a row end goes first on ties.
template <class RowEnd>
__device__ __forceinline__ std::int64_t merge_path_rows(std::int64_t diagonal, std::int64_t rows, std::int64_t nnz,
                                                        RowEnd row_end) {
  std::int64_t lo = diagonal > nnz ? diagonal - nnz : 0;
  std::int64_t hi = diagonal < rows ? diagonal : rows;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    // Take row end `mid` (and all before it) if it is due before non-zero diagonal - mid - 1.
    if (static_cast<std::int64_t>(row_end(mid)) <= diagonal - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <class Offset>
__global__ void merge_path_tiles_kernel(const Offset* offsets, std::int64_t rows, std::int64_t nnz,
                                        std::int64_t tile_items, std::int64_t tiles, merge_coordinate* starts) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t > tiles) return;
  const std::int64_t total = rows + nnz;
  const std::int64_t diagonal = t * tile_items < total ? t * tile_items : total;
  const std::int64_t row =
      merge_path_rows(diagonal, rows, nnz, [offsets](std::int64_t i) { return __ldg(offsets + i + 1); });
  starts[t] = {row, diagonal - row};
}

// A tile's two ends as a plan gives them, made safe to use: a plan that does
// not fit the matrix (prepared for another one: the caller's error,
// spmv.hpp) then gives wrong sums, but the tile reads and writes nothing
// outside the arrays or its shared memory. A fitting plan is left as it is.
__device__ __forceinline__ void clamp_merge_tile(merge_coordinate& begin, merge_coordinate& end, std::int64_t rows,
                                                 std::int64_t nnz, int tile_items) {
  const auto clamp = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : v > hi ? hi : v; };
  begin.row = clamp(begin.row, 0, rows);
  begin.nz = clamp(begin.nz, 0, nnz);
  end.row = clamp(end.row, begin.row, begin.row + tile_items < rows ? begin.row + tile_items : rows);
  const std::int64_t room = tile_items - (end.row - begin.row);
  end.nz = clamp(end.nz, begin.nz, begin.nz + room < nnz ? begin.nz + room : nnz);
}

// A row's partial sum keyed by the row (tile-local): the block scan joins
// runs of the same row.
template <class V>
struct keyed_sum {
  int row;
  V sum;
};
struct join_same_row {
  template <class V>
  __device__ __forceinline__ keyed_sum<V> operator()(const keyed_sum<V>& a, const keyed_sum<V>& b) const {
    return {b.row, a.row == b.row ? a.sum + b.sum : b.sum};
  }
};

template <class V>
struct merge_carry {
  std::int64_t row;  // the row the carry belongs to (rows: none)
  V sum;
};

template <int Threads, int Items, class V, class Offset, class Index>
__global__ void __launch_bounds__(Threads)
    merge_path_spmv_kernel(const Offset* offsets, const Index* columns, const V* values, const V* x, V* y,
                           std::int64_t rows, std::int64_t nnz, V alpha, V beta, const merge_coordinate* starts,
                           merge_carry<V>* carries) {
  constexpr int tile_items = Threads * Items;
  using scan_t = block_scan<keyed_sum<V>, Threads, block_scan_algorithm::kogge_stone>;
  __shared__ union {
    struct {
      int row_end[tile_items + 1];  // the tile's row ends less its first non-zero (clamped), then one past
      V product[tile_items];        // the tile's products
    } s;
    typename scan_t::temp_storage scan;
  } smem;
  __shared__ V row_sum[tile_items];

  const int tid = static_cast<int>(threadIdx.x);
  merge_coordinate begin = starts[blockIdx.x], end = starts[blockIdx.x + 1];
  clamp_merge_tile(begin, end, rows, nnz, tile_items);
  const int tile_rows = static_cast<int>(end.row - begin.row);  // rows closed in this tile
  const int tile_nz = static_cast<int>(end.nz - begin.nz);

  // Stage the products and the row ends (one past the tile: the open row's
  // end, or a sentinel). Every load of a thread is issued before the first
  // is used, so that a thread keeps Items gathers of x in flight.
  {
    Index column[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = tid + j * Threads;
      column[j] = i < tile_nz ? __ldg(columns + begin.nz + i) : Index(0);
    }
    V value[Items], xv[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = tid + j * Threads;
      if (i < tile_nz) {
        value[j] = __ldg(values + begin.nz + i);
        xv[j] = __ldg(x + column[j]);
      }
    }
#pragma unroll
    for (int j = 0; j <= Items; ++j) {
      const int i = tid + j * Threads;
      if (i <= tile_rows) {
        // The open row (i == tile_rows) does not close in this tile: its end
        // is a sentinel, so that not even a stale plan's row ends take a
        // thread past it. Below 0: a stale plan.
        const std::int64_t r = begin.row + i;
        const std::int64_t e = i < tile_rows ? static_cast<std::int64_t>(__ldg(offsets + r + 1)) - begin.nz : INT32_MAX;
        smem.s.row_end[i] = e < 0 ? 0 : e < INT32_MAX ? static_cast<int>(e) : INT32_MAX;
      }
    }
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = tid + j * Threads;
      if (i < tile_nz) smem.s.product[i] = value[j] * xv[j];
    }
  }
  __syncthreads();

  // This thread's slice of the tile: merge items [first, last).
  const int items_here = tile_rows + tile_nz;
  const int first = tid * Items < items_here ? tid * Items : items_here;
  const int last = first + Items < items_here ? first + Items : items_here;
  int row = 0;
  {
    int lo = first > tile_nz ? first - tile_nz : 0;
    int hi = first < tile_rows ? first : tile_rows;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (smem.s.row_end[mid] <= first - mid - 1)
        lo = mid + 1;
      else
        hi = mid;
    }
    row = lo;
  }
  int nz = first - row;
  V sum = V(0);
  int first_closed = -1;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    if (first + i >= last) break;
    if (nz < smem.s.row_end[row]) {
      sum += smem.s.product[nz];
      ++nz;
    } else {
      row_sum[row] = sum;
      if (first_closed < 0) first_closed = row;
      sum = V(0);
      ++row;
    }
  }
  __syncthreads();  // products and row ends no longer needed: the scan may take the storage

  // Join partial rows across threads: thread t's open row continues in t+1.
  keyed_sum<V> incl, excl, total;
  join_same_row join;
  scan_t(smem.scan).scan(keyed_sum<V>{row, sum}, join, incl, excl, total);
  if (tid > 0 && first_closed >= 0 && excl.row == first_closed) row_sum[first_closed] += excl.sum;
  if (tid == Threads - 1) carries[blockIdx.x] = {begin.row + total.row, total.sum};
  __syncthreads();

  for (int i = tid; i < tile_rows; i += Threads) {
    const std::int64_t r = begin.row + i;
    y[r] = beta == V(0) ? alpha * row_sum[i] : alpha * row_sum[i] + beta * y[r];
  }
}

// After every tile: each run of tiles whose carries belong to one row adds
// them to that row. A warp takes 32 consecutive tiles: it joins the runs
// that start among them by a segmented sum of their carries (a fixed
// shuffle tree), and the run that goes on past them it follows on, 32
// carries a step (a row can span thousands of tiles). A run that started
// before its tiles is the earlier warp's. Every sum is a fixed sequence of
// operations. A run is contiguous: a row carried on from a tile is closed by
// the next tile that does not carry it, and later tiles carry later rows.
// Carries of row `rows` or past it are none.
template <class V>
__device__ __forceinline__ void add_carry_runs(const merge_carry<V>* carries, std::int64_t tiles, std::int64_t rows,
                                               V alpha, V* y) {
  constexpr unsigned all = 0xffffffffu;
  const std::int64_t base = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32 * 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (base >= tiles) return;  // the whole warp: base is the warp's
  const std::int64_t t = base + lane;
  const std::int64_t row = t < tiles ? carries[t].row : rows;
  V sum = t < tiles ? carries[t].sum : V(0);
  const std::int64_t before = base > 0 ? carries[base - 1].row : -1;  // every lane: `mine` below reads it
  const std::int64_t lane_before = __shfl_up_sync(all, row, 1);  // every lane, outside any condition
  const std::int64_t previous = lane == 0 ? before : lane_before;
  const std::int64_t next = __shfl_down_sync(all, row, 1);
  const unsigned heads = __ballot_sync(all, lane == 0 || row != previous);
  const int head = 31 - __clz(heads & (all >> (31 - lane)));  // the lane where this lane's run starts
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const V up = __shfl_up_sync(all, sum, d);
    if (lane - d >= head) sum = up + sum;
  }
  // The run of lane 0 is an earlier warp's when it goes on from tile base - 1.
  const bool mine = head > 0 || row != before;
  const bool last = t + 1 >= tiles || (lane < 31 && next != row);
  if (last && mine && row < rows) y[row] += alpha * sum;
  // Lane 31's run may go on past the warp's tiles: the warp follows it.
  if (!__shfl_sync(all, !last && mine && row < rows, 31)) return;
  const std::int64_t run_row = __shfl_sync(all, row, 31);
  V acc = __shfl_sync(all, sum, 31);
  for (std::int64_t first = base + 32; first < tiles; first += 32) {
    const std::int64_t u = first + lane;
    const bool in_run = u < tiles && carries[u].row == run_row;
    V part = in_run ? carries[u].sum : V(0);
#pragma unroll
    for (int d = 16; d > 0; d /= 2) part += __shfl_xor_sync(all, part, d);
    acc += part;
    if (__ballot_sync(all, in_run) != all) break;
  }
  if (lane == 0) y[run_row] += alpha * acc;
}

template <class V>
__global__ void merge_path_fixup_kernel(const merge_carry<V>* carries, std::int64_t tiles, std::int64_t rows, V alpha,
                                        V* y) {
  add_carry_runs(carries, tiles, rows, alpha, y);
}

// Rows [begin, end) that a tile of the non-zero split left to the fix-up: a
// piece of at most spmv_split_own_rows tiles' worth of rows.
struct row_range {
  std::int64_t begin, end;
};

// The non-zero split's fix-up: the carries as merge path's, then the pieces
// the tiles listed, a block a piece, a thread a row. They lie inside their
// tile (so none is carried into) and are mostly empty; a non-empty one is
// summed in row order. At most `capacity` pieces were listed (more only
// from unchecked offsets that are not sorted).
template <class V, class Offset, class Index>
__global__ void nonzero_split_fixup_kernel(const merge_carry<V>* carries, std::int64_t tiles, std::int64_t rows,
                                           V alpha, V beta, V* y, const Offset* offsets, const Index* columns,
                                           const V* values, const V* x, const unsigned long long* excess_count,
                                           std::int64_t capacity, const row_range* excess) {
  grid_dependency_wait();  // launched overlapping the tile kernel
  add_carry_runs(carries, tiles, rows, alpha, y);
  const std::int64_t listed = static_cast<std::int64_t>(*excess_count);
  const std::int64_t pieces = listed < capacity ? listed : capacity;
  for (std::int64_t k = blockIdx.x; k < pieces; k += gridDim.x) {
    const row_range range = excess[k];
    // Clamped to [0, rows] as the tiles' rows are (a stale plan's).
    const std::int64_t begin = range.begin > 0 ? range.begin : 0, end = range.end < rows ? range.end : rows;
    for (std::int64_t r = begin + threadIdx.x; r < end; r += blockDim.x) {
      V sum = V(0);
      for (std::int64_t i = offsets[r]; i < static_cast<std::int64_t>(offsets[r + 1]); ++i)
        sum += values[i] * x[columns[i]];
      y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
    }
  }
}

// How a kernel loads (tuning::spmv_loads' flags): the matrix's columns and
// values streaming (evict-first: read once, so L2 should drop them first) or
// through the read-only path; x's gathers by plain loads or read-only ones.
template <int Loads, class T>
__device__ __forceinline__ T spmv_load_matrix(const T* p) {
  if constexpr ((Loads & tuning::spmv_stream_matrix) != 0) return __ldcs(p);
  else return __ldg(p);
}
template <int Loads, class T>
__device__ __forceinline__ T spmv_load_x(const T* p) {
  if constexpr ((Loads & tuning::spmv_plain_x) != 0) return *p;
  else return __ldg(p);
}

// A tile of the split that closes rows [first_row, end_row) writes those
// before own_end itself; the rest (only runs of empty rows make them) it
// leaves to the fix-up in pieces of as many rows as it may write.
template <int Tile>
inline constexpr std::int64_t split_own_rows = std::int64_t{tuning::spmv_split_own_rows} * Tile;
template <int Tile>
__device__ __forceinline__ std::int64_t split_own_end(std::int64_t first_row, std::int64_t end_row) {
  return end_row - first_row > split_own_rows<Tile> ? first_row + split_own_rows<Tile> : end_row;
}
template <int Tile>
__device__ __forceinline__ std::int64_t split_pieces(std::int64_t own_end, std::int64_t end_row) {
  return (end_row - own_end + split_own_rows<Tile> - 1) / split_own_rows<Tile>;
}
// Piece k of those rows, listed at `at` (unless the list is full: only
// unsorted offsets, which are not checked, list more than its capacity).
template <int Tile>
__device__ __forceinline__ void list_piece(std::int64_t own_end, std::int64_t end_row, std::int64_t k,
                                           unsigned long long at, std::int64_t capacity, row_range* excess) {
  constexpr std::int64_t own_rows = split_own_rows<Tile>;
  const std::int64_t b = own_end + k * own_rows;
  if (static_cast<std::int64_t>(at) < capacity) excess[at] = {b, end_row - b > own_rows ? b + own_rows : end_row};
}

// Whether row r's closing position (its last non-zero, or where it would
// start if it is empty; non-decreasing in r) is below p: the row ends
// before p, or at p and is not empty. `end` is offsets[r + 1]; offsets[r]
// is read only in that last case.
template <class Offset>
__device__ __forceinline__ bool closes_before(const Offset* offsets, std::int64_t r, Offset end, std::int64_t p) {
  const std::int64_t e = end;
  return e < p || (e == p && static_cast<std::int64_t>(offsets[r]) < e);
}

// first_rows[t] = the first row tile t closes: the number of rows whose
// closing position is below t x tile (first_rows[tiles] = rows). A thread a
// tile, an 8-way search: each step loads 7 row ends at once, so a search of
// millions of rows waits for some 10 loads in a row, not 22 as a binary
// search would (the searches share their first levels in cache). Searching
// in the tile kernel held every block at its barrier for the search; a warp
// a tile searching 33-way made some 7x the loads.
// It also zeroes the count of listed pieces (the tile kernel runs after it).
template <class Offset>
__global__ void nonzero_split_rows_kernel(const Offset* offsets, std::int64_t rows, std::int64_t tile,
                                          std::int64_t tiles, std::int64_t* first_rows,
                                          unsigned long long* excess_count) {
  constexpr int ways = 8;
  launch_dependents();  // the tile kernel may start its gathers meanwhile
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t == 0) *excess_count = 0;
  if (t > tiles) return;
  std::int64_t lo = t == tiles ? rows : 0, hi = rows;  // the answer lies in [lo, hi]
  const std::int64_t begin = t * tile;
  while (hi - lo >= ways) {
    const std::int64_t step = (hi - lo) / ways;
    Offset ends[ways - 1];
#pragma unroll
    for (int k = 0; k < ways - 1; ++k) ends[k] = offsets[lo + (k + 1) * step + 1];
    int below = 0;  // probes lo + k step (k = 1..7) whose row closes before the tile: a prefix of them
#pragma unroll
    for (int k = 0; k < ways - 1; ++k) below += closes_before(offsets, lo + (k + 1) * step, ends[k], begin);
    const std::int64_t next_lo = below > 0 ? lo + below * step + 1 : lo;
    hi = below < ways - 1 ? lo + (below + 1) * step : hi;
    lo = next_lo;
  }
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (closes_before(offsets, mid, offsets[mid + 1], begin))
      lo = mid + 1;
    else
      hi = mid;
  }
  first_rows[t] = lo;
}

// spmv_prepare's list of the pieces of rows the split's tiles leave to the
// fix-up (what the tile kernel lists as it runs when unprepared), from the
// tiles' first rows alone: a thread a tile. Runs after
// nonzero_split_rows_kernel, which zeroes the count.
template <int Tile>
__global__ void nonzero_split_list_kernel(const std::int64_t* first_rows, std::int64_t tiles,
                                          unsigned long long* excess_count, std::int64_t capacity,
                                          row_range* excess) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= tiles) return;
  const std::int64_t end_row = first_rows[t + 1], own_end = split_own_end<Tile>(first_rows[t], end_row);
  const std::int64_t pieces = split_pieces<Tile>(own_end, end_row);
  if (pieces == 0) return;
  const unsigned long long first = atomicAdd(excess_count, static_cast<unsigned long long>(pieces));
  for (std::int64_t k = 0; k < pieces; ++k) list_piece<Tile>(own_end, end_row, k, first + k, capacity, excess);
}

template <int Threads, int Items, int MinBlocks, int Loads, class V, class Offset, class Index>
__global__ void __launch_bounds__(Threads, MinBlocks)
    nonzero_split_spmv_kernel(const Offset* offsets, const Index* columns, const V* values, const V* x, V* y,
                              std::int64_t rows, std::int64_t nnz, V alpha, V beta, const std::int64_t* first_rows,
                              merge_carry<V>* carries, bool list, unsigned long long* excess_count,
                              std::int64_t capacity, row_range* excess) {
  constexpr int tile = Threads * Items;
  using pair_t = streamscan::detail::seg_pair<V>;
  using scan_t = block_scan<pair_t, Threads, block_scan_algorithm::kogge_stone>;
  // One padding slot every 32, so that a thread's consecutive items fall in
  // different banks.
  constexpr int padded = tile + tile / 32;
  __shared__ V sums[padded];  // the products, then their segmented inclusive scan
  __shared__ unsigned char heads[tile];  // 1 where a row starts (past the tile's first position)
  __shared__ typename scan_t::temp_storage scan_storage;
  const auto slot = [](int p) { return p + p / 32; };

  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * tile;
  const int length = nnz - begin < tile ? static_cast<int>(nnz - begin) : tile;
  launch_dependents();  // the fix-up may be placed meanwhile
  std::int64_t first_row, end_row;

  // Products, loaded coalesced: every load of a thread is issued before the
  // first is used, so that it keeps `Items` gathers of x in flight.
  {
    Index column[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = tid + j * Threads;
      column[j] = i < length ? spmv_load_matrix<Loads>(columns + begin + i) : Index(0);
    }
    V value[Items], xv[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = tid + j * Threads;
      if (i < length) {
        value[j] = spmv_load_matrix<Loads>(values + begin + i);
        xv[j] = spmv_load_x<Loads>(x + column[j]);
      }
    }
    // The tile's rows come from the search kernel, which this one may
    // overlap (launch_overlapped): waited for here, while the gathers fly,
    // and loaded before the products, so that their latency hides behind
    // the gathers'. Everything this kernel writes comes later.
    // Clamped to [0, rows], so that a stale plan (a caller's error:
    // spmv.hpp) gives wrong sums but no access outside the arrays.
    grid_dependency_wait();
    end_row = max(std::int64_t{0}, min(first_rows[blockIdx.x + 1], rows));
    first_row = max(std::int64_t{0}, min(first_rows[blockIdx.x], end_row));
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = tid + j * Threads;
      heads[i] = 0;
      if (i < length) sums[slot(i)] = value[j] * xv[j];
    }
  }
  __syncthreads();
  // The tile writes at most spmv_split_own_rows x tile rows itself (only
  // empty rows make more); the rest, all inside the tile, it lists in pieces
  // of as many rows for the fix-up's blocks.
  // With `list` false the pieces are listed already (spmv_prepare's plan).
  const std::int64_t own_end = split_own_end<tile>(first_row, end_row);
  const std::int64_t pieces = list ? split_pieces<tile>(own_end, end_row) : 0;
  __shared__ unsigned long long first_piece;
  // A row that ends inside the tile starts the next one there; past the rows
  // the tile writes, only the carried row's start matters.
  for (std::int64_t r = first_row + tid; r < own_end; r += Threads) {
    const std::int64_t e = static_cast<std::int64_t>(offsets[r + 1]) - begin;
    if (e > 0 && e < length) heads[e] = 1;
  }
  if (tid == 0 && own_end < end_row) {
    const std::int64_t e = static_cast<std::int64_t>(offsets[end_row]) - begin;
    if (e > 0 && e < length) heads[e] = 1;
    if (pieces > 0) first_piece = atomicAdd(excess_count, static_cast<unsigned long long>(pieces));
  }
  __syncthreads();
  for (std::int64_t k = tid; k < pieces; k += Threads)
    list_piece<tile>(own_end, end_row, k, first_piece + k, capacity, excess);

  // This thread's items, scanned; then the threads joined.
  V scanned[Items];
  pair_t mine{V(0), false};
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int i = tid * Items + j;
    if (i < length) {
      if (heads[i]) mine = {V(0), true};
      mine.value += sums[slot(i)];
    }
    scanned[j] = mine.value;
  }
  pair_t incl, excl, total;
  streamscan::detail::segmented_op<streamscan::plus> join{};
  scan_t(scan_storage).scan(mine, join, incl, excl, total);
  bool open = tid > 0;  // still in the segment the thread before left open
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int i = tid * Items + j;
    if (i < length) {
      if (heads[i]) open = false;
      sums[slot(i)] = open ? excl.value + scanned[j] : scanned[j];
    }
  }
  __syncthreads();

  for (std::int64_t r = first_row + tid; r < own_end; r += Threads) {
    const std::int64_t b = offsets[r], e = offsets[r + 1], at = e - 1 - begin;
    // A row of this tile ends inside it (the test only holds off a stale plan's rows).
    const V sum = e > b && at >= 0 && at < length ? sums[slot(static_cast<int>(at))] : V(0);
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
  // The row after the last closed one carries its part of this tile, if it has one.
  if (tid == 0) {
    const bool carried = end_row < rows && length > 0 && static_cast<std::int64_t>(offsets[end_row]) < begin + length;
    carries[blockIdx.x] = {carried ? end_row : rows, carried ? sums[slot(length - 1)] : V(0)};
  }
}

// One chunk of a long row, in the slot its group claimed: the chunk is
// non-zeros [offsets[row] + index * chunk, ...) of `count` chunks; the
// row's chunk 0 sits `index` slots before this one.
struct long_chunk {
  std::int64_t row;
  std::int32_t index, count;
};

template <int G, int Threads, class V, class Offset, class Index>
__global__ void __launch_bounds__(Threads)
    row_group_spmv_kernel(const Offset* offsets, const Index* columns, const V* values, const V* x, V* y,
                          std::int64_t rows, V alpha, V beta, std::int64_t spill, int chunk,
                          std::int64_t max_slots, unsigned long long* slots_taken, long_chunk* chunks) {
  static_assert(G >= 1 && G <= 32 && 32 % G == 0 && Threads % 32 == 0, "a group is a slice of a warp");
  launch_dependents();  // the long rows' kernels may be placed meanwhile (they wait for this one)
  const std::int64_t row = (blockIdx.x * static_cast<std::int64_t>(Threads) + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  // This group's lanes in the warp; a group leaves as a whole, so the
  // shuffles below see every lane of theirs.
  const unsigned group = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (threadIdx.x % 32 / G * G);
  if (row >= rows) return;
  const std::int64_t begin = offsets[row], end = offsets[row + 1];
  if (end - begin > spill) {
    const std::int64_t count = (end - begin + chunk - 1) / chunk;
    unsigned long long first = 0;
    if (lane == 0) first = atomicAdd(slots_taken, static_cast<unsigned long long>(count));
    first = __shfl_sync(group, first, 0, G);
    // Valid offsets never claim past max_slots (the temp storage's bound);
    // unchecked bad ones may, and then write nothing there.
    for (std::int64_t c = lane; c < count && static_cast<std::int64_t>(first) + c < max_slots; c += G)
      chunks[first + c] = {row, static_cast<std::int32_t>(c), static_cast<std::int32_t>(count)};
    return;
  }
  V sum = V(0);
  for (std::int64_t k = begin + lane; k < end; k += G) sum += values[k] * __ldg(x + columns[k]);
#pragma unroll
  for (int d = G / 2; d > 0; d /= 2) sum += __shfl_xor_sync(group, sum, d);
  if (lane == 0) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

// A block a chunk of a long row (a fixed grid walks the claimed slots).
template <int Threads, class V, class Offset, class Index>
__global__ void __launch_bounds__(Threads)
    long_chunk_spmv_kernel(const Offset* offsets, const Index* columns, const V* values, const V* x, int chunk,
                           std::int64_t max_slots, const unsigned long long* slots_taken, const long_chunk* chunks,
                           V* partials) {
  using reduce_t = block_reduce<V, Threads>;
  __shared__ typename reduce_t::temp_storage storage;
  streamscan::plus op;
  launch_dependents();
  grid_dependency_wait();  // launched overlapping the row groups' kernel, which claims the slots
  const unsigned long long taken = min(*slots_taken, static_cast<unsigned long long>(max_slots));
  for (unsigned long long e = blockIdx.x; e < taken; e += gridDim.x) {
    const long_chunk c = chunks[e];
    const std::int64_t begin = static_cast<std::int64_t>(offsets[c.row]) + static_cast<std::int64_t>(c.index) * chunk;
    const std::int64_t row_end = offsets[c.row + 1];
    const std::int64_t end = begin + chunk < row_end ? begin + chunk : row_end;
    V sum = V(0);
#pragma unroll 4
    for (std::int64_t k = begin + threadIdx.x; k < end; k += Threads) sum += values[k] * __ldg(x + columns[k]);
    sum = reduce_t(storage).reduce(sum, op);
    if (threadIdx.x == 0) partials[e] = sum;
    __syncthreads();  // storage is reused by the next chunk
  }
}

// A thread a long row: its chunk sums in chunk order, then y.
template <class V>
__global__ void long_row_spmv_kernel(std::int64_t max_slots, const unsigned long long* slots_taken,
                                     const long_chunk* chunks, const V* partials, V alpha, V beta, V* y) {
  grid_dependency_wait();  // launched overlapping the chunks' kernel
  const unsigned long long taken = min(*slots_taken, static_cast<unsigned long long>(max_slots));
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long e = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; e < taken;
       e += stride) {
    const long_chunk c = chunks[e];
    if (c.index != 0) continue;
    V sum = partials[e];
    for (std::int32_t i = 1; i < c.count && e + i < taken; ++i) sum += partials[e + i];
    y[c.row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[c.row];
  }
}

// [ScanPrimitives] 4.2 step 1: product = value * x[index], flag = 0.
template <class V, class Index>
__global__ void seed_products_kernel(const Index* columns, const V* values, const V* x, std::int64_t nnz, V* products,
                                     unsigned char* flags) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    products[k] = values[k] * x[columns[k]];
    flags[k] = 0;
  }
}

// Step 2: a head flag at every row start (empty rows share theirs with the next row).
template <class Offset>
__global__ void seed_heads_kernel(const Offset* offsets, std::int64_t rows, std::int64_t nnz, unsigned char* flags) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = offsets[r];
    if (k < nnz) flags[k] = 1;
  }
}

// Step 4 (after the backward segmented sum): each row's sum sits at its first element.
template <class V, class Offset>
__global__ void seed_gather_kernel(const Offset* offsets, std::int64_t rows, const V* sums, V alpha, V beta, V* y) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = offsets[r];
    const V sum = k < static_cast<std::int64_t>(offsets[r + 1]) ? sums[k] : V(0);
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

// Checked mode: the first bad row offset or column index (lowest position),
// as 2 * position + (0: offsets, 1: indices) in *first_bad (INT64_MAX: none).
template <class Offset, class Index>
__global__ void check_csr_kernel(const Offset* offsets, const Index* columns, std::int64_t rows, std::int64_t cols,
                                 std::int64_t nnz, unsigned long long* first_bad) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i <= rows; i += stride) {
    const std::int64_t o = offsets[i];
    const bool bad = (i == 0 && o != 0) || (i > 0 && o < static_cast<std::int64_t>(offsets[i - 1])) ||
                     (i == rows && o != nnz);
    if (bad) atomicMin(first_bad, static_cast<unsigned long long>(2 * i));
  }
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz; k += stride) {
    const std::int64_t c = columns[k];
    if (c < 0 || c >= cols) atomicMin(first_bad, static_cast<unsigned long long>(2 * k + 1));
  }
}

}  // namespace streamscan::cuda::detail

namespace streamscan::cuda::detail {

// coo_to_csr: key = row * cols + col, the sort key of a triplet.
template <class I>
__global__ void coo_keys_kernel(const I* rows_in, const I* cols_in, std::int64_t nnz, std::uint64_t cols,
                                std::uint64_t* keys) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    keys[k] = static_cast<std::uint64_t>(rows_in[k]) * cols + static_cast<std::uint64_t>(cols_in[k]);
}

// Checked mode: record[0] = the first k whose triplet lies outside the matrix
// (record[0] starts at ~0).
template <class I>
__global__ void check_coo_indices_kernel(const I* rows_in, const I* cols_in, std::int64_t nnz, std::int64_t rows,
                                         std::int64_t cols, unsigned long long* record) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (streamscan::detail::coo_index_outside(rows_in[k], cols_in[k], rows, cols))
      atomicMin(record, static_cast<unsigned long long>(k));
}

// One thread: that triplet's row and column, for the message (record[1], record[2]).
template <class I>
__global__ void describe_coo_index_kernel(const I* rows_in, const I* cols_in, unsigned long long* record) {
  const unsigned long long k = record[0];
  if (k == ~0ull) return;
  record[1] = static_cast<unsigned long long>(static_cast<std::int64_t>(rows_in[k]));
  record[2] = static_cast<unsigned long long>(static_cast<std::int64_t>(cols_in[k]));
}

// A head flag where a sorted key differs from its predecessor.
template <int = 0>
__global__ void coo_heads_kernel(const std::uint64_t* keys, std::int64_t nnz, unsigned char* heads) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    heads[k] = k == 0 || keys[k] != keys[k - 1];
}

// From the unique sorted keys: the column indices, and each row's first
// position (a binary search per row; offsets[rows] = the unique count).
template <class O, class I>
__global__ void coo_finish_kernel(const std::uint64_t* unique_keys, const std::int64_t* unique_count,
                                  std::int64_t rows, std::uint64_t cols, O* offsets, I* columns) {
  const std::int64_t count = *unique_count;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (std::int64_t k = first; k < count; k += stride) columns[k] = static_cast<I>(unique_keys[k] % cols);
  for (std::int64_t r = first; r <= rows; r += stride) {
    const std::uint64_t key = static_cast<std::uint64_t>(r) * cols;  // the row's first possible key
    std::int64_t lo = 0, hi = count;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) >> 1;
      if (unique_keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    offsets[r] = static_cast<O>(lo);
  }
}

}  // namespace streamscan::cuda::detail
