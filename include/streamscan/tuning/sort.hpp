// streamscan/tuning/sort.hpp - the radix sort's kernel shapes. No CUDA.
//
// Onesweep ([Onesweep]): a tile of threads x items keys is ranked by 8-bit
// digit, staged in shared memory and scattered once; one status word per
// (tile, digit) carries the look-back. The histogram pass reads every key once and
// counts the digits of every pass.
#pragma once

namespace streamscan::tuning {

struct onesweep_shape {
  int threads;     // per block; at least 2^radix_bits (a thread owns a digit)
  int items;       // keys per thread
  int radix_bits;  // digit width of a pass
  int min_blocks;  // blocks per SM the registers must allow (occupancy)
  constexpr int tile_items() const { return threads * items; }
};

struct radix_histogram_shape {
  int threads;
  int items;            // consecutive keys per thread and step (whole 16-byte loads)
  int blocks_per_sm;    // grid: blocks_per_sm x SMs, each striding over its part
};

// Keys of key_bytes bytes with values of value_bytes (0: keys only). The
// tile is staged in shared memory (the keys, then the values in their
// place): large tiles spread the per-tile work (counter scan, look-back)
// over more keys.
constexpr onesweep_shape onesweep_shape_for(int key_bytes, int value_bytes) {
  if (key_bytes <= 4 && value_bytes == 0) return {512, 20, 8, 2};
  if (key_bytes <= 4 && value_bytes <= 4) return {512, 16, 8, 2};
  if (key_bytes <= 8 && value_bytes == 0) return {384, 20, 8, 2};
  const int fit = 65536 / (384 * (key_bytes + value_bytes));
  return {384, fit < 1 ? 1 : (fit > 16 ? 16 : fit), 8, fit < 4 ? 1 : 2};
}

// The histogram pass: 8 keys a thread and step (16 for 1-byte keys: whole
// 16-byte loads), 4 blocks a SM (each holds 32 KB of counters).
constexpr radix_histogram_shape radix_histogram_shape_for(int key_bytes) { return {256, key_bytes == 1 ? 16 : 8, 4}; }

}  // namespace streamscan::tuning
