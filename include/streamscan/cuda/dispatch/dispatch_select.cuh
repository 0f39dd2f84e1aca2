// streamscan/cuda/dispatch/dispatch_select.cuh - compaction, partition and
// split as a single-pass exclusive count scan whose output scatters
// (detail/select_iterators.hpp). The count is 32-bit below 2^32 elements (so
// the look-back packs it with its flag in one 64-bit status word), 64-bit
// above. Partition and split first count the kept elements (the same scan,
// writing only the total), then scatter.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../detail/select_iterators.hpp"
#include "../../detail/validate.hpp"
#include "../../select.hpp"
#include "../../status.hpp"
#include "../util/runtime.cuh"
#include "dispatch_scan.cuh"

namespace streamscan::cuda::detail {

// Runs the count scan over n positions with `keep` and the scattering output;
// temp == nullptr answers the size. The scan is the decoupled look-back. The
// scatter re-reads each moved element after the look-back, when a later tile
// may already have written into this tile's range: so no call runs in place.
template <class C, class Keep, class Move>
status count_and_scatter(const char* fn, void* temp, std::size_t& temp_bytes, Keep keep, Move move, std::int64_t n,
                         std::int64_t capacity, const std::int64_t* rejected_from, std::int64_t* total_out,
                         cudaStream_t stream) {
  const streamscan::detail::keep_count_input<Keep, C> counts(keep);
  const streamscan::detail::scatter_output<Keep, Move, C> scatter(keep, move, n, capacity, rejected_from, total_out);
  return dispatch_scan<C>(fn, temp, temp_bytes, counts, scatter, n, streamscan::plus{}, maybe<C>{C(0), true},
                          scan_mode::exclusive, stream, scan_options{scan_strategy::decoupled_lookback});
}

template <class Keep, class Move>
status count_and_scatter_sized(const char* fn, void* temp, std::size_t& temp_bytes, Keep keep, Move move,
                               std::int64_t n, std::int64_t capacity, const std::int64_t* rejected_from,
                               std::int64_t* total_out, cudaStream_t stream) {
  if (n < (std::int64_t{1} << 32) - 1)
    return count_and_scatter<std::uint32_t>(fn, temp, temp_bytes, keep, move, n, capacity, rejected_from, total_out,
                                            stream);
  return count_and_scatter<std::uint64_t>(fn, temp, temp_bytes, keep, move, n, capacity, rejected_from, total_out,
                                          stream);
}

template <class InIt, class OutIt>
status refuse_in_place(const char* fn, const InIt& in, const OutIt& out, std::int64_t n) {
  if constexpr (std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>) {
    if (n > 0 && static_cast<const void*>(in) == static_cast<const void*>(out))
      return streamscan::detail::invalid_argument(fn, "arguments 'in' and 'out' are the same: this call cannot run in place");
  }
  return status::ok();
}

inline status check_select_strategy(const char* fn, select_options opt) {
  if (opt.strategy == select_strategy::automatic || opt.strategy == select_strategy::stable) return status::ok();
  return streamscan::detail::invalid_argument(
      fn, std::string("argument 'options.strategy': ") + to_string(opt.strategy) +
              " is not available on the GPU back end yet (stable is)");
}

// One dispatcher for every call. Compaction (place_rejected false): kept
// elements to out[0, min(kept, capacity)), one pass. Partition / split
// (place_rejected true, capacity n): a counting pass writes the kept total to
// *num_selected, then the scatter places kept elements from 0 and rejected
// ones after them. *num_selected (device memory) ends as the kept count.
template <class InIt, class OutIt, class Keep, class Move>
status dispatch_select(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                       std::int64_t capacity, std::int64_t* num_selected, Keep keep, Move move, bool place_rejected,
                       cudaStream_t stream, select_options opt) {
  if (status s = check_select_strategy(fn, opt); !s) return s;
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (capacity < 0)
    return streamscan::detail::invalid_argument(fn, "argument 'capacity' is negative (" + std::to_string(capacity) + ")");
  if (temp != nullptr && num_selected == nullptr)
    return streamscan::detail::invalid_argument(fn, "argument 'num_selected' is a null pointer");
  if (status s = refuse_in_place(fn, in, out, n); !s) return s;
  // Both passes are the same scan: one temp size serves them.
  std::size_t inner = 0;
  if (status s = count_and_scatter_sized(fn, nullptr, inner, keep, move, n, capacity, nullptr, num_selected, stream);
      !s)
    return s;
  if (temp == nullptr) {
    temp_bytes = inner;
    return status::ok();
  }
  if (status s = streamscan::detail::validate_temp_bytes(fn, temp_bytes, inner); !s) return s;
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  if (status s = check_device_accessible(fn, "num_selected", num_selected, facts); !s) return s;
  if (n == 0) {
    if (const cudaError_t e = cudaMemsetAsync(num_selected, 0, sizeof(std::int64_t), stream); e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "writing num_selected (cudaMemsetAsync)", e);
    }
    return status::ok();
  }
  if (status s = check_device_accessible(fn, "in", in, facts); !s) return s;
  if (status s = check_device_accessible(fn, "out", out, facts); !s) return s;
  if (!place_rejected)
    return count_and_scatter_sized(fn, temp, temp_bytes, keep, move, n, capacity, nullptr, num_selected, stream);
  // Pass 1 counts (moves nothing: capacity 0, no rejected placement); pass 2 scatters.
  if (status s = count_and_scatter_sized(fn, temp, temp_bytes, keep, move, n, 0, nullptr, num_selected, stream); !s)
    return s;
  return count_and_scatter_sized(fn, temp, temp_bytes, keep, move, n, n, num_selected, nullptr, stream);
}

}  // namespace streamscan::cuda::detail
