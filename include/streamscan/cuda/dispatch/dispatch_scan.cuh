// streamscan/cuda/dispatch/dispatch_scan.cuh - validates, sizes temp storage,
// picks the strategy and launches the kernels of a device-wide scan.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

#include "../../detail/validate.hpp"
#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../agent/tile_id.cuh"
#include "../agent/vector_input.cuh"
#include "../kernels/scan_kernels.cuh"
#include "../kernels/pipelined_scan_kernel.cuh"
#include "../kernels/single_pass_scan_kernel.cuh"
#include "../util/grid_dependency.cuh"
#include "../util/runtime.cuh"
#include "../../tuning/scan.hpp"
#include "tuned_policy.cuh"

namespace streamscan::cuda::detail {

// How the input is cut into partitions (one block each) for the multi-pass strategies.
struct partition_plan {
  std::int64_t partitions = 0;
  std::int64_t tiles_per_partition = 0;

  static partition_plan make(std::int64_t n, std::int64_t tile_items, int sm_count, int partitions_per_sm) {
    partition_plan plan;
    if (n == 0) return plan;
    const std::int64_t tiles = (n + tile_items - 1) / tile_items;
    const std::int64_t most = static_cast<std::int64_t>(sm_count > 0 ? sm_count : 1) * partitions_per_sm;
    const std::int64_t wanted = tiles < most ? tiles : most;
    plan.tiles_per_partition = (tiles + wanted - 1) / wanted;
    plan.partitions = (tiles + plan.tiles_per_partition - 1) / plan.tiles_per_partition;
    return plan;
  }
};

// The steps every dispatcher takes once it knows how much temp storage the
// call needs: answer a size query, or check the temp buffer and the pointers.
// The query adds 255 bytes so that any temp pointer can be aligned up to 256
// (`aligned_temp`). Sets `proceed` when there is work to launch.
template <class InIt, class OutIt>
status check_temp_and_pointers(const char* fn, void* temp, std::size_t& temp_bytes, std::size_t required,
                               const InIt& in, const OutIt& out, std::int64_t n, const device_facts& facts,
                               void*& aligned_temp, bool& proceed) {
  proceed = false;
  required += 255;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(temp);
  aligned_temp = reinterpret_cast<void*>((address + 255) / 256 * 256);
  if (n == 0) return status::ok();
  if (status s = check_device_accessible(fn, "in", in, facts); !s) return s;
  if (status s = check_device_accessible(fn, "out", out, facts); !s) return s;
  if (status s = check_device_accessible(fn, "temp", temp, facts); !s) return s;
  proceed = true;
  return status::ok();
}

// Whether the kernels that stage raw values (the pipelined scan, the chained
// 3D scan) can take these iterators: raw pointers of the accumulator type
// whose size divides 16 bytes (the pointers' alignment is checked at run time).
template <class A, class InIt, class OutIt>
constexpr bool raw_vector_fits() {
  if constexpr (std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>) {
    return std::is_same_v<std::remove_cv_t<std::remove_pointer_t<InIt>>, A> &&
           std::is_same_v<std::remove_pointer_t<OutIt>, A> && tuning::vector_scan_policy_for<A>::applies;
  } else {
    return false;
  }
}

// Whether the vectorised one-tile kernel can take them: a raw output pointer
// of A as above, and an input vector_input reads as values of A (a raw
// pointer of any type, a transform or counting iterator).
template <class A, class InIt, class OutIt>
constexpr bool vector_kernel_fits() {
  if constexpr (std::is_pointer_v<OutIt>) {
    return std::is_same_v<std::remove_pointer_t<OutIt>, A> && tuning::vector_scan_policy_for<A>::applies &&
           vector_input_fits<InIt, A, tuning::vector_scan_policy_for<A>::vector_width>();
  } else {
    return false;
  }
}

// Whether iterators that fit the vectorised kernels are aligned for them.
template <class A, int Width, class InIt>
bool vector_aligned(const InIt& in, const A* out) {
  return vector_input<InIt, Width>::aligned(in) && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
}

// Zeroes a single-pass kernel's tile counter and status words, in stream order.
inline status reset_tile_status(const char* fn, void* bytes, std::size_t size, cudaStream_t stream) {
  if (const cudaError_t e = cudaMemsetAsync(bytes, 0, size, stream); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, "resetting the tile status words (cudaMemsetAsync)", e);
  }
  return status::ok();
}

