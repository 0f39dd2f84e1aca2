// Experiment: where the pipelined compaction and partition
// (pipelined_select_kernel) spend a tile's time, what the look-back's shape
// (look-back warps, windows of 32 status words per round trip) does to it,
// and the outbox kernel (outbox_select_kernel: stages only land tiles, the
// selected values wait for their prefix in a shared-memory ring) in several
// shapes, at 2^28 int32, in one process against memcpy, a read-only stream of
// the same input and CUB, and seed 002's hybrid beside them. Kernels are
// launched directly with this file's policies, so one binary holds every
// variant; every output is checked against a host copy_if / partition (the
// hybrid's as a multiset). Results:
// docs/results/pipelined_select_outbox_2026-11-25_h100.txt (the outbox's
// shapes), docs/results/seed002_hybrid_variants_2026-11-25_h100.txt (hybrid
// variants since removed, and the stage/ring splits 4+64, 5+64, 6+32 KB).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -Iinclude \
//        experiments/pipelined_select.cu -o pipelined_select
//   ./pipelined_select [log2 n [keep per mille: 50, 500 or 950; default all three]]
#define STREAMSCAN_PIPELINE_TRACE 1  // timeline probes; off unless a buffer is set
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <streamscan/cuda/kernels/outbox_select_kernel.cuh>
#include <streamscan/cuda/kernels/select_kernels.cuh>

#include "../tools/cuda_timing.cuh"
#include "pipeline_trace.cuh"

namespace sd = streamscan::cuda::detail;
using streamscan::detail::placement;
using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;

template <int Rows, int Stages, int ReduceWarps, int LookBackWarps, int Windows>
struct pipe_policy {
  static constexpr int threads = 512, scan_warps = 16, vectors = Rows, rows = Rows, stages = Stages,
                       reduce_warps = ReduceWarps, look_back_warps = LookBackWarps, look_back_windows = Windows;
  static constexpr int tile_items = threads * Rows * 4;
  static constexpr unsigned look_back_sleep_ns = 1024;
};

template <int Rows, int Stages, int OutboxKB, int DrainWarps, int Records = 32, int Threads = 512, int LookBackWarps = 2>
struct outbox_policy {
  static constexpr int threads = Threads, rows = Rows, stages = Stages, records = Records, drain_warps = DrainWarps,
                       look_back_warps = LookBackWarps, look_back_windows = 4;
  static constexpr unsigned outbox_bytes = OutboxKB * 1024u;
  static constexpr unsigned look_back_sleep_ns = 1024;
};

struct below {
  int threshold;
  __host__ __device__ bool operator()(int x) const { return x < threshold; }
};
using source = streamscan::detail::predicate_source<const int*, int*, below>;

// Sums the input with 16-byte loads, 8 in flight a thread: how fast the input alone can be read.
__global__ void __launch_bounds__(256) read_all(const int4* in, std::int64_t vectors, int* sink) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  int acc = 0;
  for (; i + 7 * stride < vectors; i += 8 * stride) {
    int4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < 8; ++u) acc += v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < vectors; i += stride) acc += in[i].x;
  if (acc == 0x12345678) *sink = acc;
}

struct setup {
  std::int64_t n;
  int* in;
  int* out;
  std::int64_t* count;
  unsigned char* temp;
  std::vector<int> host;
  int sms;
};

