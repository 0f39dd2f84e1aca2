// Small CUDA helpers for tests: checked calls, RAII device buffers, GPU detection.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace streamscan_test {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define STREAMSCAN_TEST_CUDA(call) ::streamscan_test::cuda_check((call), #call)

inline bool gpu_present() {
  static const bool present = [] {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    cudaGetLastError();
    return ok;
  }();
  return present;
}

template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t n) : n_(n) {
    if (n > 0) STREAMSCAN_TEST_CUDA(cudaMalloc(&p_, n * sizeof(T)));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p_) cudaFree(p_);
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  // Waits for the copy to land: cudaMemcpy from pageable memory may return
  // before its DMA is done, and the tests' non-blocking stream would not wait.
  void upload(const std::vector<T>& v) {
    if (v.empty()) return;
    STREAMSCAN_TEST_CUDA(cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  }
  void download(std::vector<T>& v) const {
    v.resize(n_);
    if (n_ > 0) STREAMSCAN_TEST_CUDA(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

// Whether the current GPU can dereference plain host memory (HMM/ATS): the
// host-pointer checks have nothing to refuse there.
inline bool gpu_reads_pageable_memory() {
  int pageable = 0, device = 0;
  STREAMSCAN_TEST_CUDA(cudaGetDevice(&device));
  STREAMSCAN_TEST_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  return pageable != 0;
}

// A non-default stream shared by the tests: the library must honour it.
inline cudaStream_t test_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    STREAMSCAN_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

// Checked-mode tests: uploads offsets o (m + 1 of them) and poisons out, runs
// call(device offsets, m) (which throws streamscan::error on bad offsets),
// and returns the error's message ("" for none) and out afterwards.
template <class T, class Call>
std::pair<std::string, std::vector<T>> run_on_device_offsets(const std::vector<std::int64_t>& o,
                                                             device_buffer<T>& out, const std::vector<T>& poison,
                                                             Call call) {
  device_buffer<std::int64_t> d_o(o.size());
  d_o.upload(o);
  out.upload(poison);
  std::string message;
  try {
    call(static_cast<const std::int64_t*>(d_o.get()), static_cast<std::int64_t>(o.size()) - 1);
  } catch (const std::exception& e) {
    message = e.what();
  }
  STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
  std::vector<T> after;
  out.download(after);
  return {message, after};
}

}  // namespace streamscan_test