// Zeroes what a single-pass kernel over `tiles` tiles of A reads before it
// is written: the tile counter and those tiles' status flags, not the whole
// temp storage (sized for the smallest shape), since a memset's time grows
// with its bytes. Two short memsets (the counter, then the words) where the
// counter's slot alone makes one memset long (tuning::short_memset_bytes).
// `words`: the bytes of status words to zero after the counter's slot.
inline status reset_tile_words(const char* fn, unsigned char* bytes, std::size_t words, cudaStream_t stream) {
  if (tile_counter_bytes + words > tuning::short_memset_bytes && words <= tuning::short_memset_bytes) {
    if (status s = reset_tile_status(fn, bytes, sizeof(unsigned long long), stream); !s) return s;
    return reset_tile_status(fn, bytes + tile_counter_bytes, words, stream);
  }
  return reset_tile_status(fn, bytes, tile_counter_bytes + words, stream);
}
template <class A>
status reset_tiles(const char* fn, unsigned char* bytes, std::int64_t tiles, cudaStream_t stream) {
  return reset_tile_words(fn, bytes, tile_status<A>::reset_bytes(tiles), stream);
}

// Zeroes a single-pass kernel's tile counter and the `count` 8-byte words of
// status after its slot, and lets the kernel after it begin at once (that
// one waits for this one before it takes a tile id).
template <class Word>
__global__ void zero_tile_status_kernel(Word* counter, Word* words, std::int64_t count) {
  launch_dependents();
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    words[i] = 0;
}

// The reset before a look-back kernel over `tiles` tiles that waits
// (grid_dependency_wait) before it takes its first tile id: the vectorised
// and the pipelined one. Where the status words alone would make the memset
// a long one and the GPU overlaps launches, a zeroing kernel instead, which
// `kernel` then overlaps (`overlap`): its blocks are placed while the words
// are zeroed. Elsewhere reset_tiles' memsets.
template <class A, class Kernel>
status reset_tiles_for(const char* fn, unsigned char* bytes, std::int64_t tiles, cudaStream_t stream,
                       const device_facts& facts, Kernel kernel, bool& overlap) {
  overlap = false;
  const std::size_t words = tile_status<A>::reset_bytes(tiles);  // whole 8-byte words, every layout
  if (words > tuning::short_memset_bytes) {
    if (status s = dependent_launch_allowed(fn, facts, kernel, overlap); !s) return s;
    if (overlap) {
      using word_t = unsigned long long;
      const std::int64_t count = static_cast<std::int64_t>(words / sizeof(word_t));
      const std::int64_t grid = std::min<std::int64_t>((count + 255) / 256, facts.sm_count);
      return launch(fn, "zero_tile_status_kernel", zero_tile_status_kernel<word_t>, grid, 256, stream,
                    reinterpret_cast<word_t*>(bytes), reinterpret_cast<word_t*>(bytes + tile_counter_bytes), count);
    }
  }
  return reset_tiles<A>(fn, bytes, tiles, stream);
}

// The vectorised decoupled look-back kernel at vector shape `Shape`: an
// aligned input In (a raw pointer, or what vector_input reads), a raw output
// pointer of A, temp storage at `bytes` (reset here). Backward scans (the segmented
// scans' no_segments) lead with filler slots, so that every full tile is
// aligned (next_tile).
template <bool Backward, int Shape, class A, class In, class Op>
status launch_vector_scan(const char* fn, unsigned char* bytes, In in, A* out, std::int64_t n, Op op, maybe<A> init,
                          scan_mode mode, cudaStream_t stream, const device_facts& facts) {
  using vector_policy = tuning::vector_scan_policy_for<A, Shape>;
  const std::int64_t tiles = (n + vector_policy::tile_items - 1) / vector_policy::tile_items;
  const std::int64_t lead = Backward ? tiles * vector_policy::tile_items - n : 0;
  using io_t = vector_tile_io<A, vector_policy::vector_width, Backward, In>;
  const auto kernel = single_pass_vector_scan_kernel<vector_policy, look_back_kind::decoupled, io_t, Op>;
  bool overlap = false;
  if (status s = reset_tiles_for<A>(fn, bytes, tiles, stream, facts, kernel, overlap); !s) return s;
  return launch_overlapped(fn,
                           Backward ? "single_pass_vector_scan_kernel<decoupled, backward>"
                                    : "single_pass_vector_scan_kernel<decoupled>",
                           overlap, kernel, tiles, vector_policy::threads, stream, io_t{in, out, n}, n, lead,
                           tile_status<A>(bytes + tile_counter_bytes, tiles),
                           reinterpret_cast<unsigned long long*>(bytes), init, mode, op);
}

