// streamscan/cuda/agent/agent_pipeline.cuh - the decoupled look-back as a
// pipeline of specialised warps (sm_90+), shared by the pipelined scans
// (pipelined_scan_kernel.cuh, pipelined_segmented_scan_kernel.cuh) and the
// pipelined compaction (select_kernels.cuh), so that a tile waiting for its
// prefix never stops the loads of the tiles behind it.
//
// A one-tile-per-block kernel loads, reduces, looks back and stores in
// sequence: while a block waits for its prefix it has no loads in flight,
// which caps it well below memcpy's rate whatever its shape. Here a
// persistent block keeps `stages` tiles in shared memory and gives each step
// its own warps, linked by shared-memory barriers (mbarrier), one set per
// stage:
//
//   producer (1 lane)   takes a tile id, has the bulk copy engine stream the
//                       tile into a free stage                  -> full
//   reduce warps        the aggregate of each consumer warp's slice and of
//                       the tile, published at once (tile_prefix_op's
//                       publish_aggregate)                     -> reduced
//   look-back warps     the tile's exclusive prefix; publishes P (resolve: the grouped
//                       walk publishes it for a window's last tile only)
//                                                               -> prefixed
//                       (several, taking turns: each waits ~2 L2 round trips)
//   consumer warps      read their slice from the stage         -> empty
//                       then finish it with the prefix (scan: add and store;
//                       compaction: rank and scatter)
//
// What a tile's values aggregate to and what the consumers do with them is a
// Program's (see agent_pipeline). Every lane of a warp arrives on the barrier
// that hands its stage on (not one lane after __syncwarp): each lane's own
// shared-memory reads and writes are then ordered by its own arrive, which
// compute-sanitizer racecheck follows (it does not follow one lane's arrive
// after a __syncwarp).
//
// Aggregates go out as soon as a tile's data lands, however long the tiles
// before it wait, so look-backs resolve quickly. Ids come from the counter in
// increasing order per block and a tile only waits for smaller ids held by
// running blocks: no deadlock, whatever the grid. Tiles come in through the
// copy engine in whole 16-byte vectors; the partial tile's last few values
// are read from global memory.
//
// The stage ring (barrier_ring), the end of a block's stream (stream_end),
// the producer loop (produce_tiles, start_stage_copy) and the look-back role
// (look_back_tiles) are pieces of their own: the outbox compaction
// (outbox_select_kernel.cuh) runs its own pack and drain roles on them.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../util/bulk_copy.cuh"
#include "../util/maybe.cuh"
#include "../util/shuffle.cuh"
#include "../util/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "tile_io.cuh"
#include "tile_prefix.cuh"
#include "tile_status.cuh"

namespace streamscan::cuda::detail {

// Timeline probes for studying the pipeline: with
// STREAMSCAN_PIPELINE_TRACE defined, each tile records the global timer at
// each step in pipeline_trace[tile * 8 + step].
#ifdef STREAMSCAN_PIPELINE_TRACE
__device__ unsigned long long* pipeline_trace;
__device__ __forceinline__ void trace_step(std::int64_t tile, int step) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  if (pipeline_trace) pipeline_trace[tile * 8 + step] = t;
}
#define STREAMSCAN_TRACE(tile, step) trace_step(tile, step)
#else
#define STREAMSCAN_TRACE(tile, step)
#endif

