// streamscan/block_scan_algorithm.hpp - how a tile's per-thread totals are
// scanned inside a block: a name shared by the block scans
// (cuda/block/block_scan.cuh) and the shapes that pick one
// (tuning/scan.hpp). No CUDA.
#pragma once

namespace streamscan {

enum class block_scan_algorithm { kogge_stone, brent_kung, raking };

inline const char* to_string(block_scan_algorithm a) noexcept {
  switch (a) {
    case block_scan_algorithm::kogge_stone: return "kogge_stone";
    case block_scan_algorithm::brent_kung: return "brent_kung";
    case block_scan_algorithm::raking: return "raking";
  }
  return "unknown";
}

}  // namespace streamscan