// The pipelined look-back kernel (sm_90+) at vector shape `Shape`, forward,
// temp storage at `bytes` (reset here); one persistent block per SM slot it fits.
// Where the GPU cannot run it (no copy engine, not enough shared memory), the
// default vector shape runs instead.
// Blocks of a pipelined kernel (pipeline.cuh) that fit on one SM with
// `dynamic` bytes of stages; 0 where the GPU cannot run it (before sm_90, or
// too little shared memory), and the caller runs another kernel.
template <class Kernel>
status pipelined_blocks_per_sm(const char* fn, const char* what, Kernel kernel, int threads, std::size_t dynamic,
                               const device_facts& facts, int& per_sm) {
  per_sm = 0;
  if (facts.cc_major < 9) return status::ok();
  cudaFuncAttributes attributes{};  // its static shared memory (barriers, records) comes on top of `dynamic`
  cudaError_t e = cudaFuncGetAttributes(&attributes, kernel);
  if (e == cudaSuccess && static_cast<std::size_t>(facts.max_shared_per_block) < dynamic + attributes.sharedSizeBytes)
    return status::ok();
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic));
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, what, e);
  }
  return status::ok();
}

template <int Shape, class A, class Op>
status launch_pipelined_scan(const char* fn, unsigned char* bytes, const A* in, A* out, std::int64_t n, Op op,
                             maybe<A> init, scan_mode mode, cudaStream_t stream, const device_facts& facts) {
  using policy = tuning::vector_scan_policy_for<A, Shape>;
  using shape = pipelined_shape<policy, A>;
  const auto kernel = pipelined_scan_kernel<policy, A, Op>;
  constexpr std::size_t dynamic = shape::dynamic_shared_bytes;
  int per_sm = 0;
  if (status s = pipelined_blocks_per_sm(fn, "preparing pipelined_scan_kernel (shared memory, occupancy)", kernel,
                                         shape::threads, dynamic, facts, per_sm);
      !s)
    return s;
  if (per_sm == 0)
    return launch_vector_scan<false, tuning::default_vector_shape(sizeof(A))>(fn, bytes, in, out, n, op, init, mode,
                                                                              stream, facts);
  const std::int64_t tiles = (n + shape::tile_items - 1) / shape::tile_items;
  const std::int64_t grid = std::min<std::int64_t>(tiles, std::int64_t{facts.sm_count} * per_sm);
  bool overlap = false;
  if (status s = reset_tiles_for<A>(fn, bytes, tiles, stream, facts, kernel, overlap); !s) return s;
  return launch_overlapped_with_shared(fn, "pipelined_scan_kernel", overlap, kernel, grid, shape::threads, dynamic,
                                       stream, in, out, n, tile_status<A>(bytes + tile_counter_bytes, tiles),
                                       reinterpret_cast<unsigned long long*>(bytes), init, mode, op);
}

// The kernel of a 3D-scan policy: one tile a link, or one cluster a link.
template <class Policy, class IO, class A, class Op>
constexpr auto chained_stream_kernel() {
  if constexpr (Policy::cluster > 0)
    return stream_cluster_scan_kernel<Policy, IO, A, Op>;
  else
    return stream_scan_kernel<Policy, IO, A, Op>;
}

