// python/src/rtc_impl.hpp - kernels compiled at run time, for
// streamscan.associative_scan (calls.hpp's rtc_*): NVRTC compiles the
// generated source (python/streamscan/_associative.py) to a cubin, the CUDA
// driver loads it into the primary context the runtime uses (torch and CuPy
// use it too) and launches its extern "C" kernel on the caller's stream. The
// kernel is zip_scan_kernel.cuh's; its launch and temp storage follow from
// the shape the module reports (zip_scan_plan), reset as the library's own
// dispatch resets its tiles. A module may also hold the one-warp-a-row entry
// (zip_rows_chunks; STREAMSCAN_ASSOCIATIVE_ROWS=warps on the Python side):
// then a call whose rows its shape's rule takes (zip_chunk_plan::fits, with
// the device's SM count) launches that instead, with no temp storage. Included
// by one generated translation unit of the GPU module (python/CMakeLists.txt).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <streamscan/cuda/dispatch/dispatch_scan.cuh>
#include <streamscan/cuda/kernels/zip_scan_kernel.cuh>

#include "backend.hpp"
#include "calls.hpp"

namespace streamscan::python {

namespace rtc_detail {

constexpr const char* fn = "streamscan.associative_scan";
constexpr const char* kernel_name = "streamscan_zip_scan";
constexpr const char* shape_name = "streamscan_zip_scan_shape";
constexpr const char* chunks_name = "streamscan_zip_rows_chunks";  // optional
constexpr const char* chunks_shape_name = "streamscan_zip_rows_chunks_shape";

// A loaded module: its kernel and the plan its shape gives; the chunk
// kernel where the module has one (else chunks.threads == 0), and the
// device's SM count its rule needs.
struct module {
  CUmodule handle = nullptr;
  CUfunction kernel = nullptr;
  streamscan::cuda::detail::zip_scan_plan plan;
  CUfunction chunks_kernel = nullptr;
  streamscan::cuda::detail::zip_chunk_plan chunks;
  int sm_count = 0;
};

inline status driver_status(const char* what, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return status(errc::cuda_error, std::string(fn) + ": " + what + " failed: " + (name ? name : "?") + " (" +
                                      (text ? text : "unknown") + ")",
                static_cast<int>(r));
}

// NVRTC, opened at its first use rather than linked: the module then imports,
// and every other call works, where the toolkit's libnvrtc is not on the
// loader's path (associative_scan says so instead). Tried: the library
// CMake found in the build's toolkit, then the loader's path.
struct nvrtc_api {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  decltype(&nvrtcVersion) version = nullptr;
  std::string missing;  // why it is not there (empty: it is)
};

inline const nvrtc_api& nvrtc() {
  static const nvrtc_api api = [] {
    nvrtc_api a;
    const std::string major = std::to_string(CUDA_VERSION / 1000);
#if defined(STREAMSCAN_PY_NVRTC_LIBRARY)
    const std::string linked = STREAMSCAN_PY_NVRTC_LIBRARY;  // the one CMake found
#else
    const std::string linked = std::string(STREAMSCAN_PY_CUDA_LIBRARY_DIR) + "/libnvrtc.so";
#endif
    const std::string names[] = {linked, std::string(STREAMSCAN_PY_CUDA_LIBRARY_DIR) + "/libnvrtc.so." + major,
                                 "libnvrtc.so." + major, "libnvrtc.so"};
    void* lib = nullptr;
    for (const std::string& name : names)
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (lib == nullptr) {
      a.missing = "NVRTC (libnvrtc.so." + major + ") could not be opened: not in " STREAMSCAN_PY_CUDA_LIBRARY_DIR
                  " (the CUDA toolkit this module was built with) nor on the loader's path (LD_LIBRARY_PATH)";
      return a;
    }
    auto get = [&](auto& f, const char* symbol) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, symbol));
      if (f == nullptr && a.missing.empty()) a.missing = std::string("NVRTC has no ") + symbol;
    };
    get(a.create, "nvrtcCreateProgram");
    get(a.compile, "nvrtcCompileProgram");
    get(a.log_size, "nvrtcGetProgramLogSize");
    get(a.log, "nvrtcGetProgramLog");
    get(a.cubin_size, "nvrtcGetCUBINSize");
    get(a.cubin, "nvrtcGetCUBIN");
    get(a.destroy, "nvrtcDestroyProgram");
    get(a.error_string, "nvrtcGetErrorString");
    get(a.version, "nvrtcVersion");
    return a;
  }();
  return api;
}

// Makes `device`'s primary context current (through the runtime, which the
// rest of the module uses) for the driver calls that follow.
inline status use_device(int device) {
  if (const CUresult r = cuInit(0); r != CUDA_SUCCESS) return driver_status("cuInit", r);
  if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    const cudaError_t e = cudaGetLastError();
    return streamscan::cuda::detail::cuda_status(fn, "making the device current", e);
  }
  return status::ok();
}

}  // namespace rtc_detail

