// python/src/backend.hpp - the back end a translation unit is compiled for:
// the library's GPU calls in .cu files, its CPU calls in .cpp files, and the
// one macro that calls either (the GPU's calls take a stream before their
// options, the CPU's do not).
#pragma once

#include "types.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include <streamscan/cuda.cuh>
#define STREAMSCAN_PY_RUN(fn, ctx, opt, ...) ::streamscan::cuda::fn(__VA_ARGS__, (ctx).stream, opt)
#else
#include <streamscan/cpu.hpp>
#define STREAMSCAN_PY_RUN(fn, ctx, opt, ...) ((void)(ctx), ::streamscan::cpu::fn(__VA_ARGS__, opt))
#endif

namespace streamscan::python {

inline status not_compiled(const char* what) {
  return streamscan::detail::invalid_argument("streamscan (Python)", std::string(what) + " is not compiled in");
}

// Sets the call's device for its lifetime (the GPU back end), restoring the
// caller's; holds the stream.
struct context {
#if defined(__CUDACC__)
  cudaStream_t stream = nullptr;
  int previous = -1;
  status state = status::ok();
  explicit context(const launch& l) : stream(reinterpret_cast<cudaStream_t>(l.stream)) {
    if (cudaGetDevice(&previous) != cudaSuccess || (previous != l.device && cudaSetDevice(l.device) != cudaSuccess)) {
      const cudaError_t e = cudaGetLastError();
      state = streamscan::cuda::detail::cuda_status("streamscan (Python)", "cudaSetDevice to the arrays' device", e);
      previous = -1;
    }
  }
  ~context() {
    int now = -1;
    if (previous >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous) cudaSetDevice(previous);
  }
  context(const context&) = delete;
  context& operator=(const context&) = delete;
#else
  status state = status::ok();
  explicit context(const launch&) {}
#endif
};

}  // namespace streamscan::python
