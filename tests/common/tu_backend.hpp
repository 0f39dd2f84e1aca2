// The back end a test translation unit is built for, for bad-input tests that
// call it directly with arguments no adapter passes (buffers that alias one
// another, a null half of a double_buffer, sizes the arrays do not have): nvcc
// builds the CUDA back end, on device memory; other compilers the CPU back
// end, on host memory. Such calls name tu_backend::api and leave the stream
// and the options at their defaults, so that one text compiles against both.
#pragma once

#include <cstddef>
#include <vector>

#ifdef __CUDACC__
#include <streamscan/cuda.cuh>

#include "cuda_helpers.cuh"
#else
#include <streamscan/cpu.hpp>
#endif

namespace streamscan_test::tu_backend {

#ifdef __CUDACC__
namespace api = streamscan::cuda;
inline constexpr const char* name = "cuda";
#else
namespace api = streamscan::cpu;
inline constexpr const char* name = "cpu";
#endif

// An array the back end reads and writes, made from host values; values()
// reads it back once the back end's work is done.
#ifdef __CUDACC__
template <class T>
class array {
 public:
  explicit array(const std::vector<T>& values) : memory_(values.size()) { memory_.upload(values); }
  T* data() { return memory_.get(); }
  std::vector<T> values() const {
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<T> v;
    memory_.download(v);
    return v;
  }

 private:
  device_buffer<T> memory_;
};
#else
template <class T>
class array {
 public:
  explicit array(const std::vector<T>& values) : memory_(values) {}
  T* data() { return memory_.data(); }
  std::vector<T> values() const { return memory_; }

 private:
  std::vector<T> memory_;
};
#endif

}  // namespace streamscan_test::tu_backend