rtc_program rtc_compile(const std::string& source, const std::string& name, const std::vector<std::string>& options) {
  rtc_program p;
  const rtc_detail::nvrtc_api& nv = rtc_detail::nvrtc();
  if (!nv.missing.empty()) {
    p.unavailable = nv.missing;
    return p;
  }
  nvrtcProgram program = nullptr;
  if (const nvrtcResult r = nv.create(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
      r != NVRTC_SUCCESS) {
    p.log = std::string("nvrtcCreateProgram: ") + nv.error_string(r);
    return p;
  }
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  const nvrtcResult compiled = nv.compile(program, static_cast<int>(opts.size()), opts.data());
  std::size_t log_bytes = 0;
  if (nv.log_size(program, &log_bytes) == NVRTC_SUCCESS && log_bytes > 1) {
    p.log.assign(log_bytes, '\0');
    nv.log(program, p.log.data());
    p.log.resize(log_bytes - 1);  // the terminating zero
  }
  if (compiled == NVRTC_SUCCESS) {
    std::size_t bytes = 0;
    if (nv.cubin_size(program, &bytes) == NVRTC_SUCCESS && bytes > 0) {
      p.cubin.assign(bytes, '\0');
      p.ok = nv.cubin(program, p.cubin.data()) == NVRTC_SUCCESS;
    }
    if (!p.ok) p.log += "\nno cubin (is the -arch= option a real architecture, sm_XX?)";
  } else if (p.log.empty()) {
    p.log = nv.error_string(compiled);
  }
  nv.destroy(&program);
  return p;
}

status rtc_nvrtc_version(int& version) {
  const rtc_detail::nvrtc_api& nv = rtc_detail::nvrtc();
  if (!nv.missing.empty()) return status(errc::cuda_error, std::string(rtc_detail::fn) + ": " + nv.missing);
  int major = 0, minor = 0;
  nv.version(&major, &minor);
  version = major * 1000 + minor * 10;
  return status::ok();
}

status rtc_device_arch(int device, int& arch) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    const cudaError_t e = cudaGetLastError();
    return streamscan::cuda::detail::cuda_status(rtc_detail::fn, "querying the compute capability", e);
  }
  arch = major * 10 + minor;
  return status::ok();
}

