// streamscan/cuda/util/runtime.cuh - host-side CUDA helpers: error mapping,
// device facts, pointer checks and the one checked launch path every
// dispatcher uses.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "../../status.hpp"

namespace streamscan::cuda {

namespace testing {
// Test hook: the next checked launch fails with this error instead of
// launching (then the hook resets). Lets tests exercise the CUDA-failure path
// without putting the context into a sticky error state.
inline cudaError_t& injected_launch_error() {
  static cudaError_t error = cudaSuccess;
  return error;
}
// Test hook: at most this many persistent blocks for the outbox compaction
// kernel (0: no limit), so that a test of a few hundred thousand elements
// sends each block round its ring and records many times.
inline long long& persistent_grid_limit() {
  static long long limit = 0;
  return limit;
}
// Test hook: the name of the kernel the last checked launch started, so that
// a test can tell which path a call took.
inline std::atomic<const char*>& last_launched_kernel() {
  static std::atomic<const char*> name{nullptr};
  return name;
}
}  // namespace testing

namespace detail {

inline status cuda_status(const char* fn, const char* what, cudaError_t e) {
  return status(errc::cuda_error,
                std::string(fn) + ": " + what + " failed: " + cudaGetErrorName(e) + " (" +
                    cudaGetErrorString(e) + ")",
                static_cast<int>(e));
}

// A runtime call's result: ok, or the error named (and cleared, so that it
// does not surface again at the next check).
inline status cuda_call(const char* fn, const char* what, cudaError_t e) {
  if (e == cudaSuccess) return status::ok();
  cudaGetLastError();
  return cuda_status(fn, what, e);
}

struct device_facts {
  int device = 0;
  int sm_count = 0;
  int cc_major = 0;                   // compute capability
  int max_shared_per_block = 0;       // bytes a block may opt in to
  bool pageable_access = false;  // the GPU can dereference plain host memory (HMM/ATS)
};

// How many devices the per-device caches below hold; devices past it are
// asked every time.
inline constexpr int max_cached_devices = 64;

// The facts of the current device. A device's attributes do not change while
// the process runs, so each device is asked once (CUB caches them likewise):
// a call then costs one cudaGetDevice instead of five runtime calls.
inline status current_device_facts(const char* fn, device_facts& facts) {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  struct entry {
    std::atomic<bool> ready{false};
    device_facts facts;
  };
  static entry cache[max_cached_devices];
  const bool cacheable = e == cudaSuccess && device >= 0 && device < max_cached_devices;
  if (cacheable && cache[device].ready.load(std::memory_order_acquire)) {
    facts = cache[device].facts;
    return status::ok();
  }
  facts.device = device;
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&facts.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&facts.cc_major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&facts.max_shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  int pageable = 0;
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device);
  facts.pageable_access = pageable != 0;
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky; do not leave it for the caller's next check
    return cuda_status(fn, "querying the current device", e);
  }
  if (cacheable) {
    // One writer, and only before `ready`: readers never see a torn entry.
    static std::mutex fill;
    const std::lock_guard<std::mutex> lock(fill);
    if (!cache[device].ready.load(std::memory_order_relaxed)) {
      cache[device].facts = facts;
      cache[device].ready.store(true, std::memory_order_release);
    }
  }
  return status::ok();
}

// The driver's one-attribute pointer query (cuPointerGetAttribute), found
// once through the runtime so that nothing links libcuda; null where the
// runtime cannot find it. It answers in about half the time of
// cudaPointerGetAttributes, which asks for every attribute.
using pointer_attribute_query = decltype(&::cuPointerGetAttribute);  // its type only: nothing links it
inline pointer_attribute_query driver_pointer_query() {
  static const pointer_attribute_query query = [] {
    void* entry = nullptr;
#if CUDART_VERSION >= 12050
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t e =
        cudaGetDriverEntryPointByVersion("cuPointerGetAttribute", &entry, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess) cudaGetLastError();  // not the caller's error: do not leave it behind
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) entry = nullptr;
#endif
    return reinterpret_cast<pointer_attribute_query>(entry);
  }();
  return query;
}

// A raw pointer argument must be memory the GPU can reach: device, managed,
// mapped pinned host memory, or any host memory on systems with pageable
// memory access. Fancy iterators are not checked. Device memory, the common
// case, is recognised by the driver's memory-type query alone; anything else
// takes the runtime's full query.
template <class It>
status check_device_accessible(const char* fn, const char* arg, const It& it, const device_facts& facts) {
  if constexpr (!std::is_pointer_v<It>) {
    (void)fn, (void)arg, (void)it, (void)facts;
    return status::ok();
  } else {
    if (facts.pageable_access) return status::ok();
    if (const pointer_attribute_query query = driver_pointer_query(); query != nullptr) {
      unsigned type = 0;
      if (query(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(it)) == CUDA_SUCCESS &&
          type == CU_MEMORYTYPE_DEVICE)
        return status::ok();
    }
    cudaPointerAttributes attr{};
    const cudaError_t e = cudaPointerGetAttributes(&attr, static_cast<const void*>(it));
    if (e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, (std::string("cudaPointerGetAttributes on argument '") + arg + "'").c_str(), e);
    }
    if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) return status::ok();
    if (attr.type == cudaMemoryTypeHost && attr.devicePointer != nullptr) return status::ok();
    return status(errc::inaccessible_pointer,
                  std::string(fn) + ": argument '" + arg +
                      "' points to host memory the GPU cannot access (pass device, managed or "
                      "mapped pinned memory)");
  }
}

