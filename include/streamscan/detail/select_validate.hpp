// streamscan/detail/select_validate.hpp - the strategy check of every select
// call (compaction, partition, split), shared by every back end. No CUDA.
#pragma once

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

}  // namespace streamscan::detail
