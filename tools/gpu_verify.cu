// `streamscan verify` on the GPU, and the GPU probe.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/tuning/sort.hpp>

#include "../tests/common/cuda_helpers.cuh"

#include "cuda_timing.cuh"
#include "tool.hpp"
#include "verify_body.hpp"

namespace streamscan_tool {

gpu_probe probe_gpu() {
  gpu_probe p;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    // CUDA reports a machine without a driver as "driver version is
    // insufficient"; say what it means first.
    p.why_not = e == cudaErrorInsufficientDriver ? std::string("no GPU found: no NVIDIA driver (CUDA: ") +
                                                       cudaGetErrorString(e) + ")"
                : e == cudaErrorNoDevice || e == cudaSuccess ? std::string("no GPU found: no CUDA device")
                                                             : std::string("no GPU usable: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return p;
  }
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  p.present = true;
  p.name = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
           std::to_string(prop.multiProcessorCount) + " SMs)";
  return p;
}

namespace {

namespace st = streamscan::tuning;

struct cuda_verify_backend {
  static constexpr const char* name = "cuda";

  std::vector<streamscan::scan_strategy> strategies() const {
    return {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
            streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  }
  std::vector<std::string> policies(streamscan::scan_strategy s, std::size_t value_bytes) const {
    const st::algorithm a = st::algorithm_of(s);
    std::vector<std::string> v;
    for (int i = 0; i < st::candidates_for(a, value_bytes).count; ++i) v.push_back(st::candidate_name(a, value_bytes, i));
    if (v.empty()) v.push_back("default");
    return v;
  }
  template <class A>
  std::int64_t tile_items(streamscan::scan_strategy s, const std::string& policy) const {
    const st::algorithm a = st::algorithm_of(s);
    const int i = st::candidate_index(a, sizeof(A), policy);
    return st::candidate_tile_items(a, sizeof(A), i < 0 ? st::default_for(a, sizeof(A), 0, 0) : i);
  }

  static constexpr std::int64_t large_size = 3000000;
  // The other primitives (verify_primitives.hpp).
  template <class T>
  struct buffer : streamscan_test::device_buffer<T> {
    explicit buffer(const std::vector<T>& from) : streamscan_test::device_buffer<T>(from.size()) { this->upload(from); }
  };
  STREAMSCAN_VERIFY_FORWARDERS(streamscan::cuda, cudaStream_t{}, )
  static std::vector<streamscan::scan_strategy> segmented_strategies() {
    return {streamscan::scan_strategy::automatic, streamscan::scan_strategy::reduce_then_scan,
            streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  }
  static std::vector<streamscan::select_strategy> compaction_strategies() {
    return {streamscan::select_strategy::stable, streamscan::select_strategy::multi_level,
            streamscan::select_strategy::hybrid, streamscan::select_strategy::warp_atomic};
  }
  static std::vector<streamscan::sort_strategy> sort_strategies() {
    return {streamscan::sort_strategy::onesweep, streamscan::sort_strategy::split};
  }
  static std::vector<streamscan::spmv_strategy> spmv_strategies() {
    return {streamscan::spmv_strategy::row_groups, streamscan::spmv_strategy::merge_path,
            streamscan::spmv_strategy::nonzero_split, streamscan::spmv_strategy::segmented_scan};
  }
  static std::vector<streamscan::tridiagonal_strategy> tridiagonal_strategies(std::int64_t n) {
    return streamscan_test::tridiagonal_strategies(n, true);
  }
  template <class A>
  static std::int64_t segmented_tile() {
    return st::segmented_tile_items(st::default_segmented_shape, sizeof(A));
  }
  static std::int64_t select_tile() { return st::select_policy<4>::tile_items; }
  template <class K, int ValueBytes>
  static std::int64_t sort_tile() {
    return st::onesweep_shape_for(static_cast<int>(sizeof(K)), ValueBytes).tile_items();
  }

  template <class A, class Op>
  std::string run(streamscan_test::scan_kind kind, const std::vector<A>& in, std::vector<A>& out, Op op, A init,
                  streamscan::scan_strategy s, const std::string& policy) const {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    const std::size_t bytes = in.size() * sizeof(A);
    A *d_in = nullptr, *d_out = nullptr;
    void* temp = nullptr;
    std::string why;
    auto cuda = [&](cudaError_t e, const char* what) {
      if (e != cudaSuccess && why.empty()) why = std::string(what) + ": " + cudaGetErrorString(e);
      return e == cudaSuccess;
    };
    const ss::scan_options opt{s, policy.c_str()};
    auto invoke = [&](void* t, std::size_t& tb) {
      switch (kind) {
        case streamscan_test::scan_kind::inclusive:
          return ss::cuda::inclusive_scan(t, tb, static_cast<const A*>(d_in), d_out, n, op, nullptr, opt);
        case streamscan_test::scan_kind::inclusive_init:
          return ss::cuda::inclusive_scan_init(t, tb, static_cast<const A*>(d_in), d_out, n, op, init, nullptr, opt);
        default: return ss::cuda::exclusive_scan(t, tb, static_cast<const A*>(d_in), d_out, n, init, op, nullptr, opt);
      }
    };
    std::size_t temp_bytes = 0;
    if (cuda(cudaMalloc(&d_in, bytes + 1), "cudaMalloc") && cuda(cudaMalloc(&d_out, bytes + 1), "cudaMalloc") &&
        cuda(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") &&
        cuda(cudaMemcpy(d_out, out.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy (poisoned output)")) {
      ss::status st = invoke(nullptr, temp_bytes);
      if (st && cuda(cudaMalloc(&temp, temp_bytes), "cudaMalloc")) st = invoke(temp, temp_bytes);
      if (!st) why = st.message();
      if (why.empty() && cuda(cudaDeviceSynchronize(), "kernel"))
        cuda(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(temp);
    return why;
  }
};

}  // namespace

int gpu_verify(const verify_options& o) {
  cuda_verify_backend b;
  return run_verify(b, o.seed, o.progress);
}

}  // namespace streamscan_tool