// Shape of a pipelined kernel whose stages hold values of A, under Policy
// (scan_warps: consumer warps; rows: 16-byte loads per consumer lane; stages; reduce_warps; look_back_warps),
// plus SideBytes per stage for a program's side stream (a multiple of 16).
template <class Policy, class A, unsigned SideBytes = 0>
struct pipelined_shape {
  static constexpr int width = static_cast<int>(16 / sizeof(A));
  static constexpr int scan_warps = Policy::scan_warps;
  static constexpr int rows = Policy::rows;
  static constexpr int stages = Policy::stages;
  static constexpr int slice_items = 32 * rows * width;
  static constexpr int tile_items = scan_warps * slice_items;
  static constexpr int look_back_warps = Policy::look_back_warps;
  static constexpr int look_back_windows = Policy::look_back_windows;  // 32 status words each per round trip
  static constexpr int reduce_warps = Policy::reduce_warps;
  static constexpr unsigned look_back_sleep_ns = Policy::look_back_sleep_ns;
  static constexpr int producer_warp = scan_warps, first_reduce_warp = scan_warps + 1;
  static constexpr int first_look_back_warp = first_reduce_warp + reduce_warps;
  static constexpr int threads = 32 * (scan_warps + 1 + reduce_warps + look_back_warps);
  static constexpr int reducer_vectors = scan_warps * rows;  // per reducer lane
  static_assert(32 % scan_warps == 0 && reducer_vectors % 8 == 0, "reducer lanes split evenly, 8 bank groups");
  // Reduce (look-back) warp j takes the stages s = j mod reduce_warps
  // (look_back_warps), every round of them in order: a barrier phase is never
  // waited for before the one before it has completed.
  static_assert(stages % look_back_warps == 0 && stages % reduce_warps == 0, "stages split evenly among warps");
  static constexpr unsigned tile_bytes = static_cast<unsigned>(sizeof(A)) * tile_items;
  static constexpr unsigned side_bytes = SideBytes;
  static_assert(side_bytes % 16 == 0, "the side stream comes in 16-byte units");
  static constexpr std::size_t dynamic_shared_bytes = std::size_t{stages} * (tile_bytes + side_bytes);
  static_assert(sizeof(A) <= 16 && 16 % sizeof(A) == 0, "16-byte vectors of whole values");
};

// Values [first, first + Width) of a tile at `base` whose positions
// [0, staged) are in the shared-memory stage: one 16-byte read when all are
// (every full tile); else, position by position, the rest from global memory
// up to `valid`, and past it `filler` (the tile's first value, which no
// stored result depends on; read once by the reduce warp, because in place a
// scan warp may already have overwritten it in global memory). Full: a full
// tile's row, known at compile time (no branch).
template <int Width, bool Full = false, class A>
__device__ __forceinline__ void load_row(const A* stage, const A* in, std::int64_t base, int staged, int valid,
                                         const A& filler, int first, A (&v)[Width]) {
  if (Full || first + Width <= staged) {
    vector_of<A, Width> raw;
    const uint4 bits = *reinterpret_cast<const uint4*>(stage + first);
    memcpy(&raw, &bits, 16);
#pragma unroll
    for (int c = 0; c < Width; ++c) v[c] = raw.x[c];
  } else {
#pragma unroll
    for (int c = 0; c < Width; ++c) {
      const int i = first + c;
      v[c] = i < staged ? stage[i] : (i < valid ? in[base + i] : filler);
    }
  }
}


// A tile as the reduce and consumer warps see it. Tile ids run in scan
// order; a mirrored program (backward scans) takes tile t from the t-th
// block of T elements counted from the far end, the first of them partial
// (memory tile tiles - 1 - t, with the partial one last in memory).
struct pipeline_tile {
  std::int64_t tile, base;   // id; index of the first element of its memory tile
  int valid;                 // elements of its memory tile (T but in the partial one)
  bool last;                 // the last in scan order
  unsigned char* side;  // the stage's side stream (programs that have one)
};

// Scan positions [first, first + Width) of tile t, in scan order: load_row
// of the same positions going forward, of the mirrored ones (memory
// [T - first - Width, T - first), reversed) going backward.
template <int Width, int T, bool Mirrored, bool Full = false, class A>
__device__ __forceinline__ void load_scan_row(const A* stage, const A* in, const pipeline_tile& t, int staged,
                                              const A& filler, int first, A (&v)[Width]) {
  if constexpr (!Mirrored) {
    load_row<Width, Full>(stage, in, t.base, staged, t.valid, filler, first, v);
  } else {
    A m[Width];
    load_row<Width, Full>(stage, in, t.base, staged, t.valid, filler, T - first - Width, m);
#pragma unroll
    for (int c = 0; c < Width; ++c) v[c] = m[Width - 1 - c];
  }
}

// ---- Pieces shared by the pipelined kernels (this agent and the outbox
// compaction, outbox_select_kernel.cuh) ----

// A ring of shared-memory barriers, one per slot, each completing once per
// use of its slot: round r uses slot r mod Slots and waits for phase parity
// (r / Slots) mod 2. Rounds may be 32-bit where a chain of dependent steps
// wants short arithmetic.
template <int Slots>
struct barrier_ring {
  std::uint64_t bar[Slots];