// The chained scan on StreamScan's 3D intra-block scan, chained_shapes[Shape],
// on raw pointers of A (16-byte accesses). Temp storage at `bytes` (reset here).
// A clustered shape makes each cluster of blocks one link of the chain. False
// in `ran` where the pointers are not 16-byte aligned, the GPU's blocks
// cannot have the shape's shared memory, or (clustered) the GPU has no
// clusters or cannot hold one of that size; the caller then runs another
// shape.
template <int Shape, class A, class Op>
status launch_stream_scan(const char* fn, unsigned char* bytes, const A* in, A* out, std::int64_t n, Op op,
                          maybe<A> init, scan_mode mode, cudaStream_t stream, const device_facts& facts, bool& ran) {
  ran = false;
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0 || reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
    return status::ok();
  using policy = tuning::stream_scan_policy_for<A, Shape>;
  using io_t = vector_tile_io<A, static_cast<int>(16 / sizeof(A))>;
  using agent_t = agent_stream_scan<policy, io_t, A, Op>;
  constexpr bool clustered = policy::cluster > 0;
  const auto kernel = chained_stream_kernel<policy, io_t, A, Op>();
  const char* name = clustered ? "stream_cluster_scan_kernel<chained>" : "stream_scan_kernel<chained>";
  constexpr std::size_t dynamic = agent_t::shared_bytes;
  // The kernel's attributes (its shared memory; a cluster past the portable
  // size), set at every call: a kernel template instantiated in several
  // translation units has one registration per unit, and an attribute set
  // through one of them was seen not to reach launches through another.
  auto set_attributes = [&]() -> status {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic));
    if (e == cudaSuccess && policy::cluster > tuning::portable_cluster_blocks)
      e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return cuda_call(fn, "preparing the chained scan's kernel (shared memory, cluster size)", e);
  };
  // Once per device: whether the kernel can run here (blocks with its shared
  // memory; clustered: sm_90 code and room for one cluster).
  static std::atomic<int> prepared[max_cached_devices];
  bool runs = false;
  if (status s = once_per_device(prepared, facts.device, runs, [&](bool& ok) {
        ok = false;
        if (static_cast<std::size_t>(facts.max_shared_per_block) < dynamic + sizeof(typename agent_t::temp_storage) + 1024)
          return status::ok();
        if (clustered) {
          if (facts.cc_major < 9) return status::ok();
          bool sm90 = false;
          if (status st = compiled_for_sm90(fn, kernel, sm90); !st || !sm90) return st;
        }
        if (status st = set_attributes(); !st) return st;
        if constexpr (clustered) return cluster_fits(fn, kernel, policy::threads, policy::cluster, dynamic, ok);
        ok = true;
        return status::ok();
      });
      !s || !runs)
    return s;
  if (status s = set_attributes(); !s) return s;
  const std::int64_t tiles = (n + policy::tile_items - 1) / policy::tile_items;
  const tile_status<A> links(bytes + tile_counter_bytes, tiles);  // one word a tile, or a cluster
  auto* counter = reinterpret_cast<unsigned long long*>(bytes);
  if (status s = reset_tiles<A>(fn, bytes, tiles, stream); !s) return s;
  ran = true;
  if constexpr (clustered) {
    const std::int64_t grid = (tiles + policy::cluster - 1) / policy::cluster * policy::cluster;
    return launch_clusters(fn, name, kernel, grid, policy::threads, policy::cluster, dynamic, stream, io_t{in, out, n},
                           n, links, counter, init, mode, op);
  } else {
    return launch_with_shared(fn, name, kernel, tiles, policy::threads, dynamic, stream, io_t{in, out, n}, n, links,
                              counter, init, mode, op);
  }
}

