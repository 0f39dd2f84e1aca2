// Shared pieces of the size sweeps (test_cuda_sweep): one arena of device
// memory carved per case (tens of GiB; allocating per case would cost more
// than the cases), inputs hashed from the index on the device (no host copy,
// regenerable for checks), guard bytes after every output, and counters the
// check kernels add to.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_helpers.cuh"
#include "random.hpp"

namespace streamscan_test::sweep {

// The sizes every sweep visits: both sides of 2^30 (the onesweep's 30-bit
// look-back), past 2^31 (int) and past 2^32 (unsigned).
inline std::vector<std::int64_t> sizes() {
  return {(std::int64_t{1} << 30) - 1, (std::int64_t{1} << 30) + 1, (std::int64_t{1} << 31) + 17,
          (std::int64_t{1} << 32) + 17};
}
inline std::string log2_name(std::int64_t n) {
  for (const auto& [base, name] : {std::pair<std::int64_t, const char*>{std::int64_t{1} << 32, "2^32"},
                                   {std::int64_t{1} << 31, "2^31"},
                                   {std::int64_t{1} << 30, "2^30"}}) {
    const std::int64_t d = n - base;
    if (d > -1000 && d < 1000) return std::string(name) + (d >= 0 ? "+" : "") + std::to_string(d);
  }
  return std::to_string(n);
}

// splitmix64 of (salt, i): the test's inputs, recomputed wherever needed.
__host__ __device__ inline std::uint64_t hash64(std::uint64_t salt, std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + salt;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline constexpr std::size_t guard_bytes = 256;
inline constexpr unsigned char guard_byte = 0xA7;

// One cudaMalloc for the whole sweep: as much as is free less a reserve;
// cases take aligned slices and give them all back at the end of the case.
class arena {
 public:
  arena() {
    std::size_t free_bytes = 0, total = 0;
    STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total));
    // 3 GiB for what the library and CUDA take outside it: a launch that
    // needs more local memory than is reserved grows the reservation (a GiB
    // or more for a kernel with a deep stack on 132 SMs), the counters.
    const std::size_t reserve = std::size_t{3} << 30;
    size_ = free_bytes > reserve ? free_bytes - reserve : 0;
    if (size_ > 0 && cudaMalloc(&base_, size_) != cudaSuccess) {
      cudaGetLastError();
      base_ = nullptr;
      size_ = 0;
    }
  }
  ~arena() {
    if (base_) cudaFree(base_);
  }
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;

  std::size_t capacity() const { return size_; }
  void reset() { used_ = 0; }
  // n elements of T and guard_bytes after them (set to guard_byte), or null
  // when the arena is full.
  template <class T>
  T* take(std::int64_t n, bool guarded = true) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T) + (guarded ? guard_bytes : 0);
    const std::size_t at = (used_ + 255) / 256 * 256;
    if (at + bytes > size_) return nullptr;
    used_ = at + bytes;
    T* p = reinterpret_cast<T*>(static_cast<unsigned char*>(base_) + at);
    if (guarded)
      STREAMSCAN_TEST_CUDA(cudaMemset(reinterpret_cast<unsigned char*>(p + n), guard_byte, guard_bytes));
    return p;
  }
  static bool fits(std::size_t bytes_needed, std::size_t capacity) { return bytes_needed + (64u << 20) <= capacity; }

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0, used_ = 0;
};

// Runs a two-phase call `call(temp, temp_bytes)` with its temp storage from
// the arena: false (nothing run) when the arena cannot hold it.
template <class Call>
bool run_two_phase(arena& a, Call call) {
  std::size_t bytes = 0;
  const auto query = call(nullptr, bytes);
  EXPECT_TRUE(query.is_ok()) << query.message();
  void* temp = a.take<unsigned char>(static_cast<std::int64_t>(bytes), false);
  if (temp == nullptr) return false;
  const auto s = call(temp, bytes);
  EXPECT_TRUE(s.is_ok()) << s.message();
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  return true;
}

// Whether the guard_bytes after p[n] are untouched.
template <class T>
bool guard_intact(const T* p, std::int64_t n) {
  unsigned char g[guard_bytes];
  STREAMSCAN_TEST_CUDA(cudaMemcpy(g, reinterpret_cast<const unsigned char*>(p + n), guard_bytes,
                                  cudaMemcpyDeviceToHost));
  for (unsigned char b : g)
    if (b != guard_byte) return false;
  return true;
}

// Counters the check kernels add to (device memory, zeroed per case).
class counters {
 public:
  explicit counters(int count) : buf_(static_cast<std::size_t>(count)), count_(count) { clear(); }
  unsigned long long* get() const { return buf_.get(); }
  void clear() { STREAMSCAN_TEST_CUDA(cudaMemset(buf_.get(), 0, sizeof(unsigned long long) * count_)); }
  std::vector<unsigned long long> read() const {
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned long long> v;
    buf_.download(v);
    return v;
  }

 private:
  device_buffer<unsigned long long> buf_;
  int count_;
};

// A counter slot used as the maximum of non-negative values (it starts at
// 0.0): the bit patterns of non-negative doubles order as the values do, and a
// NaN (its sign cleared by fabs) lies above infinity, so it shows.
__device__ inline void atomic_max_nonneg(unsigned long long* slot, double v) {
  atomicMax(slot, static_cast<unsigned long long>(__double_as_longlong(fabs(v))));
}
inline double as_double(unsigned long long bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

inline int grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + 255) / 256;
  return static_cast<int>(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

template <int = 0>
__global__ void count_bytes_unlike(const unsigned char* p, std::int64_t bytes, unsigned char byte,
                                   unsigned long long* count) {
  unsigned long long here = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < bytes;
       i += std::int64_t{gridDim.x} * blockDim.x)
    here += p[i] != byte;
  if (here) atomicAdd(count, here);
}

// How many of the bytes at p differ from `byte`: whether a call that failed
// left an output it was given (filled with `byte`) untouched.
inline unsigned long long bytes_unlike(const void* p, std::size_t bytes, unsigned char byte) {
  counters count(1);
  count_bytes_unlike<<<grid_for(static_cast<std::int64_t>(bytes)), 256>>>(static_cast<const unsigned char*>(p),
                                                                        static_cast<std::int64_t>(bytes), byte,
                                                                        count.get());
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  return count.read()[0];
}

// One line per case on stdout, so that a sweep's log shows what ran, what
// was skipped (too little memory) and how long each took.
class case_log {
 public:
  explicit case_log(std::string name) : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  // note: what the check measured (an error bound met, say), shown after the time.
  void done(bool ok, const std::string& note = "") const {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::printf("sweep %-60s %s %.2f s%s%s\n", name_.c_str(), ok ? "ok" : "FAILED", s, note.empty() ? "" : "; ",
                note.c_str());
    std::fflush(stdout);
  }
  static void skipped(const std::string& name) {
    std::printf("sweep %-60s skipped: more than the arena holds\n", name.c_str());
    std::fflush(stdout);
  }
  static void skipped(const std::string& name, std::size_t need, std::size_t have) {
    std::printf("sweep %-60s skipped: needs %.1f GiB, the arena holds %.1f GiB\n", name.c_str(), need / 1073741824.0,
                have / 1073741824.0);
    std::fflush(stdout);
  }
  // Skipped for another reason than memory (a run of minutes, say).
  static void skipped(const std::string& name, const std::string& why) {
    std::printf("sweep %-60s skipped: %s\n", name.c_str(), why.c_str());
    std::fflush(stdout);
  }

 private:
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace streamscan_test::sweep
