// Experiment: what the pipelined kernels' structure costs before any scan
// work. The pipelined int32 scan (and partition, and the segmented scan on
// the same pipeline) stop at ~80% of cudaMemcpy at 2^28 elements (H200).
// This times, in one process on the same buffers, copies of 2^28 int32 that
// add 1 to each value, through each mechanism the pipeline uses or could use:
//
//   memcpy        cudaMemcpyAsync device to device (no +1)
//   vector        grid-stride 16-byte loads and stores, 4 in flight a thread
//   pipe/stg      the pipeline without reduce and look-back warps: one block
//                 per SM, a producer lane streams tiles into `stages` shared
//                 buffers with the bulk copy engine, consumer warps read
//                 their rows and store them with 16-byte st.global (the
//                 pipelined scan's store path); tiles in a fixed order
//   pipe/stg/ids  the same, tile ids from a global atomic counter (as the
//                 library takes them)
//   pipe/bulk     the consumers write their rows back into the stage, and
//                 one lane stores the stage with a bulk copy (shared to
//                 global)
//   bulk          no consumers: one lane bulk-loads and bulk-stores (no +1)
//   library scan  streamscan::cuda::inclusive_scan (its default, the
//                 pipelined look-back, at 2^28)
//
// Every output is checked.
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude experiments/copy_ceiling.cu -o copy_ceiling && ./copy_ceiling
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>
#include <streamscan/cuda/util/bulk_copy.cuh>

#include "../tools/cuda_timing.cuh"

namespace sd = streamscan::cuda::detail;
using streamscan_tool::cuda_check;
using streamscan_tool::median_ms;

__device__ __forceinline__ uint4 plus_one(uint4 v) { return make_uint4(v.x + 1, v.y + 1, v.z + 1, v.w + 1); }

template <int Unroll>
__global__ void __launch_bounds__(256) vector_copy(const uint4* in, uint4* out, std::int64_t vectors) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (; i + (Unroll - 1) * stride < vectors; i += Unroll * stride) {
    uint4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) out[i + u * stride] = plus_one(v[u]);
  }
  for (; i < vectors; i += stride) out[i] = plus_one(in[i]);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(sd::shared_address(src)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void consumers_sync(int threads) {
  asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory");
}
#endif

enum class store_path { stg, bulk };

// Tiles of Warps * Rows * 32 16-byte vectors; Warps consumer warps, then
// the producer warp. Ids: fixed (block b takes b, b + grid, ...) or atomic.
template <int Stages, int Warps, int Rows, store_path Store, bool AtomicIds>
__global__ void __launch_bounds__(32 * (Warps + 1), 1)
    pipe_copy(const uint4* in, uint4* out, std::int64_t tiles, unsigned long long* counter) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int tile_vectors = Warps * Rows * 32;
  constexpr unsigned tile_bytes = tile_vectors * 16;
  extern __shared__ __align__(128) uint4 stage[];
  __shared__ __align__(8) std::uint64_t full[Stages], empty[Stages];
  __shared__ std::int64_t tile_of[Stages];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned empty_arrivals = Store == store_path::stg ? 32 * Warps : 1;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      sd::mbarrier_init(&full[s], 1);
      sd::mbarrier_init(&empty[s], empty_arrivals);
    }
    sd::mbarrier_init_fence();
  }
  __syncthreads();
  if (warp == Warps) {  // producer
    if (lane != 0) return;
    for (std::int64_t k = 0;; ++k) {
      const int s = static_cast<int>(k % Stages);
      if (k >= Stages) sd::mbarrier_wait(&empty[s], static_cast<unsigned>((k / Stages - 1) & 1));
      const std::int64_t t = AtomicIds ? static_cast<std::int64_t>(atomicAdd(counter, 1ull)) : blockIdx.x + k * gridDim.x;
      tile_of[s] = t < tiles ? t : -1;
      if (t >= tiles) {
        sd::mbarrier_arrive(&full[s]);
        return;
      }
      sd::mbarrier_arrive_expect_tx(&full[s], tile_bytes);
      sd::bulk_copy_to_shared(stage + s * tile_vectors, in + t * tile_vectors, tile_bytes, &full[s]);
    }
  }
  // consumers
  for (std::int64_t k = 0;; ++k) {
    const int s = static_cast<int>(k % Stages);
    sd::mbarrier_wait(&full[s], static_cast<unsigned>((k / Stages) & 1));
    const std::int64_t t = tile_of[s];
    if (t < 0) break;
    uint4* slot = stage + s * tile_vectors + warp * Rows * 32;
    uint4 v[Rows];
#pragma unroll
    for (int j = 0; j < Rows; ++j) v[j] = slot[32 * j + lane];
    if constexpr (Store == store_path::stg) {
      sd::mbarrier_arrive(&empty[s]);
      uint4* dst = out + t * tile_vectors + warp * Rows * 32;
#pragma unroll
      for (int j = 0; j < Rows; ++j) dst[32 * j + lane] = plus_one(v[j]);
    } else {
#pragma unroll
      for (int j = 0; j < Rows; ++j) slot[32 * j + lane] = plus_one(v[j]);
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes, then the copy engine's read
      consumers_sync(32 * Warps);
      if (threadIdx.x == 0) {
        bulk_store(out + t * tile_vectors, stage + s * tile_vectors, tile_bytes);
        bulk_commit();
        bulk_wait_read<1>();  // the previous tile's store has read its stage
        if (k > 0) sd::mbarrier_arrive(&empty[(k - 1) % Stages]);
      }
    }
  }
  if constexpr (Store == store_path::bulk)
    if (threadIdx.x == 0) bulk_wait_all();