// Single-pass strategies: temp storage is a tile counter and the tile status
// words, both reset in stream order by the launcher of the shape that runs
// (memsets, or the zeroing kernel: reset_tiles_for); then one kernel. The chained
// scan runs [StreamScan]'s intra-block scans: StreamScan's 3D one
// (agent_stream_scan, the default) or the 2D matrix scan (agent_scan); the
// decoupled look-back runs the vectorised agent where the pointers allow.
template <bool Chained, class A, class InIt, class OutIt, class Op>
status dispatch_single_pass_scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                                 std::int64_t n, Op op, maybe<A> init, scan_mode mode, cudaStream_t stream,
                                 const device_facts& facts, const chosen_policy& chosen) {
  constexpr bool vector_fits = !Chained && vector_kernel_fits<A, InIt, OutIt>();
  constexpr std::size_t counter_bytes = tile_counter_bytes;
  // Temp storage is sized before the pointers and the policy are known: for
  // the smallest tile of any candidate.
  constexpr std::int64_t sizing_tile = tuning::smallest_single_pass_tile<A>();
  const std::size_t status_bytes = tile_status<A>::bytes((n + sizing_tile - 1) / sizing_tile);
  bool proceed = false;
  void* aligned = nullptr;
  if (status s = check_temp_and_pointers(fn, temp, temp_bytes, counter_bytes + status_bytes, in, out, n, facts,
                                         aligned, proceed);
      !s || !proceed)
    return s;
  unsigned char* bytes = static_cast<unsigned char*>(aligned);
  constexpr look_back_kind kind = Chained ? look_back_kind::chained : look_back_kind::decoupled;
  auto* counter = reinterpret_cast<unsigned long long*>(bytes);
  if constexpr (vector_fits) {
    if (vector_aligned<A, tuning::vector_scan_policy_for<A>::vector_width>(in, out)) {
      const auto input = read_only_input(in);
      auto run = [&](auto shape) {
        constexpr int index = decltype(shape)::value;
        if constexpr (tuning::vector_scan_policy_for<A, index>::stages == 0)
          return launch_vector_scan<false, index>(fn, bytes, input, out, n, op, init, mode, stream, facts);
        else
          return launch_pipelined_scan<index>(fn, bytes, input, out, n, op, init, mode, stream, facts);
      };
      // The candidates are shapes for raw pointers of A (the pipelined one
      // stages raw values): other inputs run the default one-tile shape,
      // which also keeps their instantiations to one kernel.
      if constexpr (!tuning::vector_scan_policy_for<A>::tunable)
        return run(std::integral_constant<int, 0>{});
      else if constexpr (raw_vector_fits<A, InIt, OutIt>())
        return visit_candidate<tuning::decoupled_shape_count>(chosen.index, run);
      else
        return run(std::integral_constant<int, tuning::default_vector_shape(sizeof(A))>{});
    }
  }
  // The matrix-scan kernel: chained's candidates; the decoupled look-back on
  // iterators keeps its default shape (its candidates are the vector shapes).
  auto run = [&](auto shape) {
    using policy = tuning::single_pass_policy_for<A, Chained, decltype(shape)::value>;
    const std::int64_t tiles = (n + policy::tile_items - 1) / policy::tile_items;
    if (status s = reset_tiles<A>(fn, bytes, tiles, stream); !s) return s;
    return launch(fn, Chained ? "single_pass_scan_kernel<chained>" : "single_pass_scan_kernel<decoupled>",
                  single_pass_scan_kernel<policy, kind, A, InIt, OutIt, Op>, tiles, policy::threads, stream, in,
                  out, n, tile_status<A>(bytes + counter_bytes, tiles), counter, init, mode, op);
  };
  if constexpr (Chained) {
    return visit_candidate<tuning::chained_shape_count>(chosen.index, [&](auto shape) {
      constexpr int index = decltype(shape)::value;
      if constexpr (index < tuning::matrix_shape_count) {
        return run(shape);
      } else {
        if constexpr (raw_vector_fits<A, InIt, OutIt>()) {
          bool ran = false;
          status s = launch_stream_scan<index>(fn, bytes, static_cast<const A*>(in), out, n, op, init, mode,
                                               stream, facts, ran);
          if (!s || ran) return s;
          // A clustered shape the GPU cannot run: the one-tile-a-link chain.
          if constexpr (tuning::chained_shapes[index].cluster > 0) {
            s = launch_stream_scan<tuning::default_chained_shape>(fn, bytes, static_cast<const A*>(in), out, n, op,
                                                                  init, mode, stream, facts, ran);
            if (!s || ran) return s;
          }
        }
        return run(std::integral_constant<int, tuning::default_matrix_shape(true)>{});
      }
    });
  } else
    return run(std::integral_constant<int, tuning::default_matrix_shape(false)>{});
}

// The strategy (`automatic` resolved) and the candidate policy a scan of n
// values of A with op and options runs with on `device`. automatic is the
// decoupled look-back: the fastest of ours for every type and size measured,
// and deterministic as well.
template <class A, class Op>
status plan_scan(const char* fn, std::int64_t n, scan_options opt, const device_facts& facts,
                 scan_strategy& strategy, chosen_policy& chosen) {
  strategy = opt.strategy == scan_strategy::automatic ? scan_strategy::decoupled_lookback : opt.strategy;
  const char* op_class = streamscan::tuning::op_class<A, Op>();
  return choose_policy(fn, "options.policy", tuning::algorithm_of(strategy), sizeof(A), op_class, n, opt.policy,
                       facts.device, chosen);
}