// check_device_accessible over (name, pointer) pairs, in order: the first
// failure is returned.
inline status check_accessible_args(const char*, const device_facts&) { return status::ok(); }
template <class It, class... Rest>
status check_accessible_args(const char* fn, const device_facts& facts, const char* arg, const It& it,
                             const Rest&... rest) {
  if (status s = check_device_accessible(fn, arg, it, facts); !s) return s;
  return check_accessible_args(fn, facts, rest...);
}

// Temp storage is laid out in 256-byte aligned pieces.
inline std::size_t round_up_256(std::size_t b) { return (b + 255) / 256 * 256; }
inline void* aligned_256(void* p) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<void*>((a + 255) / 256 * 256);
}

// A grid of 256-thread blocks for `items` threads' work, at most `cap` blocks
// (grid-stride kernels loop over the rest).
inline std::int64_t grid_for(std::int64_t items, std::int64_t cap) {
  const std::int64_t blocks = (items + 255) / 256;
  return blocks < cap ? blocks : cap;
}

// What every checked launch does first: an injected test failure, an empty
// grid (nothing to launch: `go` stays false) and a grid past the launch limit.
inline status launch_gate(const char* fn, const char* kernel_name, std::int64_t grid, bool& go) {
  go = false;
  cudaError_t& injected = testing::injected_launch_error();
  if (injected != cudaSuccess) {
    const cudaError_t e = injected;
    injected = cudaSuccess;
    return cuda_status(fn, (std::string("launching ") + kernel_name).c_str(), e);
  }
  if (grid <= 0) return status::ok();
  if (grid > 0x7fffffff)
    return status(errc::invalid_argument, std::string(fn) + ": input too large for one grid of " + kernel_name);
  go = true;
  return status::ok();
}

// What every checked launch does last: a failed launch becomes a status
// naming the kernel; a started one is recorded for the tests.
inline status launch_result(const char* fn, const char* kernel_name) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_status(fn, (std::string("launching ") + kernel_name).c_str(), e);
  testing::last_launched_kernel().store(kernel_name, std::memory_order_relaxed);
  return status::ok();
}

// Lets kernel take `bytes` of dynamic shared memory (past 48 KiB it must ask).
template <class... Params>
status allow_dynamic_shared(const char* fn, void (*kernel)(Params...), std::size_t bytes) {
  if (bytes <= 48 * 1024) return status::ok();
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (e == cudaSuccess) return status::ok();
  cudaGetLastError();
  return cuda_status(fn, "raising the shared memory limit (cudaFuncSetAttribute)", e);
}

// Launches kernel<<<grid, block, dynamic_shared, stream>>>(args...) and
// reports a failed launch as a status naming the kernel.
template <class... Params, class... Args>
status launch_with_shared(const char* fn, const char* kernel_name, void (*kernel)(Params...), std::int64_t grid,
                          int block, std::size_t dynamic_shared, cudaStream_t stream, Args&&... args) {
  bool go = false;
  if (status s = launch_gate(fn, kernel_name, grid, go); !s || !go) return s;
  kernel<<<static_cast<unsigned>(grid), static_cast<unsigned>(block), dynamic_shared, stream>>>(
      std::forward<Args>(args)...);
  return launch_result(fn, kernel_name);
}