#endif
}

// One lane per block: bulk load into Stages buffers, bulk store from them.
template <int Stages, int TileBytes>
__global__ void __launch_bounds__(32, 1) bulk_only(const uint4* in, uint4* out, std::int64_t tiles) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int tile_vectors = TileBytes / 16;
  extern __shared__ __align__(128) uint4 stage[];
  __shared__ __align__(8) std::uint64_t full[Stages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < Stages; ++s) sd::mbarrier_init(&full[s], 1);
  sd::mbarrier_init_fence();
  auto load = [&](std::int64_t k) {
    const std::int64_t t = blockIdx.x + k * gridDim.x;
    if (t >= tiles) return;
    const int s = static_cast<int>(k % Stages);
    sd::mbarrier_arrive_expect_tx(&full[s], TileBytes);
    sd::bulk_copy_to_shared(stage + s * tile_vectors, in + t * tile_vectors, TileBytes, &full[s]);
  };
  for (int k = 0; k < Stages; ++k) load(k);
  for (std::int64_t k = 0; blockIdx.x + k * gridDim.x < tiles; ++k) {
    const int s = static_cast<int>(k % Stages);
    sd::mbarrier_wait(&full[s], static_cast<unsigned>((k / Stages) & 1));
    bulk_store(out + (blockIdx.x + k * gridDim.x) * tile_vectors, stage + s * tile_vectors, TileBytes);
    bulk_commit();
    bulk_wait_read<1>();
    if (k > 0) load(k - 1 + Stages);  // stage (k-1) % Stages has been read out
  }
  bulk_wait_all();
#endif
}

