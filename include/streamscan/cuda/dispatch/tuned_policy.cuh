// streamscan/cuda/dispatch/tuned_policy.cuh - which compiled-in shape a call
// of any algorithm runs with: the caller's policy name, else the tuning
// file's entry for this GPU (tuning.hpp), else the built-in default
// (tuning/choose.hpp); and the switch from that run-time index to a
// compile-time shape.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../../tuning.hpp"
#include "../../tuning/choose.hpp"
#include "../util/runtime.cuh"

namespace streamscan::cuda::detail {

struct gpu_identity {
  bool known = false;
  std::string name;
  int cc = 0;
};

// Name and compute capability of a device, queried once per device and
// process (cudaGetDeviceProperties costs far more than a scan of small n).
// Every call of every algorithm asks, so it hands out a pointer to the cached
// entry, not a copy of the name (a deque keeps entries in place as it grows).
inline status identify_gpu(const char* fn, int device, const gpu_identity*& out) {
  static std::mutex m;
  static std::deque<gpu_identity> known;
  std::lock_guard<std::mutex> lock(m);
  if (device >= 0 && static_cast<std::size_t>(device) < known.size() && known[device].known) {
    out = &known[device];
    return status::ok();
  }
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, "cudaGetDeviceProperties (looking up the tuning file)", e);
  }
  if (known.size() <= static_cast<std::size_t>(device)) known.resize(device + 1);
  known[device] = gpu_identity{true, prop.name, prop.major * 10 + prop.minor};
  out = &known[device];
  return status::ok();
}

// Where a call's policy came from, for `describe` and the bench table.
enum class policy_source { fixed, default_policy, caller, tuning_file };

inline const char* to_string(policy_source s) {
  switch (s) {
    case policy_source::fixed: return "fixed";
    case policy_source::default_policy: return "default";
    case policy_source::caller: return "options.policy";
    case policy_source::tuning_file: return "tuning file";
  }
  return "unknown";
}

struct chosen_policy {
  int index = 0;
  policy_source source = policy_source::default_policy;
};

// Checks a caller's policy name (nullptr or "default": none) against the
// candidates of `alg` for values of `value_bytes`; `argument` names the
// option in the error ("options.policy", "options.scan.policy"). No device
// is asked, so a size query reports a bad name too.
inline status check_policy_name(const char* fn, const char* argument, tuning::algorithm alg,
                                std::size_t value_bytes, const char* requested, int& index) {
  index = -1;
  if (requested == nullptr || std::string(requested) == "default") return status::ok();
  index = tuning::candidate_index(alg, value_bytes, requested);
  if (index >= 0) return status::ok();
  const std::string names = tuning::candidate_names(alg, value_bytes);
  return streamscan::detail::invalid_argument(
      fn, std::string("argument '") + argument + "' names '" + requested + "', which is not a policy of " +
              tuning::to_string(alg) + " for " + std::to_string(value_bytes) + "-byte values (it has: " +
              (names.empty() ? std::string("none but \"default\"") : names) + ")");
}

// The candidate of `alg` a call of n values runs with on `device`: the
// caller's name, else the tuning file's entry for this GPU, value size,
// operator class and n, else the built-in default (tuning::default_for).
// `cc_cap` caps the compute capability the default may assume (0: the call
// cannot use the pipelined kernels whatever the GPU).
inline status choose_policy(const char* fn, const char* argument, tuning::algorithm alg, std::size_t value_bytes,
                            const char* op_class, std::int64_t n, const char* requested, int device,
                            chosen_policy& out, int cc_cap = 1 << 30) {
  const tuning::candidate_list list = tuning::candidates_for(alg, value_bytes);
  int named = -1;
  if (status s = check_policy_name(fn, argument, alg, value_bytes, requested, named); !s) return s;
  if (named >= 0) {
    out = chosen_policy{named, policy_source::caller};
    return status::ok();
  }
  const gpu_identity* gpu = nullptr;
  if (status st = identify_gpu(fn, device, gpu); !st) return st;
  out = chosen_policy{tuning::default_for(alg, value_bytes, n, gpu->cc < cc_cap ? gpu->cc : cc_cap),
                      list.count == 0 ? policy_source::fixed : policy_source::default_policy};
  if (list.count == 0 || (requested != nullptr && std::string(requested) == "default")) return status::ok();
  const auto file = streamscan::tuning::active();
  if (file->state != streamscan::tuning::load_result::loaded || file->contents.entries.empty()) return status::ok();
  const streamscan::tuning::entry* e =
      streamscan::tuning::find(file->contents, gpu->name, gpu->cc, alg, static_cast<int>(value_bytes), op_class, n);
  if (e != nullptr) out = chosen_policy{tuning::candidate_index(alg, value_bytes, e->policy), policy_source::tuning_file};
  return status::ok();
}

// Calls f(std::integral_constant<int, I>{}) for I == index, 0 <= index < N.
template <int N, class F, int... I>
status visit_candidate_impl(int index, F& f, std::integer_sequence<int, I...>) {
  status s = status::ok();
  ((index == I ? (void)(s = f(std::integral_constant<int, I>{})) : (void)0), ...);
  return s;
}
template <int N, class F>
status visit_candidate(int index, F&& f) {
  return visit_candidate_impl<N>(index, f, std::make_integer_sequence<int, N>{});
}

}  // namespace streamscan::cuda::detail