// A launch in thread-block clusters of `cluster` blocks along x (sm_90);
// `attribute` holds the cluster size the configuration points to.
inline cudaLaunchConfig_t cluster_config(std::int64_t grid, int block, int cluster, std::size_t dynamic_shared,
                                         cudaStream_t stream, cudaLaunchAttribute& attribute) {
  attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(cluster);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.dynamicSmemBytes = dynamic_shared;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

// Whether the GPU can hold at least one cluster of `cluster` blocks of the
// kernel at once (in `fits`).
template <class... Params>
status cluster_fits(const char* fn, void (*kernel)(Params...), int block, int cluster, std::size_t dynamic_shared,
                    bool& fits) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(cluster, block, cluster, dynamic_shared, nullptr, attribute);
  int clusters = 0;
  if (status s = cuda_call(fn, "querying how many thread-block clusters fit (cudaOccupancyMaxActiveClusters)",
                           cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
      !s)
    return s;
  fits = clusters > 0;
  return status::ok();
}

// Whether `kernel` runs code compiled for sm_90 or later on the current
// device (its PTX version): a build for an older architecture only has the
// kernel's pre-sm_90 body, which the driver compiles for a newer GPU.
template <class... Params>
status compiled_for_sm90(const char* fn, void (*kernel)(Params...), bool& yes) {
  cudaFuncAttributes attributes{};
  if (status s = cuda_call(fn, "querying a kernel's attributes (cudaFuncGetAttributes)",
                           cudaFuncGetAttributes(&attributes, kernel));
      !s)
    return s;
  yes = attributes.ptxVersion >= 90;
  return status::ok();
}

// A per-device answer computed once (`prepare(runs)` on the current device)
// and remembered in `cache` (0: not yet, 1: runs, 2: does not). Devices past
// the cache's size ask every time. A failed `prepare` is returned and not
// remembered.
template <int Devices, class Prepare>
status once_per_device(std::atomic<int> (&cache)[Devices], int device, bool& runs, Prepare prepare) {
  const bool cached = device >= 0 && device < Devices;
  const int known = cached ? cache[device].load(std::memory_order_acquire) : 0;
  if (known != 0) {
    runs = known == 1;
    return status::ok();
  }
  runs = false;
  if (status s = prepare(runs); !s) return s;
  if (cached) cache[device].store(runs ? 1 : 2, std::memory_order_release);
  return status::ok();
}

// launch_with_shared in clusters of `cluster` blocks (grid a multiple of it).
template <class... Params, class... Args>
status launch_clusters(const char* fn, const char* kernel_name, void (*kernel)(Params...), std::int64_t grid,
                       int block, int cluster, std::size_t dynamic_shared, cudaStream_t stream, Args&&... args) {
  bool go = false;
  if (status s = launch_gate(fn, kernel_name, grid, go); !s || !go) return s;
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(grid, block, cluster, dynamic_shared, stream, attribute);
  if (status s = cuda_call(fn, (std::string("launching ") + kernel_name).c_str(),
                           cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
      !s)
    return s;
  return launch_result(fn, kernel_name);
}

template <class... Params, class... Args>
status launch(const char* fn, const char* kernel_name, void (*kernel)(Params...), std::int64_t grid, int block,
              cudaStream_t stream, Args&&... args) {
  return launch_with_shared(fn, kernel_name, kernel, grid, block, 0, stream, std::forward<Args>(args)...);
}

// A launch that may begin before the kernel ahead of it in the stream has
// finished (programmatic dependent launch, sm_90): once every block of that
// kernel has called launch_dependents (util/grid_dependency.cuh) or exited.
// The kernel launched must call grid_dependency_wait before it reads what
// the one ahead writes (or anything written before that one ran, unless
// that one was itself launched plainly). With `overlap` false (a GPU or a
// build before sm_90: see dependent_launch_allowed) a plain launch.
template <class... Params, class... Args>
status launch_overlapped_with_shared(const char* fn, const char* kernel_name, bool overlap, void (*kernel)(Params...),
                                     std::int64_t grid, int block, std::size_t dynamic_shared, cudaStream_t stream,
                                     Args&&... args) {
  if (!overlap)
    return launch_with_shared(fn, kernel_name, kernel, grid, block, dynamic_shared, stream,
                              std::forward<Args>(args)...);
  bool go = false;
  if (status s = launch_gate(fn, kernel_name, grid, go); !s || !go) return s;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.dynamicSmemBytes = dynamic_shared;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  if (status s = cuda_call(fn, (std::string("launching ") + kernel_name).c_str(),
                           cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
      !s)
    return s;
  return launch_result(fn, kernel_name);
}

template <class... Params, class... Args>
status launch_overlapped(const char* fn, const char* kernel_name, bool overlap, void (*kernel)(Params...),
                         std::int64_t grid, int block, cudaStream_t stream, Args&&... args) {
  return launch_overlapped_with_shared(fn, kernel_name, overlap, kernel, grid, block, 0, stream,
                                       std::forward<Args>(args)...);
}

// Whether launch_overlapped may overlap `kernel` with the one ahead: an
// sm_90 GPU running the kernel's sm_90 code (an older build has no
// grid_dependency_wait in it). Asked once per device and kernel signature
// (the kernels of one build share their architectures).
template <class... Params>
status dependent_launch_allowed(const char* fn, const device_facts& facts, void (*kernel)(Params...), bool& allowed) {
  static std::atomic<int> known[max_cached_devices];
  return once_per_device(known, facts.device, allowed, [&](bool& ok) {
    ok = false;
    if (facts.cc_major < 9) return status::ok();
    return compiled_for_sm90(fn, kernel, ok);
  });
}

// Checked modes: `find()` launches the kernels that leave in record[0] the
// first bad entry (reset here to ~0, meaning none) and in record[1..2] what
// the message shows; this waits for them and copies them to `found`.
template <class Find>
status device_check(const char* fn, const char* what, unsigned long long* record, cudaStream_t stream,
                    unsigned long long (&found)[3], Find find) {
  cudaError_t e = cudaMemsetAsync(record, 0xff, sizeof(unsigned long long), stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, (std::string("resetting ") + what + " (cudaMemsetAsync)").c_str(), e);
  }
  if (status s = find(); !s) return s;
  e = cudaMemcpyAsync(found, record, sizeof(found), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, (std::string("reading ") + what).c_str(), e);
  }
  return status::ok();
}

}  // namespace detail
}  // namespace streamscan::cuda
