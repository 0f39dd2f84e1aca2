// streamscan/cuda/device/device_scan.cuh - public API of the device-wide scans.
//
// Two forms of each call:
//  * two-phase (CUB style): pass temp == nullptr to receive the bytes needed in
//    temp_bytes, then call again with that much device memory. No hidden
//    allocation, no synchronisation; errors come back as a streamscan::status.
//  * convenience: no temp arguments; allocates stream-ordered scratch
//    (cudaMallocAsync) and throws streamscan::error on failure.
// Both are asynchronous with respect to the host. `out == in` is allowed.
// op must be associative; it need not be commutative. The accumulator type
// follows streamscan/accumulator.hpp. Temp storage sized by a query is valid
// for the same n, strategy and device; it needs no particular alignment.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <string>

#include "../../accumulator.hpp"
#include "../../operators.hpp"
#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../dispatch/dispatch_scan.cuh"

namespace streamscan::cuda {

// Elements per tile of a strategy for accumulator type A (tests use it to hit
// tile edges).
template <class A>
constexpr std::int64_t scan_tile_items(scan_strategy strategy = scan_strategy::automatic) {
  const tuning::algorithm a = tuning::algorithm_of(strategy == scan_strategy::automatic
                                                       ? scan_strategy::decoupled_lookback
                                                       : strategy);
  return tuning::candidate_tile_items(a, sizeof(A), tuning::default_for(a, sizeof(A), 0, 0));  // the one-tile default
}

// What a scan would run with: the strategy (`automatic` resolved), the
// candidate policy's name and where that choice came from ("default",
// "fixed", "options.policy" or "tuning file"). A is the accumulator type; the
// current device is asked; the plan is a call's on raw, 16-byte aligned
// pointers of A. Errors as the scan itself would give them.
struct scan_plan {
  scan_strategy strategy = scan_strategy::automatic;
  std::string policy;
  std::string source;
};

template <class A, class Op = streamscan::plus>
[[nodiscard]] status describe_scan(std::int64_t n, scan_options opt, scan_plan& plan, Op = {}) {
  const char* fn = "streamscan::cuda::describe_scan";
  detail::device_facts facts;
  if (status s = detail::current_device_facts(fn, facts); !s) return s;
  detail::chosen_policy chosen;
  if (status s = detail::plan_scan<A, Op>(fn, n, opt, facts, plan.strategy, chosen); !s) return s;
  plan.policy = tuning::candidate_name(tuning::algorithm_of(plan.strategy), sizeof(A), chosen.index);
  if (plan.policy.empty()) plan.policy = "fixed";
  plan.source = detail::to_string(chosen.source);
  return status::ok();
}

// out[i] = in[0] (+) ... (+) in[i]
template <class InIt, class OutIt, class Op = streamscan::plus>
[[nodiscard]] status inclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, Op op = {},
                      cudaStream_t stream = nullptr, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt>;
  return detail::dispatch_scan<A>("streamscan::cuda::inclusive_scan", temp, temp_bytes, in, out, n, op,
                                  detail::maybe<A>{A{}, false}, detail::scan_mode::inclusive, stream, opt);
}

// out[i] = init (+) in[0] (+) ... (+) in[i]
template <class InIt, class OutIt, class Op, class Init>
[[nodiscard]] status inclusive_scan_init(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, Op op,
                           Init init, cudaStream_t stream = nullptr, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::dispatch_scan<A>("streamscan::cuda::inclusive_scan_init", temp, temp_bytes, in, out, n, op,
                                  detail::maybe<A>{static_cast<A>(init), true}, detail::scan_mode::inclusive,
                                  stream, opt);
}

// out[0] = init, out[i] = init (+) in[0] (+) ... (+) in[i-1]
template <class InIt, class OutIt, class Init, class Op = streamscan::plus>
[[nodiscard]] status exclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, Init init,
                      Op op = {}, cudaStream_t stream = nullptr, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::dispatch_scan<A>("streamscan::cuda::exclusive_scan", temp, temp_bytes, in, out, n, op,
                                  detail::maybe<A>{static_cast<A>(init), true}, detail::scan_mode::exclusive,
                                  stream, opt);
}

namespace detail {
// Runs `two_phase(temp, bytes)` with stream-ordered scratch; throws on error.
template <class TwoPhase>
void with_scratch(const char* fn, cudaStream_t stream, TwoPhase two_phase) {
  std::size_t bytes = 0;
  throw_if_error(two_phase(nullptr, bytes));
  void* temp = nullptr;
  if (cudaError_t e = cudaMallocAsync(&temp, bytes, stream); e != cudaSuccess) {
    cudaGetLastError();
    throw error(cuda_status(fn, "cudaMallocAsync of temp storage", e));
  }
  status s = two_phase(temp, bytes);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  throw_if_error(std::move(s));
  if (freed != cudaSuccess) throw error(cuda_status(fn, "cudaFreeAsync of temp storage", freed));
}
}  // namespace detail

template <class InIt, class OutIt, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void inclusive_scan(InIt in, OutIt out, std::int64_t n, Op op = {}, cudaStream_t stream = nullptr,
                    scan_options opt = {}) {
  detail::with_scratch("streamscan::cuda::inclusive_scan", stream, [&](void* temp, std::size_t& bytes) {
    return inclusive_scan(temp, bytes, in, out, n, op, stream, opt);
  });
}

template <class InIt, class OutIt, class Op, class Init,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void inclusive_scan_init(InIt in, OutIt out, std::int64_t n, Op op, Init init, cudaStream_t stream = nullptr,
                         scan_options opt = {}) {
  detail::with_scratch("streamscan::cuda::inclusive_scan_init", stream, [&](void* temp, std::size_t& bytes) {
    return inclusive_scan_init(temp, bytes, in, out, n, op, init, stream, opt);
  });
}

template <class InIt, class OutIt, class Init, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void exclusive_scan(InIt in, OutIt out, std::int64_t n, Init init, Op op = {}, cudaStream_t stream = nullptr,
                    scan_options opt = {}) {
  detail::with_scratch("streamscan::cuda::exclusive_scan", stream, [&](void* temp, std::size_t& bytes) {
    return exclusive_scan(temp, bytes, in, out, n, init, op, stream, opt);
  });
}

}  // namespace streamscan::cuda