  template <class R>
  __device__ __forceinline__ static int slot(R round) {
    return static_cast<int>(round % Slots);
  }
  template <class R>
  __device__ __forceinline__ static unsigned parity(R round) {
    return static_cast<unsigned>(round / Slots) & 1u;
  }
  __device__ __forceinline__ void init(unsigned arrivals) {
    for (int s = 0; s < Slots; ++s) mbarrier_init(&bar[s], arrivals);
  }
  template <class R>
  __device__ __forceinline__ std::uint64_t* at(R round) {
    return &bar[slot(round)];
  }
  template <class R>
  __device__ __forceinline__ void wait(R round) {
    mbarrier_wait(at(round), parity(round));
  }
  template <class R>
  __device__ __forceinline__ void arrive(R round) {
    mbarrier_arrive(at(round));
  }
};

// The first round of a persistent block's stream that never comes, once the
// role that meets the tile id past the end has announced it (until then
// INT64_MAX): roles waiting for a later round stop instead.
struct stream_end {
  std::int64_t round;

  __device__ __forceinline__ void init() { round = INT64_MAX; }
  __device__ __forceinline__ void announce(std::int64_t first_missing) {
    atomicExch(reinterpret_cast<unsigned long long*>(&round), static_cast<unsigned long long>(first_missing));
  }
  // Waits for `ring`'s phase of `r`; false if round r never comes.
  template <int Slots>
  __device__ __forceinline__ bool wait_unless_ended(barrier_ring<Slots>& ring, std::int64_t r) {
    while (!mbarrier_try_wait(ring.at(r), ring.parity(r)))
      if (static_cast<std::int64_t>(atomicAdd(reinterpret_cast<unsigned long long*>(&round), 0ull)) <= r)
        return false;
    return true;
  }
};

// The producer role (one lane): claims tile ids in increasing order, one a
// round, and once stage round mod Stages is free again (`empty` completed
// for the round that last used it) calls start(tile, stage), which records
// the id and starts the tile's copies into the stage (start_stage_copy).
// Returns after the first id past the end. Ids come from the counter in
// increasing order per block and a tile only waits for smaller ids held by
// running blocks: no deadlock, whatever the grid.
template <int Stages, class Start>
__device__ __forceinline__ void produce_tiles(barrier_ring<Stages>& empty, unsigned long long* tile_counter,
                                              std::int64_t tiles, Start start) {
  for (std::int64_t round = 0;; ++round) {
    const int s = barrier_ring<Stages>::slot(round);
    if (round >= Stages) empty.wait(round - Stages);
    const auto tile = static_cast<std::int64_t>(atomicAdd(tile_counter, 1ull));
    start(tile, s);
    if (tile >= tiles) return;
  }
}

// Starts a stage's copies: `bytes` of values into `dst` and `side` bytes of
// a side stream (side_copy(bar)), all completing on `full`; a plain arrive
// when there is nothing to copy (the id past the end, or a tile shorter
// than a vector).
template <class SideCopy>
__device__ __forceinline__ void start_stage_copy(std::uint64_t* full, void* dst, const void* src, unsigned bytes,
                                                 unsigned side, SideCopy side_copy) {
  if (bytes + side > 0) {
    mbarrier_arrive_expect_tx(full, bytes + side);
    if (bytes > 0) bulk_copy_to_shared(dst, src, bytes, full);
    if (side > 0) side_copy(full);
  } else {
    mbarrier_arrive(full);
  }
}

// The look-back role (a whole warp): takes rounds first, first + step, ...;
// once a round's tile is known (`ready`), resolves its exclusive prefix
// through prefix_op (tile_prefix.cuh), which publishes P where due; lane 0
// hands it on with store(round, prefix), then every lane arrives on `done`.
// tile_of(round) and total_of(round) read what the round's earlier role left;
// a round whose tile is past the end is passed on and ends the role.
template <class PrefixOp, int InSlots, int OutSlots, class TileOf, class TotalOf, class Store>
__device__ __forceinline__ void look_back_tiles(const PrefixOp& prefix_op, barrier_ring<InSlots>& ready,
                                                barrier_ring<OutSlots>& done, stream_end& end, std::int64_t first,
                                                int step, std::int64_t tiles, TileOf tile_of, TotalOf total_of,
                                                Store store) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (std::int64_t round = first;; round += step) {
    if (!end.wait_unless_ended(ready, round)) return;
    const std::int64_t tile = tile_of(round);
    if (tile >= tiles) {
      done.arrive(round);
      return;
    }
    if (lane == 0) STREAMSCAN_TRACE(tile, 3);
    const auto prefix = prefix_op.resolve(tile, tile + 1 >= tiles, total_of(round));
    if (lane == 0) store(round, prefix);
    if (lane == 0) STREAMSCAN_TRACE(tile, 4);
    done.arrive(round);
  }
}

