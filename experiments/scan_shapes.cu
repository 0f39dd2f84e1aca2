// scan_shapes: the vectorised one-tile look-back kernel at other settings
// than the library's, against CUB's InclusiveSum, at the middle sizes where
// CUB is close (8-byte values 2^20-2^23, 4-byte ones 2^20-2^24). A policy
// names its shape (threads x 16-byte loads a thread) and what differs from
// the library's kernel: /b blocks a multiprocessor must hold
// (__launch_bounds__' second argument), ~ns the look-back's backoff cap, wN
// N windows of 32 predecessors read a round trip (the library's one-tile
// kernel reads 1), T the tree walk (exact operators only), I tile ids by
// block index instead of the counter (CUB's way: it assumes blocks start in
// index order, so it is a bound, not a kernel the library can run). Each runs
// as the library runs its own (the same reset, the same overlapped launch).
// Inputs and outputs rotate over >= 512 MiB; every output is checked against
// CUB's; median us of 100 and CUB's time / the policy's, in `rounds` rounds.
// First the host time of a call (host_overhead). The shapes, walks and
// launch orders measured so far, and what they gave, are in docs/history.md.
//   build/experiments/scan_shapes [rounds]   (default 2; 0: the host times only)
#include <cub/device/device_scan.cuh>
#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>

#include "../tools/cuda_timing.cuh"
#include "scan_experiment.cuh"

