// streamscan/scan_options.hpp - run-time choices shared by every back end.
#pragma once

#include <cstring>
#include <initializer_list>

namespace streamscan {

// Which device-wide scan algorithm runs. Every strategy gives the same result
// for associative operators (floating-point sums may differ in rounding).
enum class scan_strategy {
  automatic,         // the library picks: decoupled_lookback on the GPU (fastest where measured),
                     // reduce_then_scan on the CPU
  reduce_then_scan,  // [StreamScan] fig. 2: reduce partitions, scan partials, scan with prefix (~3n traffic)
  scan_then_add,     // [StreamScan] fig. 1: scan partitions, scan partials, add prefixes (~4n traffic);
                     // reads the output back, so it needs a readable output iterator
  chained,           // [StreamScan]: single pass (~2n), each tile waits for its predecessor's
                     // prefix only; floating-point results are run-to-run deterministic
  decoupled_lookback,  // [LookbackReport] / [DecoupledLookback]: single pass (~2n), a warp looks back over
                       // many predecessors at once; groups them in a way fixed in advance
                       // (windows of 32 tiles), so it is run-to-run deterministic as well
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

// The strategy of that name ("chained", ...); false when there is none.
inline bool strategy_from_string(const char* name, scan_strategy& out) noexcept {
  for (const scan_strategy s : {scan_strategy::automatic, scan_strategy::reduce_then_scan, scan_strategy::scan_then_add,
                                scan_strategy::chained, scan_strategy::decoupled_lookback}) {
    if (name != nullptr && std::strcmp(name, to_string(s)) == 0) {
      out = s;
      return true;
    }
  }
  return false;
}

struct scan_options {
  scan_strategy strategy = scan_strategy::automatic;
  // Which compiled-in parameter set (policy) the strategy runs with, by name
  // (tuning/scan.hpp lists them; `streamscan tune --list` prints them):
  //   nullptr    the tuning file's choice for this GPU, value size and n, if it
  //              has one (tuning.hpp), else the built-in default;
  //   "default"  the built-in default, whatever the tuning file says;
  //   a name     that candidate, e.g. "t256x12" (an unknown name is an error).
  // The GPU back end reads it; the CPU back end has no policies and ignores it.
  const char* policy = nullptr;
};

}  // namespace streamscan