// The pipeline agent: constructed and run by every thread of a block of
// Shape::threads, with Shape::dynamic_shared_bytes of dynamic shared memory
// and a temp_storage in static shared memory. Program supplies
//   value, agg                 what the stages hold; what the look-back carries
//   const value* in            the input (tiles of Shape::tile_items)
//   agg combine(agg, agg)      associative, in tile order
//   bool tree_look_back        the look-back folds windows as trees (combine
//                              must be exactly associative), else it takes
//                              the grouped walk (look_back.cuh)
//   maybe<agg> first_prefix()  what goes before tile 0 (absent: nothing)
//   bool mirrored              backward: tiles taken from the far end
//   with Shape::side_bytes > 0, a side stream staged with each tile (e.g.
//   head bits): side_bytes_of(t) (a multiple of 16, at most side_bytes) and
//   side_copy(t, dst, bytes, bar), which starts that many bytes' bulk copy
//   into dst completing on bar, and side_store(t, dst), plain stores into the
//   stage's side area made before that (what no bulk copy can fetch); the
//   reduce and consumer warps find them at t.side, and the tile's reduce
//   warp first calls prepare_side(t, lane) (all 32 lanes; e.g. to rewrite
//   the side stream in place; the consumers read it after the reduce)
//   agg reduce(v, t, first, full)  aggregate of one vector of tile t, scan
//                              positions [first, first + W) (load_scan_row);
//                              `full` (std::bool_constant): t is a full tile;
//                              positions outside t's elements hold a filler
//                              the program must keep out of anything it
//                              stores or counts (after the last element;
//                              mirrored, before the first)
//   rows                       what a consumer lane holds between the two steps
//   load(stage, t, staged, filler, slice, lane, r)   reads the slice from the
//                              stage (only; the stage is freed after it)
//   finish(r, t, slice, lane, before, tile_prefix, tile_total)   with
//                              `before` the aggregate of everything before
//                              the slice (absent for the very first slice)
template <class Shape, class Program>
class agent_pipeline {
  using A = typename Program::value;
  using G = typename Program::agg;
  static constexpr int W = Shape::width, SW = Shape::scan_warps, S = Shape::stages;
  static constexpr int T = Shape::tile_items;
  static constexpr bool M = Program::mirrored;

  // What a stage's tile hands from role to role besides its values.
  struct stage_info {
    std::int64_t tile;
    uninitialized<G> total, prefix;
    bool has_prefix;
    uninitialized<A> filler;            // the tile's first value, for positions past a partial tile's end
    uninitialized<G> slice_before[SW];  // aggregate of slices 0..w-1 (w > 0)
  };
  struct combine_t {
    Program& prog;
    __device__ __forceinline__ G operator()(const G& a, const G& b) const { return prog.combine(a, b); }
  };
  using prefix_op_t = tile_prefix_op<G, combine_t, look_back_kind::decoupled, Program::tree_look_back,
                                     Shape::look_back_windows, Shape::look_back_sleep_ns>;

 public:
  // The stage ring: a stage is full (copied in), reduced (aggregate
  // published), prefixed (prefix known) and empty (consumers done) once per
  // use.
  struct temp_storage {
    stage_info info[S];
    barrier_ring<S> full, reduced, prefixed, empty;
    stream_end end;  // announced by the reduce warp that meets the id past the end
  };

  __device__ __forceinline__ agent_pipeline(temp_storage& storage, Program& prog, std::int64_t n,
                                            const tile_status<G>& status, unsigned long long* tile_counter)
      : s_(storage), prog_(prog), status_(status), n_(n), tiles_((n + T - 1) / T), tile_counter_(tile_counter) {}

  // Every thread of the block: each warp runs its role.
  __device__ __forceinline__ void run() {
    if (threadIdx.x == 0) {
      s_.full.init(1);
      s_.reduced.init(32);
      s_.prefixed.init(32);
      s_.empty.init(32 * SW);
      mbarrier_init_fence();
      s_.end.init();
    }
    __syncthreads();
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (warp == Shape::producer_warp) {
      if (threadIdx.x % 32 == 0) producer();
    } else if (warp >= Shape::first_look_back_warp) {
      look_back(warp - Shape::first_look_back_warp);
    } else if (warp >= Shape::first_reduce_warp) {
      reducer(warp - Shape::first_reduce_warp);
    } else {
      consumer(warp);
    }
  }

