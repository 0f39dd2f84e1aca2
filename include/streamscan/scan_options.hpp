// streamscan/scan_options.hpp - run-time choices shared by every back end.
#pragma once

namespace streamscan {

// Which device-wide scan algorithm runs. Every strategy gives the same result
// for associative operators (floating-point sums may differ in rounding).
enum class scan_strategy {
  automatic,         // the library picks: decoupled_lookback on the GPU (fastest where measured),
                     // reduce_then_scan on the CPU
  reduce_then_scan,  // seed 000 fig. 2: reduce partitions, scan partials, scan with prefix (~3n traffic)
  scan_then_add,     // seed 000 fig. 1: scan partitions, scan partials, add prefixes (~4n traffic);
                     // reads the output back, so it needs a readable output iterator
  chained,           // seed 000 StreamScan: single pass (~2n), each tile waits for its predecessor's
                     // prefix only; floating-point results are run-to-run deterministic
  decoupled_lookback,  // seed 001 / Merrill & Garland: single pass (~2n), a warp looks back over
                       // many predecessors at once; folds them left to right, so it is
                       // run-to-run deterministic as well
};

inline const char* to_string(scan_strategy s) noexcept {
  switch (s) {
    case scan_strategy::automatic: return "automatic";
    case scan_strategy::reduce_then_scan: return "reduce_then_scan";
    case scan_strategy::scan_then_add: return "scan_then_add";
    case scan_strategy::chained: return "chained";
    case scan_strategy::decoupled_lookback: return "decoupled_lookback";
  }
  return "unknown";
}

struct scan_options {
  scan_strategy strategy = scan_strategy::automatic;
};

}  // namespace streamscan