namespace {

namespace sd = streamscan::cuda::detail;
namespace st = streamscan::tuning;
const auto check = streamscan_tool::cuda_check;
using scan_experiment::fill;
using scan_experiment::ok;

template <class T, int Threads, int Vectors, int MinBlocks = 1, unsigned SleepNs = st::look_back_tuning::look_back_sleep_ns,
          int Windows = 1, bool Trees = false, bool ByIndex = false, bool Prefetch = false>
struct policy : st::look_back_tuning {
  static constexpr int threads = Threads;
  static constexpr int vectors = Vectors;
  static constexpr int min_blocks = MinBlocks;
  static constexpr unsigned look_back_sleep_ns = SleepNs;
  static constexpr int one_tile_windows = Windows;
  static constexpr bool one_tile_trees = Trees;
  static constexpr bool tiles_by_block_index = ByIndex;
  static constexpr bool prefetch_own_tile = Prefetch;
  static constexpr int vector_width = static_cast<int>(16 / sizeof(T));
  static constexpr int tile_items = Threads * Vectors * vector_width;
  static std::string name() {
    std::string s = "t" + std::to_string(Threads) + "x" + std::to_string(Vectors);
    if (MinBlocks > 1) s += "/" + std::to_string(MinBlocks);
    if (SleepNs != st::look_back_tuning::look_back_sleep_ns) s += "~" + std::to_string(SleepNs);
    if (Windows != 1) s += "w" + std::to_string(Windows);
    if (Trees) s += "T";
    if (ByIndex) s += "I";
    if (Prefetch) s += "L";
    return s;
  }
};

// What launch_vector_scan does, at policy P.
template <class P, class T>
void scan_at(unsigned char* temp, const T* in, T* out, std::int64_t n, const sd::device_facts& facts) {
  const std::int64_t tiles = (n + P::tile_items - 1) / P::tile_items;
  using io_t = sd::vector_tile_io<T, P::vector_width, false, const T*>;
  const auto kernel = sd::single_pass_vector_scan_kernel<P, sd::look_back_kind::decoupled, io_t, streamscan::plus>;
  bool overlap = false;
  ok(sd::reset_tiles_for<T>("scan_shapes", temp, tiles, nullptr, facts, kernel, overlap));
  ok(sd::launch_overlapped("scan_shapes", "single_pass_vector_scan_kernel", overlap, kernel, tiles, P::threads,
                           nullptr, io_t{in, out, n}, n, std::int64_t{0},
                           sd::tile_status<T>(temp + sd::tile_counter_bytes, tiles),
                           reinterpret_cast<unsigned long long*>(temp), sd::maybe<T>{T{}, false},
                           sd::scan_mode::inclusive, streamscan::plus{}));
}

template <class T, class... P>
void run_size(const char* type, int log_n, int rounds) {
  const std::int64_t n = std::int64_t{1} << log_n;
  scan_experiment::rotating_buffers<T> buffers(n, 512, 2);
  const std::size_t bytes = buffers.bytes;
  const int sets = buffers.sets;
  const std::vector<T*>& in = buffers.in;
  const std::vector<T*>& out = buffers.out;
  T* expect = buffers.expect;
  sd::device_facts facts;
  ok(sd::current_device_facts("scan_shapes", facts));

  // Room for the smallest tile here (1024 values) as well as the library's.
  scan_experiment::scan_temps<T> temps(in[0], out[0], n,
                                       sd::tile_counter_bytes + sd::tile_status<T>::bytes(n / 1024 + 1));
  check(cub::DeviceScan::InclusiveSum(temps.cub, temps.cub_bytes, in[0], expect, n), "cub");

  const auto same = [&](const std::string& what) {
    check(cudaDeviceSynchronize(), what.c_str());
    std::vector<T> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    check(cudaMemcpy(a.data(), out[0], bytes, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(b.data(), expect, bytes, cudaMemcpyDeviceToHost), "copy");
    if (std::memcmp(a.data(), b.data(), bytes) != 0) {
      std::fprintf(stderr, "%s 2^%d %s: output differs from CUB's\n", type, log_n, what.c_str());
      std::exit(1);
    }
    check(cudaMemset(out[0], 0xff, bytes), "poison");
  };
  // Garbage in the temp storage first: the reset must clear what the kernel reads.
  check(cudaMemset(temps.ours, 0xa5, temps.our_bytes), "garbage");
  ok(streamscan::cuda::inclusive_scan(temps.ours, temps.our_bytes, in[0], out[0], n, streamscan::plus{}));
  same("library");
  (
      [&] {
        check(cudaMemset(temps.ours, 0xa5, temps.our_bytes), "garbage");
        scan_at<P>(temps.ours, in[0], out[0], n, facts);
        same(P::name());
      }(),
      ...);

  constexpr int repeats = 100;
  using streamscan_tool::median_ms;
  for (int round = 0; round < rounds; ++round) {
    const double t_copy = buffers.memcpy_ms(repeats);
    const double t_cub = buffers.cub_ms(repeats, temps.cub, temps.cub_bytes);
    const double t_lib = buffers.library_ms(repeats, temps.ours, temps.our_bytes);
    std::printf("%-6s 2^%-2d round %d | memcpy %6.2f us | cub %6.2f | library %6.2f (%.3fx)", type, log_n, round,
                1e3 * t_copy, 1e3 * t_cub, 1e3 * t_lib, t_cub / t_lib);
    (
        [&] {
          const double t = median_ms(repeats, [&](int r) {
            scan_at<P>(temps.ours, in[r % sets], out[r % sets], n, facts);
          }).median_ms;
          std::printf(" | %s %6.2f (%.3fx)", P::name().c_str(), 1e3 * t, t_cub / t);
        }(),
        ...);
    std::printf("\n");
    std::fflush(stdout);
  }
}

template <class T, class... P>
void run_sizes(const char* type, std::initializer_list<int> sizes, int rounds) {
  for (int log_n : sizes) run_size<T, P...>(type, log_n, rounds);
}

// wN: N windows of 32 predecessors a round trip; L: the block's own index's
// tile asked for in L2 before the tile id; I: tile ids by block index, not
// the counter (a bound, not a safe kernel).
template <class T, int Threads, int Vectors>
using variants = std::tuple<
    policy<T, Threads, Vectors>, policy<T, Threads, Vectors, 1, st::look_back_tuning::look_back_sleep_ns, 2>,
    policy<T, Threads, Vectors, 1, st::look_back_tuning::look_back_sleep_ns, 1, false, false, true>,
    policy<T, Threads, Vectors, 1, st::look_back_tuning::look_back_sleep_ns, 2, false, false, true>,
    policy<T, Threads, Vectors, 1, st::look_back_tuning::look_back_sleep_ns, 1, false, true>>;

template <class T, class... P>
void run_tuple(std::tuple<P...>*, const char* type, std::initializer_list<int> sizes, int rounds) {
  run_sizes<T, P...>(type, sizes, rounds);
}
template <class T, class... Tuples>
void run_variants(const char* type, std::initializer_list<int> sizes, int rounds) {
  using all = decltype(std::tuple_cat(std::declval<Tuples>()...));
  run_tuple<T>(static_cast<all*>(nullptr), type, sizes, rounds);
}

// 8-byte values: CUB's tile is 224 x 12 values (2688); the library's
// defaults t256x16 to 2^22, then t256x8 (the pipelined kernel from 2^23).
template <class T>
void eight_byte(const char* type, int rounds) {
  constexpr unsigned s = st::look_back_tuning::look_back_sleep_ns;
  run_variants<T, variants<T, 256, 8>,
               std::tuple<policy<T, 256, 8, 3, s, 2, false, false, true>, policy<T, 256, 8, 3, s, 1, false, false, true>>,
               variants<T, 256, 16>>(type, {20, 21, 22, 23}, rounds);
}

// 4-byte values: CUB's tile is 128 x 24 values (3072); the library's
// defaults t128x16, t256x16 at [2^22, 2^24).
template <class T>
void four_byte(const char* type, int rounds) {
  run_variants<T, variants<T, 128, 16>, variants<T, 256, 16>>(type, {20, 21, 22, 23, 24}, rounds);
}

// 16-byte values: the library's default t256x16.
template <class T>
void sixteen_byte(const char* type, int rounds) {
  run_variants<T, variants<T, 256, 16>>(type, {20, 22, 24}, rounds);
}

// Host time a call spends before its kernels are queued, which an
// event-timed call of a few tens of microseconds includes: the library's
// call, its parts, the bare launch path and CUB's call (uint64 2^22, no
// synchronisation inside a batch).
void host_overhead() {
  using T = std::uint64_t;
  const std::int64_t n = std::int64_t{1} << 22;
  T *in = nullptr, *out = nullptr;
  check(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc");
  fill<<<264, 256>>>(in, n, 1u);
  scan_experiment::scan_temps<T> temps(in, out, n);
  sd::device_facts facts;
  ok(sd::current_device_facts("scan_shapes", facts));
  std::printf("host: pageable_access %d, sm_count %d\n", int(facts.pageable_access), facts.sm_count);
  const auto per_call_us = [&](const char* what, int calls, auto f) {
    for (int round = 0; round < 3; ++round) {
      check(cudaDeviceSynchronize(), "sync");
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) f();
      const auto t1 = std::chrono::steady_clock::now();
      check(cudaDeviceSynchronize(), what);
      std::printf("%s%s %.3f", round ? "," : "host us a call: ", round ? "" : what,
                  std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    }
    std::printf("\n");
  };
  per_call_us("library", 100, [&] {
    ok(streamscan::cuda::inclusive_scan(temps.ours, temps.our_bytes, in, out, n, streamscan::plus{}));
  });
  per_call_us("launch path (reset, kernel)", 100, [&] { scan_at<policy<T, 256, 8>>(temps.ours, in, out, n, facts); });
  per_call_us("cub", 100, [&] { check(cub::DeviceScan::InclusiveSum(temps.cub, temps.cub_bytes, in, out, n), "cub"); });
  per_call_us("current_device_facts", 1000, [&] { ok(sd::current_device_facts("x", facts)); });
  per_call_us("cudaPointerGetAttributes", 1000, [&] {
    cudaPointerAttributes a{};
    check(cudaPointerGetAttributes(&a, in), "attributes");
  });
  // The driver's single-attribute query, reached without linking libcuda.
  using pointer_attribute_fn = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion("cuPointerGetAttribute", &entry, 12000, cudaEnableDefault, &found),
        "cuPointerGetAttribute entry point");
  if (found == cudaDriverEntryPointSuccess) {
    const auto attribute = reinterpret_cast<pointer_attribute_fn>(entry);
    per_call_us("cuPointerGetAttribute(MEMORY_TYPE)", 1000, [&] {
      unsigned type = 0;
      if (attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(in)) != CUDA_SUCCESS)
        std::exit(1);
    });
  }
  per_call_us("choose_policy", 1000, [&] {
    sd::chosen_policy c;
    ok(sd::choose_policy("x", "options.policy", st::algorithm::decoupled_lookback, sizeof(T), "plus", n, nullptr,
                         facts.device, c));
  });
  per_call_us("cudaGetLastError", 1000, [&] { (void)cudaGetLastError(); });
  cudaFree(in);
  cudaFree(out);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  host_overhead();
  if (rounds == 0) return 0;
  std::printf("scan_shapes: inclusive sums, one-tile kernel shapes; (x) = CUB's time / the shape's\n");
  eight_byte<std::uint64_t>("uint64", rounds);
  eight_byte<double>("double", rounds);
  four_byte<float>("float", rounds);
  sixteen_byte<__int128>("int128", rounds);
  return 0;
}
