// streamscan/detail/select_validate.hpp - the strategy check of every select
// call (compaction, partition, split), shared by every back end. No CUDA.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "../select.hpp"
#include "../status.hpp"

namespace streamscan::detail {

// The strategy a call runs (automatic: stable), or an error: a value this
// build does not know, or a compaction strategy asked of partition or split
// (`compaction` false), which always run the stable one.
inline status resolve_select_strategy(const char* fn, select_strategy asked, bool compaction, select_strategy& runs) {
  switch (asked) {
    case select_strategy::automatic: runs = select_strategy::stable; break;
    case select_strategy::stable:
    case select_strategy::multi_level:
    case select_strategy::hybrid:
    case select_strategy::warp_atomic: runs = asked; break;
    default: return invalid_argument(fn, "argument 'options.strategy' is not a strategy this build knows");
  }
  if (!compaction && runs != select_strategy::stable)
    return invalid_argument(fn, std::string("argument 'options.strategy': ") + to_string(runs) +
                                    " is a compaction strategy; partition, split and split_and_segment run the stable one");
  return status::ok();
}

// select_indices writes indices up to n - 1 as out's value type: a type that
// cannot hold them all is refused (an index that wrapped would name another
// element), whatever the flags select.
template <class Index>
status validate_index_type(const char* fn, std::int64_t n) {
  using limits = std::numeric_limits<Index>;
  const auto largest = static_cast<std::uint64_t>(limits::max());
  if (n > 1 && static_cast<std::uint64_t>(n - 1) > largest)
    return invalid_argument(fn, "argument 'out': its value type holds indices up to " + std::to_string(largest) +
                                    ", fewer than n - 1 = " + std::to_string(n - 1) + "; use a wider index type");
  return status::ok();
}

}  // namespace streamscan::detail
