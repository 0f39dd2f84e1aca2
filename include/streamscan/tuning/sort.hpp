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
  // Whether a block first asks for the keys (and values) of its own index's
  // tile in L2, before it takes its tile id: ids follow the order blocks
  // start in, about their index, so the tile is on its way while the id is.
  bool prefetch_own_tile = true;
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

// The stable merge of two sorted runs (the sort across ranks): a block merges
// a tile of threads x items outputs, staged in shared memory.
struct merge_shape {
  int threads;
  int items;
};
// Odd items: a thread's outputs, staged at thread * items, fall in distinct banks.
constexpr merge_shape merge_shape_for(int key_bytes, int value_bytes) {
  if (value_bytes == 0) return {256, key_bytes <= 4 ? 15 : 9};
  return {256, key_bytes + value_bytes <= 8 ? 11 : 7};
}

// The sort across ranks finds its splitters a digit of this many bits a
// round: the widest digit (at most 16 bits, at least 8) whose counts, every
// rank's for every boundary, stay within 4 MiB a round.
constexpr int splitter_digit_bits(int ranks) {
  int bits = 16;
  const long long pairs = static_cast<long long>(ranks) * (ranks > 1 ? ranks - 1 : 1);
  while (bits > 8 && pairs * ((1ll << bits) + 1) * 8 > (4ll << 20)) --bits;
  return bits;
}

}  // namespace streamscan::tuning