// Times `run`, runs it once more on a poisoned output, checks it against the
// host's copy_if (and, for partition, the rejected values reversed at the end).
template <class Run>
void check(const setup& s, const char* name, placement p, int threshold, double memcpy_ms, double cub_ms, Run run,
           std::int64_t tiles, bool trace_it, bool ordered = true) {
  const std::int64_t n = s.n;
  const double ms = median_ms(20, run);
  cuda_check(cudaMemset(s.out, 0xff, n * 4), "poison");
  cuda_check(cudaMemset(s.count, 0xff, 8), "poison");
  run(0);
  cuda_check(cudaDeviceSynchronize(), "sync");
  std::vector<int> got(n);
  std::int64_t kept = 0;
  cuda_check(cudaMemcpy(got.data(), s.out, n * 4, cudaMemcpyDeviceToHost), "copy");
  cuda_check(cudaMemcpy(&kept, s.count, 8, cudaMemcpyDeviceToHost), "copy");
  std::vector<int> want;
  want.reserve(n);
  for (int x : s.host) if (x < threshold) want.push_back(x);
  const std::int64_t k = static_cast<std::int64_t>(want.size());
  bool ok = kept == k;
  if (!ordered && ok) {  // unordered kernels: the same multiset (values are below 1000)
    std::vector<std::int64_t> count(1000, 0);
    for (std::int64_t i = 0; i < k; ++i) ok = ok && got[i] >= 0 && got[i] < 1000 && ++count[got[i]] > 0;
    for (int x : want) ok = ok && count[x]-- > 0;
  } else {
    ok = ok && std::equal(want.begin(), want.end(), got.begin());
  }
  if (p == placement::reversed_rejects) {
    std::int64_t r = n - 1;
    for (int x : s.host) if (!(x < threshold)) ok = ok && got[r--] == x;
  } else {
    ok = ok && std::all_of(got.begin() + k, got.end(), [](int v) { return v == -1; });  // nothing past the kept
  }
  const double bytes = p == placement::compact ? 4.0 * n + 4.0 * k : 8.0 * n;
  std::printf("  %-40s %8.4f ms %5.1f%% of memcpy's rate, %.2fx CUB %s\n", name, ms,
              100 * memcpy_ms * bytes / (8.0 * n) / ms, cub_ms / ms, ok ? "ok" : "WRONG");
  if (trace_it) trace_report(run, tiles);
}

template <class Kernel>
std::int64_t grid_of(const setup& s, Kernel kernel, int threads, int smem, std::int64_t tiles) {
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute");
  int per_sm = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem), "occupancy");
  if (per_sm == 0) throw std::runtime_error("does not fit");
  return std::min<std::int64_t>(tiles, std::int64_t{s.sms} * per_sm);
}

template <placement P, class Policy>
void variant(const setup& s, int threshold, double memcpy_ms, double cub_ms, bool trace_it) {
  using shape = sd::select_pipeline_shape<Policy, source>;
  constexpr int T = shape::tile_items;
  const std::int64_t n = s.n, tiles = (n + T - 1) / T;
  const auto kernel = sd::pipelined_select_kernel<Policy, P, source, unsigned>;
  const int smem = static_cast<int>(shape::dynamic_shared_bytes);
  const std::int64_t grid = grid_of(s, kernel, shape::threads, smem, tiles);
  const std::size_t reset = 256 + sd::tile_status<unsigned>::bytes(tiles);
  const source src{s.in, s.out, below{threshold}, false};
  auto run = [&](int) {
    cuda_check(cudaMemsetAsync(s.temp, 0, reset), "memset");
    kernel<<<grid, shape::threads, smem>>>(src, n, n, nullptr, s.count, sd::tile_status<unsigned>(s.temp + 256, tiles),
                                           reinterpret_cast<unsigned long long*>(s.temp));
    cuda_check(cudaGetLastError(), "launch");
  };
  char name[96];
  std::snprintf(name, sizeof name, "%s p512x%ds%dr%d l%d k%d", P == placement::compact ? "compact" : "partition",
                Policy::rows, Policy::stages, Policy::reduce_warps, Policy::look_back_warps, Policy::look_back_windows);
  check(s, name, P, threshold, memcpy_ms, cub_ms, run, tiles, trace_it);
}

template <class Policy>
void outbox(const setup& s, int threshold, double memcpy_ms, double cub_ms, bool trace_it) {
  using shape = sd::outbox_shape<Policy, source>;
  constexpr int T = shape::tile_items;
  const std::int64_t n = s.n, tiles = (n + T - 1) / T;
  const auto kernel = sd::outbox_select_kernel<Policy, source, unsigned>;
  const int smem = static_cast<int>(shape::dynamic_shared_bytes);
  std::int64_t grid = 0;
  try {
    grid = grid_of(s, kernel, shape::threads, smem, tiles);
  } catch (const std::exception& e) {
    std::printf("  outbox variant skipped: %s\n", e.what());
    cudaGetLastError();
    return;
  }
  const std::size_t reset = 256 + sd::tile_status<unsigned>::bytes(tiles);
  const source src{s.in, s.out, below{threshold}, false};
  auto run = [&](int) {
    cuda_check(cudaMemsetAsync(s.temp, 0, reset), "memset");
    kernel<<<grid, shape::threads, smem>>>(src, n, n, s.count, sd::tile_status<unsigned>(s.temp + 256, tiles),
                                           reinterpret_cast<unsigned long long*>(s.temp));
    cuda_check(cudaGetLastError(), "launch");
  };
  char name[96];
  std::snprintf(name, sizeof name, "compact outbox o%dx%ds%d b%uK d%d q%d l%d", Policy::threads, Policy::rows,
                Policy::stages, Policy::outbox_bytes / 1024, Policy::drain_warps, Policy::records,
                Policy::look_back_warps);
  check(s, name, placement::compact, threshold, memcpy_ms, cub_ms, run, tiles, trace_it);
}