template <class A, class InIt, class OutIt, class Op>
status dispatch_scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
                     std::int64_t n, Op op, maybe<A> init, scan_mode mode, cudaStream_t stream,
                     scan_options opt) {
  static_assert(std::is_trivially_copyable_v<A>, "streamscan: the accumulator type must be trivially copyable");
  static_assert(std::is_default_constructible_v<A>, "streamscan: the accumulator type must be default constructible");
  using policy = tuning::scan_policy_for<A>;

  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  switch (opt.strategy) {
    case scan_strategy::automatic:
    case scan_strategy::reduce_then_scan:
    case scan_strategy::scan_then_add:
    case scan_strategy::chained:
    case scan_strategy::decoupled_lookback: break;
    default:
      return streamscan::detail::invalid_argument(fn, "argument 'options.strategy' is not a strategy this build knows");
  }

  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  scan_strategy strategy = opt.strategy;
  chosen_policy chosen;
  if (status s = plan_scan<A, Op>(fn, n, opt, facts, strategy, chosen); !s) return s;
  if (strategy == scan_strategy::chained)
    return dispatch_single_pass_scan<true, A>(fn, temp, temp_bytes, in, out, n, op, init, mode, stream, facts, chosen);
  if (strategy == scan_strategy::decoupled_lookback)
    return dispatch_single_pass_scan<false, A>(fn, temp, temp_bytes, in, out, n, op, init, mode, stream, facts,
                                               chosen);

  // Temp storage holds one total per partition, sized for the most partitions
  // any candidate makes, so that it fits whichever runs.
  int most_per_sm = 0;
  for (const tuning::shape& c : tuning::multi_pass_shapes)
    most_per_sm = c.partitions_per_sm > most_per_sm ? c.partitions_per_sm : most_per_sm;
  const partition_plan sizing = partition_plan::make(n, policy::tile_items, facts.sm_count, most_per_sm);
  const partition_plan plan = partition_plan::make(n, policy::tile_items, facts.sm_count,
                                                   tuning::multi_pass_shapes[chosen.index].partitions_per_sm);
  bool proceed = false;
  void* aligned = nullptr;
  if (status s = check_temp_and_pointers(fn, temp, temp_bytes, streamscan::detail::temp_bytes_for<A>(sizing.partitions),
                                         in, out, n, facts, aligned, proceed);
      !s || !proceed)
    return s;

  A* partials = static_cast<A*>(aligned);
  const auto scan_partitions = scan_partitions_kernel<policy, A, InIt, OutIt, Op>;
  const auto scan_partials = scan_partials_kernel<policy, A, Op>;
  const int threads = policy::threads;
  const std::int64_t tpp = plan.tiles_per_partition;

  if (plan.partitions == 1)  // one block does it all: no partials
    return launch(fn, "scan_partitions_kernel", scan_partitions, 1, threads, stream, in, out, n, tpp,
                  static_cast<const A*>(nullptr), init, static_cast<A*>(nullptr), mode, op);

  if (strategy == scan_strategy::scan_then_add) {
    // Fig. 1: scan each partition alone (writing its total), scan the totals,
    // then add each partition's prefix to its outputs: ~4n traffic. The last
    // pass reads the output back, so it needs a readable output iterator.
    if constexpr (std::is_void_v<typename std::iterator_traits<OutIt>::value_type>) {
      return streamscan::detail::invalid_argument(
          fn, "strategy scan_then_add reads the output back, but argument 'out' is write-only");
    } else {
      status s = launch(fn, "scan_partitions_kernel", scan_partitions, plan.partitions, threads, stream, in,
                        out, n, tpp, static_cast<const A*>(nullptr), maybe<A>{A{}, false}, partials, mode, op);
      if (s) s = launch(fn, "scan_partials_kernel", scan_partials, 1, threads, stream, partials,
                        static_cast<int>(plan.partitions), init, op);
      if (s) s = launch(fn, "add_prefixes_kernel", add_prefixes_kernel<policy, A, OutIt, Op>, plan.partitions,
                        threads, stream, out, n, tpp, static_cast<const A*>(partials), init.present, mode, op);
      return s;
    }
  }
  // Fig. 2: reduce each partition, scan the totals, then scan each partition
  // from its prefix: ~3n traffic.
  status s = launch(fn, "reduce_partitions_kernel", reduce_partitions_kernel<policy, A, InIt, Op>,
                    plan.partitions, threads, stream, in, n, tpp, partials, op);
  if (s) s = launch(fn, "scan_partials_kernel", scan_partials, 1, threads, stream, partials,
                    static_cast<int>(plan.partitions), init, op);
  if (s) s = launch(fn, "scan_partitions_kernel", scan_partitions, plan.partitions, threads, stream, in, out,
                    n, tpp, static_cast<const A*>(partials), init, static_cast<A*>(nullptr), mode, op);
  return s;
}

}  // namespace streamscan::cuda::detail
