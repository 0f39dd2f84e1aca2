// streamscan/cuda/dispatch/tuned_policy.cuh - which compiled-in candidate
// policy a call runs with: the caller's `options.policy`, else the tuning
// file's entry for this GPU (tuning.hpp), else the built-in default; and the
// switch from that run-time index to a compile-time policy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../detail/tuning_space.hpp"
#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../../tuning.hpp"
#include "../util/runtime.cuh"

namespace streamscan::cuda::detail {

struct gpu_identity {
  bool known = false;
  std::string name;
  int cc = 0;
};

// Name and compute capability of a device, queried once per device and
// process (cudaGetDeviceProperties costs far more than a scan of small n).
inline status identify_gpu(const char* fn, int device, gpu_identity& out) {
  static std::mutex m;
  static std::vector<gpu_identity> known;
  std::lock_guard<std::mutex> lock(m);
  if (device >= 0 && static_cast<std::size_t>(device) < known.size() && known[device].known) {
    out = known[device];
    return status::ok();
  }
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, "cudaGetDeviceProperties (looking up the tuning file)", e);
  }
  if (known.size() <= static_cast<std::size_t>(device)) known.resize(device + 1);
  known[device] = gpu_identity{true, prop.name, prop.major * 10 + prop.minor};
  out = known[device];
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

// Picks the candidate for strategy `s` (never automatic here). A strategy and
// value size without candidates runs its one fixed policy; naming any policy
// other than "default" for it is an error.
inline status choose_policy(const char* fn, scan_strategy s, std::size_t value_bytes, const char* op_class,
                            std::int64_t n, const char* requested, int device, chosen_policy& out) {
  const streamscan::detail::candidate_set set = streamscan::detail::candidates_for(s, value_bytes);
  out = chosen_policy{set.default_index, set.count == 0 ? policy_source::fixed : policy_source::default_policy};
  if (requested != nullptr) {
    if (std::string(requested) == "default") return status::ok();
    const int i = streamscan::detail::candidate_index(s, value_bytes, requested);
    if (i < 0) {
      std::string names;
      for (int k = 0; k < set.count; ++k) names += (k ? ", " : "") + streamscan::detail::candidate_name(s, value_bytes, k);
      return streamscan::detail::invalid_argument(
          fn, std::string("argument 'options.policy' names '") + requested + "', which is not a policy of " +
                  to_string(s) + " for " + std::to_string(value_bytes) + "-byte values (it has: " +
                  (names.empty() ? std::string("none but \"default\"") : names) + ")");
    }
    out = chosen_policy{i, policy_source::caller};
    return status::ok();
  }
  if (set.count == 0) return status::ok();
  const auto file = streamscan::tuning::active();
  if (file->state != streamscan::tuning::load_result::loaded || file->contents.entries.empty()) return status::ok();
  gpu_identity gpu;
  if (status st = identify_gpu(fn, device, gpu); !st) return st;
  const streamscan::tuning::entry* e = streamscan::tuning::find(file->contents, gpu.name, gpu.cc, s,
                                                                static_cast<int>(value_bytes), op_class, n);
  if (e != nullptr) out = chosen_policy{streamscan::detail::candidate_index(s, value_bytes, e->policy), policy_source::tuning_file};
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
