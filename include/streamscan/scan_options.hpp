// streamscan/scan_options.hpp - run-time choices shared by every back end.
#pragma once

namespace streamscan {

// Which device-wide scan algorithm runs. Every strategy gives the same result
// for associative operators (floating-point sums may differ in rounding).
enum class scan_strategy {
  automatic,         // the library picks (today reduce_then_scan: fewer bytes, and faster where measured)
  reduce_then_scan,  // seed 000 fig. 2: reduce partitions, scan partials, scan with prefix (~3n traffic)
  scan_then_add,     // seed 000 fig. 1: scan partitions, scan partials, add prefixes (~4n traffic);
                     // reads the output back, so it needs a readable output iterator
};

inline const char* to_string(scan_strategy s) noexcept {
  switch (s) {
    case scan_strategy::automatic: return "automatic";
    case scan_strategy::reduce_then_scan: return "reduce_then_scan";
    case scan_strategy::scan_then_add: return "scan_then_add";
  }
  return "unknown";
}

struct scan_options {
  scan_strategy strategy = scan_strategy::automatic;
};

}  // namespace streamscan