struct add_one {
  __host__ __device__ std::int32_t operator()(std::int32_t x) const { return x + 1; }
};

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::int64_t n = std::int64_t{1} << 28;
  const std::size_t bytes = 4 * n;
  std::int32_t *in, *out, *scan_out;
  cuda_check(cudaMalloc(&in, bytes), "malloc");
  cuda_check(cudaMalloc(&out, bytes), "malloc");
  cuda_check(cudaMalloc(&scan_out, bytes), "malloc");
  unsigned long long* counter;
  cuda_check(cudaMalloc(&counter, 256), "malloc");
  std::vector<std::int32_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::int32_t>((i * 2654435761u) % 1000u);
  cuda_check(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice), "upload");
  int device = 0, sms = 0;
  cuda_check(cudaGetDevice(&device), "device");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "sms");
  const auto* vin = reinterpret_cast<const uint4*>(in);
  auto* vout = reinterpret_cast<uint4*>(out);

  for (int i = 0; i < 20; ++i) cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice);  // clocks up
  const double memcpy_ms = median_ms(30, [&](int) { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
  auto report = [&](const char* name, double ms, bool plus) {
    cuda_check(cudaDeviceSynchronize(), name);
    const bool ok = plus ? thrust::equal(thrust::device, out, out + n, thrust::make_transform_iterator(in, add_one{}))
                         : thrust::equal(thrust::device, out, out + n, in);
    std::printf("%-44s %8.4f ms  %6.1f%% of memcpy  %7.1f GB/s  %s\n", name, ms, 100 * memcpy_ms / ms,
                2.0 * bytes / ms / 1e6, ok ? "ok" : "WRONG");
    cuda_check(cudaMemset(out, 0xff, bytes), "poison");
  };
  report("memcpy", memcpy_ms, false);

  {
    const int grid = sms * 8;
    const double ms = median_ms(30, [&](int) { vector_copy<4><<<grid, 256>>>(vin, vout, n / 4); });
    report("vector (8 x 256 threads per SM, 4 in flight)", ms, true);
  }
  auto pipe = [&](const char* name, auto kernel, int warps, int tile_vectors, int stages) {
    const int smem = tile_vectors * 16 * stages;
    cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute");
    const std::int64_t tiles = n / 4 / tile_vectors;
    const double ms = median_ms(30, [&](int) {
      cudaMemsetAsync(counter, 0, 8);
      kernel<<<sms, 32 * (warps + 1), smem>>>(vin, vout, tiles, counter);
    });
    char label[96];
    std::snprintf(label, sizeof label, "%s (%d warps, %d KiB tiles, %d stages)", name, warps, tile_vectors / 64, stages);
    report(label, ms, true);
  };
  pipe("pipe/stg", pipe_copy<6, 8, 8, store_path::stg, false>, 8, 8 * 8 * 32, 6);
  pipe("pipe/stg/ids", pipe_copy<6, 8, 8, store_path::stg, true>, 8, 8 * 8 * 32, 6);
  pipe("pipe/stg", pipe_copy<6, 16, 4, store_path::stg, false>, 16, 16 * 4 * 32, 6);
  pipe("pipe/stg", pipe_copy<12, 8, 4, store_path::stg, false>, 8, 8 * 4 * 32, 12);
  pipe("pipe/bulk", pipe_copy<6, 8, 8, store_path::bulk, false>, 8, 8 * 8 * 32, 6);
  pipe("pipe/bulk/ids", pipe_copy<6, 8, 8, store_path::bulk, true>, 8, 8 * 8 * 32, 6);
  pipe("pipe/bulk", pipe_copy<12, 8, 4, store_path::bulk, false>, 8, 8 * 4 * 32, 12);
  auto bulk = [&](auto kernel, int tile_bytes, int stages, int per_sm) {
    const int smem = tile_bytes * stages;
    cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute");
    const std::int64_t tiles = static_cast<std::int64_t>(bytes) / tile_bytes;
    const double ms = median_ms(30, [&](int) { kernel<<<sms * per_sm, 32, smem>>>(vin, vout, tiles); });
    char label[96];
    std::snprintf(label, sizeof label, "bulk (%d KiB tiles, %d stages, %d blocks/SM)", tile_bytes / 1024, stages, per_sm);
    report(label, ms, false);
  };
  bulk(bulk_only<6, 32768>, 32768, 6, 1);
  bulk(bulk_only<4, 16384>, 16384, 4, 3);
  bulk(bulk_only<8, 8192>, 8192, 8, 3);
  {
    std::size_t temp_bytes = 0;
    if (!streamscan::cuda::inclusive_scan(nullptr, temp_bytes, in, scan_out, n)) return 1;
    void* temp = nullptr;
    cuda_check(cudaMalloc(&temp, temp_bytes), "malloc");
    const double ms = median_ms(30, [&](int) {
      std::size_t t = temp_bytes;
      (void)streamscan::cuda::inclusive_scan(temp, t, in, scan_out, n);
    });
    cuda_check(cudaDeviceSynchronize(), "scan");
    std::printf("%-44s %8.4f ms  %6.1f%% of memcpy  %7.1f GB/s\n", "library inclusive_scan (default)", ms,
                100 * memcpy_ms / ms, 2.0 * bytes / ms / 1e6);
    cudaFree(temp);
  }
  return 0;
}