 private:
  // The stages' values, then their side streams, in dynamic shared memory.
  __device__ __forceinline__ static unsigned char* stage_bytes() {
    extern __shared__ __align__(128) unsigned char pipeline_stage_bytes[];
    return pipeline_stage_bytes;
  }
  __device__ __forceinline__ static A* stage_values(int s) { return reinterpret_cast<A*>(stage_bytes()) + s * T; }
  __device__ __forceinline__ static unsigned char* side_of_stage(int s) {
    return stage_bytes() + std::size_t{S} * Shape::tile_bytes + s * Shape::side_bytes;
  }
  __device__ __forceinline__ int valid_of(std::int64_t tile) const {
    const std::int64_t left = n_ - tile * T;
    return left < T ? static_cast<int>(left) : T;
  }
  // Positions of a tile that go through the copy engine: whole 16-byte
  // vectors (all of a full tile).
  __device__ __forceinline__ static int staged_of(int valid) { return valid / W * W; }
  __device__ __forceinline__ pipeline_tile tile_of(std::int64_t tile, int s) const {
    const std::int64_t mt = M ? tiles_ - 1 - tile : tile;
    return pipeline_tile{tile, mt * T, valid_of(mt), tile + 1 == tiles_, side_of_stage(s)};
  }

  // Producer (one lane): takes tile ids, has the copy engine stream each
  // tile (and its side stream) into a free stage.
  __device__ __forceinline__ void producer() {
    produce_tiles(s_.empty, tile_counter_, tiles_, [&](std::int64_t tile, int s) {
      s_.info[s].tile = tile;
      if (tile < tiles_) STREAMSCAN_TRACE(tile, 0);
      const pipeline_tile t = tile_of(tile, s);
      const unsigned bytes = tile < tiles_ ? static_cast<unsigned>(sizeof(A)) * staged_of(t.valid) : 0u;
      unsigned side = 0;
      if constexpr (Shape::side_bytes > 0)
        if (tile < tiles_) {
          side = prog_.side_bytes_of(t);
          prog_.side_store(t, side_of_stage(s));  // published by the arrive below
        }
      start_stage_copy(&s_.full.bar[s], stage_values(s), prog_.in + t.base, bytes, side, [&](std::uint64_t* bar) {
        if constexpr (Shape::side_bytes > 0) prog_.side_copy(t, side_of_stage(s), side, bar);
      });
    });
  }