// Seed 002's hybrid (unordered) as the library launches it: a warp per
// group, read into registers (select_kernels.cuh).
void hybrid(const setup& s, int threshold, double memcpy_ms, double cub_ms) {
  const std::int64_t n = s.n, groups = (n + 1023) / 1024;
  const source src{s.in, s.out, below{threshold}, false};
  auto* counter = reinterpret_cast<unsigned long long*>(s.temp);
  auto run = [&](int) {
    cuda_check(cudaMemsetAsync(counter, 0, 8), "memset");
    sd::hybrid_select_kernel<source><<<(groups + 3) / 4, 128>>>(src, n, n, counter);
    cudaMemcpyAsync(s.count, counter, 8, cudaMemcpyDeviceToDevice);
    cuda_check(cudaGetLastError(), "launch");
  };
  check(s, "hybrid, a warp per group in registers", placement::compact, threshold, memcpy_ms, cub_ms, run, 0, false,
        false);
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  setup s;
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  s.n = std::int64_t{1} << log2n;
  const std::int64_t n = s.n;
  int device = 0;
  cuda_check(cudaGetDevice(&device), "device");
  cuda_check(cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, device), "sms");
  s.host.resize(n);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& v : s.host) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = static_cast<int>(x % 1000);
  }
  cuda_check(cudaMalloc(&s.in, n * 4), "malloc");
  cuda_check(cudaMalloc(&s.out, n * 4), "malloc");
  cuda_check(cudaMalloc(&s.count, 8), "malloc");
  cuda_check(cudaMemcpy(s.in, s.host.data(), n * 4, cudaMemcpyHostToDevice), "copy");
  std::size_t temp_bytes = 0, cub_select = 0, cub_partition = 0;
  cub::DeviceSelect::If(nullptr, cub_select, s.in, s.out, s.count, n, below{500});
  cub::DevicePartition::If(nullptr, cub_partition, s.in, s.out, s.count, n, below{500});
  temp_bytes = std::max({cub_select, cub_partition, std::size_t{256} + 16 * (n / 1024 + 1)});
  cuda_check(cudaMalloc(&s.temp, temp_bytes), "malloc");
  int* sink = nullptr;
  cuda_check(cudaMalloc(&sink, 4), "malloc");

  const double memcpy_ms =
      median_ms(20, [&](int) { cudaMemcpyAsync(s.out, s.in, n * 4, cudaMemcpyDeviceToDevice); });
  const double read_ms = median_ms(20, [&](int) {
    read_all<<<s.sms * 8, 256>>>(reinterpret_cast<const int4*>(s.in), n / 4, sink);
  });
  std::printf("n 2^%d int32: memcpy %.4f ms (%.2f TB/s), read-only %.4f ms (%.2f TB/s, %.0f%% of memcpy's rate)\n",
              log2n, memcpy_ms, 8.0 * n / memcpy_ms / 1e9, read_ms, 4.0 * n / read_ms / 1e9,
              100 * memcpy_ms / (2 * read_ms));
  for (int threshold : {50, 500, 950}) {
    if (argc > 2 && threshold != std::atoi(argv[2])) continue;  // one fraction (per mille), for profiles
    std::size_t b = temp_bytes;
    const double cub_sel = median_ms(20, [&](int) { cub::DeviceSelect::If(s.temp, b, s.in, s.out, s.count, n, below{threshold}); });
    const double cub_part =
        median_ms(20, [&](int) { cub::DevicePartition::If(s.temp, b, s.in, s.out, s.count, n, below{threshold}); });
    std::printf("keep %d%%: CUB DeviceSelect::If %.4f ms, DevicePartition::If %.4f ms\n", threshold / 10, cub_sel, cub_part);
    const bool tr = false;
    variant<placement::compact, pipe_policy<2, 12, 4, 2, 4>>(s, threshold, memcpy_ms, cub_sel, tr);
    outbox<outbox_policy<4, 3, 128, 1>>(s, threshold, memcpy_ms, cub_sel, tr);  // the library's default
    outbox<outbox_policy<4, 4, 64, 1>>(s, threshold, memcpy_ms, cub_sel, tr);
    hybrid(s, threshold, memcpy_ms, cub_sel);
  }
  return 0;
}