status rtc_load(const std::string& cubin, int device, std::uintptr_t& handle) {
  using namespace rtc_detail;
  int previous = -1;
  cudaGetDevice(&previous);
  if (status s = use_device(device); !s) return s;
  auto m = std::make_unique<module>();
  status result = status::ok();
  if (const CUresult r = cuModuleLoadData(&m->handle, cubin.data()); r != CUDA_SUCCESS) {
    result = driver_status("loading the compiled operator (cuModuleLoadData)", r);
  } else if (const CUresult r2 = cuModuleGetFunction(&m->kernel, m->handle, kernel_name); r2 != CUDA_SUCCESS) {
    result = driver_status("finding its kernel (cuModuleGetFunction)", r2);
  } else {
    // The shape: read once, here (a synchronous copy; launches never wait).
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
    unsigned long long shape[5] = {};
    if (const CUresult r3 = cuModuleGetGlobal(&address, &bytes, m->handle, shape_name);
        r3 != CUDA_SUCCESS || bytes != sizeof shape) {
      result = driver_status("finding its shape (cuModuleGetGlobal)", r3 != CUDA_SUCCESS ? r3 : CUDA_ERROR_NOT_FOUND);
    } else if (const CUresult r4 = cuMemcpyDtoH(shape, address, sizeof shape); r4 != CUDA_SUCCESS) {
      result = driver_status("reading its shape (cuMemcpyDtoH)", r4);
    } else {
      m->plan.threads = static_cast<int>(shape[0]);
      m->plan.tile_items = static_cast<std::int64_t>(shape[1]);
      m->plan.status = {static_cast<streamscan::cuda::detail::status_layout>(shape[2]),
                        static_cast<std::size_t>(shape[3])};
      m->plan.backward = shape[4] != 0;
    }
  }
  if (result) {
    // The one-warp-a-row entry: absent from modules generated without it.
    const CUresult r = cuModuleGetFunction(&m->chunks_kernel, m->handle, chunks_name);
    if (r == CUDA_SUCCESS) {
      CUdeviceptr address = 0;
      std::size_t bytes = 0;
      unsigned long long shape[3] = {};
      if (const CUresult r2 = cuModuleGetGlobal(&address, &bytes, m->handle, chunks_shape_name);
          r2 != CUDA_SUCCESS || bytes != sizeof shape) {
        result = driver_status("finding its chunk entry's shape (cuModuleGetGlobal)",
                               r2 != CUDA_SUCCESS ? r2 : CUDA_ERROR_NOT_FOUND);
      } else if (const CUresult r3 = cuMemcpyDtoH(shape, address, sizeof shape); r3 != CUDA_SUCCESS) {
        result = driver_status("reading its chunk entry's shape (cuMemcpyDtoH)", r3);
      } else if (cudaDeviceGetAttribute(&m->sm_count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        const cudaError_t e = cudaGetLastError();
        result = streamscan::cuda::detail::cuda_status(fn, "querying the SM count", e);
      } else {
        m->chunks.threads = static_cast<int>(shape[0]);
        m->chunks.width = static_cast<std::int64_t>(shape[1]);
        m->chunks.min_rows_per_sm = static_cast<std::int64_t>(shape[2]);
      }
    } else if (r != CUDA_ERROR_NOT_FOUND) {
      result = driver_status("finding its chunk entry (cuModuleGetFunction)", r);
    } else {
      m->chunks_kernel = nullptr;
    }
  }
  if (previous >= 0) cudaSetDevice(previous);
  if (!result) {
    if (m->handle) cuModuleUnload(m->handle);
    return result;
  }
  handle = reinterpret_cast<std::uintptr_t>(m.release());  // kept for the process: the Python side caches it
  return status::ok();
}

status rtc_zip_scan(const rtc_zip_scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l) {
  using namespace rtc_detail;
  namespace cd = streamscan::cuda::detail;
  const module& m = *reinterpret_cast<const module*>(a.handle);
  const std::size_t fields = a.in.size();
  if (fields < 1 || fields > static_cast<std::size_t>(cd::zip_max_fields) || a.out.size() != fields)
    return streamscan::detail::invalid_argument(fn, "1 to 16 fields, one output address a field");
  if (a.rows < 0 || a.length < 0) return streamscan::detail::invalid_argument(fn, "negative rows or length");
  const std::int64_t n = a.rows * a.length;
  if (m.chunks_kernel != nullptr && n > 0 && m.chunks.fits(a.rows, a.length, m.sm_count)) {
    // One warp a row: no temp storage.
    if (temp == nullptr) {
      temp_bytes = 0;
      return status::ok();
    }
    const std::int64_t blocks = m.chunks.blocks(a.rows);
    if (blocks > 0x7fffffff) return streamscan::detail::invalid_argument(fn, "too many rows for one grid");
    context ctx(l);
    if (!ctx.state) return ctx.state;
    cd::zip_pointers in{}, out{};
    for (std::size_t i = 0; i < fields; ++i) {
      in.field[i] = reinterpret_cast<void*>(a.in[i]);
      out.field[i] = reinterpret_cast<void*>(a.out[i]);
    }
    long long rows = a.rows, length = a.length;
    void* args[] = {&in, &out, &rows, &length};
    if (const CUresult r = cuLaunchKernel(m.chunks_kernel, static_cast<unsigned>(blocks), 1, 1,
                                          static_cast<unsigned>(m.chunks.threads), 1, 1, 0,
                                          reinterpret_cast<CUstream>(l.stream), args, nullptr);
        r != CUDA_SUCCESS)
      return driver_status("launching the scan, one warp a row (cuLaunchKernel)", r);
    return status::ok();
  }
  const cd::zip_scan_plan& plan = m.plan;
  const std::int64_t tiles = plan.tiles(n);
  const std::size_t required = plan.temp_bytes(n);
  if (temp == nullptr) {
    temp_bytes = required;
    return status::ok();
  }
  if (temp_bytes < required)
    return status(errc::temp_storage_too_small,
                  std::string(fn) + ": temp storage of " + std::to_string(temp_bytes) + " bytes, " +
                      std::to_string(required) + " needed");
  if (n == 0) return status::ok();
  if (tiles > 0x7fffffff) return streamscan::detail::invalid_argument(fn, "too many tiles for one grid");
  context ctx(l);
  if (!ctx.state) return ctx.state;
  const auto stream = reinterpret_cast<cudaStream_t>(l.stream);
  auto* bytes = static_cast<unsigned char*>(temp);
  if (status s = cd::reset_tile_words(fn, bytes, plan.reset_bytes(n), stream); !s) return s;
  cd::zip_pointers in{}, out{};
  for (std::size_t i = 0; i < fields; ++i) {
    in.field[i] = reinterpret_cast<void*>(a.in[i]);
    out.field[i] = reinterpret_cast<void*>(a.out[i]);
  }
  long long n_arg = n, length = a.length, lead = plan.lead(n), tiles_arg = tiles;
  void* status_words = bytes + cd::tile_counter_bytes;
  auto* counter = reinterpret_cast<unsigned long long*>(bytes);
  void* args[] = {&in, &out, &n_arg, &length, &lead, &status_words, &tiles_arg, &counter};
  if (const CUresult r = cuLaunchKernel(m.kernel, static_cast<unsigned>(tiles), 1, 1, static_cast<unsigned>(plan.threads),
                                        1, 1, 0, reinterpret_cast<CUstream>(stream), args, nullptr);
      r != CUDA_SUCCESS)
    return driver_status("launching the scan (cuLaunchKernel)", r);
  return status::ok();
}

}  // namespace streamscan::python