  // Reduce warp j (of reduce_warps) takes rounds j, j + reduce_warps, ...:
  // the aggregate of each consumer warp's slice and of the tile, published
  // at once.
  __device__ __forceinline__ void reducer(int first_round) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    combine_t combine{prog_};
    const prefix_op_t prefix_op{status_, prog_.first_prefix(), combine};
    const A* const in = prog_.in;
    for (std::int64_t round = first_round;; round += Shape::reduce_warps) {
      const int s = barrier_ring<S>::slot(round);
      if (!s_.end.wait_unless_ended(s_.full, round)) return;
      const std::int64_t tile = s_.info[s].tile;
      if (tile >= tiles_ && lane == 0) s_.end.announce(round + 1);
      if (tile < tiles_) {
        if (lane == 0) STREAMSCAN_TRACE(tile, 1);
        const pipeline_tile t = tile_of(tile, s);
        const int valid = t.valid, staged = staged_of(valid);
        const A* stage = stage_values(s);
        const A filler = valid == T ? A{} : (staged > 0 ? stage[0] : in[t.base]);
        if (valid < T && lane == 0) s_.info[s].filler.get() = filler;
        // Lane l folds vectors [l C, (l + 1) C) of the tile, in order,
        // starting at vector rot = l mod 8 and wrapping round to vector 0 in
        // its last 8 steps: the 8 lanes of each shared-memory phase then hit
        // 8 different 16-byte bank groups. The fold is [0, rot) (+) [rot, C).
        // No divergent branch in the first C - 8 steps, so the compiler can
        // overlap the independent work of 8 vectors (a branch per vector made
        // the segmented program's reduce several times slower); full tiles
        // get a loop without bounds checks.
        constexpr int C = Shape::reducer_vectors;
        static_assert(C % 8 == 0 && C >= 16, "whole rounds of 8 vectors");
        const int rot = lane % 8;
        auto fold_chunk = [&](auto full) {
          auto vector_at = [&](int j) {
            const int first = (lane * C + j) * W;
            A v[W];
            load_scan_row<W, T, M, decltype(full)::value>(stage, in, t, staged, filler, first, v);
            return prog_.reduce(v, t, first, full);
          };
          G acc = vector_at(rot);
#pragma unroll 8
          for (int i = 1; i < C - 8; ++i) acc = prog_.combine(acc, vector_at(i + rot));
          G upper = acc;
#pragma unroll
          for (int i = C - 8; i < C; ++i) {
            int j = i + rot;
            const bool restart = j == C;
            if (j >= C) j -= C;
            const G x = vector_at(j);
            upper = restart ? acc : upper;
            acc = restart ? x : prog_.combine(acc, x);
          }
          return rot > 0 ? prog_.combine(acc, upper) : acc;
        };
        if constexpr (Shape::side_bytes > 0) prog_.prepare_side(t, lane);
        const G chunk = valid == T ? fold_chunk(std::true_type{}) : fold_chunk(std::false_type{});
        // Slice w is lanes [w L, (w + 1) L), L = 32 / scan_warps.
        constexpr int L = 32 / SW;
        auto op = [&](const G& a, const G& b) { return prog_.combine(a, b); };
        const G incl = warp_scan::inclusive(chunk, op, lane, 32);
        if (lane % L == L - 1 && lane < 31) s_.info[s].slice_before[lane / L + 1].get() = incl;
        if (lane == 31) {
          s_.info[s].total.get() = incl;
          prefix_op.publish_aggregate(tile, tile + 1 >= tiles_, incl);
          STREAMSCAN_TRACE(tile, 2);
        }
      }
      s_.reduced.arrive(round);
      if (tile >= tiles_) return;
    }
  }

  // Look-back warp j (of look_back_warps) takes rounds j, j +
  // look_back_warps, ...: the tile's exclusive prefix (and P where due).
  __device__ __forceinline__ void look_back(int first_round) {
    combine_t combine{prog_};
    const prefix_op_t prefix_op{status_, prog_.first_prefix(), combine};
    look_back_tiles(
        prefix_op, s_.reduced, s_.prefixed, s_.end, first_round, Shape::look_back_warps, tiles_,
        [&](std::int64_t round) { return s_.info[barrier_ring<S>::slot(round)].tile; },
        [&](std::int64_t round) -> const G& { return s_.info[barrier_ring<S>::slot(round)].total.get(); },
        [&](std::int64_t round, const maybe<G>& prefix) {
          stage_info& info = s_.info[barrier_ring<S>::slot(round)];
          info.prefix.get() = prefix.value;
          info.has_prefix = prefix.present;
        });
  }

  // Consumer warp w owns slice w of every tile: reads it from the stage,
  // frees the stage, and finishes it with the prefix.
  __device__ __forceinline__ void consumer(int warp) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    for (std::int64_t round = 0;; ++round) {
      const int s = barrier_ring<S>::slot(round);
      s_.prefixed.wait(round);
      const std::int64_t tile = s_.info[s].tile;
      if (tile >= tiles_) return;
      if (threadIdx.x == 0) STREAMSCAN_TRACE(tile, 5);
      const pipeline_tile t = tile_of(tile, s);
      const int valid = t.valid;
      const int slice = warp * Shape::slice_items;
      const A filler = valid == T ? A{} : s_.info[s].filler.get();
      typename Program::rows r;
      prog_.load(stage_values(s), t, staged_of(valid), filler, slice, lane, r);
      const maybe<G> tile_prefix{s_.info[s].prefix.get(), s_.info[s].has_prefix};
      maybe<G> before = tile_prefix;
      if (warp > 0) {
        const G b = s_.info[s].slice_before[warp].get();
        before = {before.present ? prog_.combine(before.value, b) : b, true};
      }
      const G tile_total = s_.info[s].total.get();
      s_.empty.arrive(round);  // this lane has read the stage and its info
      prog_.finish(r, t, slice, lane, before, tile_prefix, tile_total);
      if (threadIdx.x == 0) STREAMSCAN_TRACE(tile, 6);
#ifdef STREAMSCAN_PIPELINE_TRACE
      if (threadIdx.x == 0 && pipeline_trace) pipeline_trace[tile * 8 + 7] = blockIdx.x;
#endif
    }
  }

  temp_storage& s_;
  Program& prog_;
  const tile_status<G>& status_;
  std::int64_t n_, tiles_;
  unsigned long long* tile_counter_;
};

}  // namespace streamscan::cuda::detail
