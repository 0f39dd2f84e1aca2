// streamscan/cuda/agent/segmented_tile_status.cuh - how the segmented scans'
// (value, head) pairs ride through the tile-prefix protocol: the generic
// status words and look-back (tile_status.cuh, tile_prefix.cuh) learn it
// through their customisation points, and know nothing of segments.
#pragma once

#include "../../detail/segmented_pair.hpp"
#include "tile_prefix.cuh"
#include "tile_status.cuh"

namespace streamscan::cuda::detail {

// A pair packs like its value, the head in one extra bit: a packed word
// holds pairs of values up to 8 bytes.
template <class V>
struct packed_status_codec<streamscan::detail::seg_pair<V>> {
  using pair = streamscan::detail::seg_pair<V>;
  static constexpr bool fits = packed_status_codec<V>::fits;
  using value_word = typename packed_status_codec<V>::value_word;
  __device__ static value_word value_bits(const pair& p) { return packed_status_codec<V>::value_bits(p.value); }
  __device__ static unsigned extra_bits(const pair& p) { return p.head ? 1u : 0u; }
  __device__ static pair decode(value_word value, unsigned extra) {
    return pair{packed_status_codec<V>::decode(value, 0), extra != 0};
  }
};

// A tile total that holds a head is already the tile's inclusive prefix:
// (a, b) -> b when b has one, whatever came before.
template <class V>
struct tile_total_traits<streamscan::detail::seg_pair<V>> {
  __device__ static bool is_prefix(const streamscan::detail::seg_pair<V>& total) { return total.head; }
};

}  // namespace streamscan::cuda::detail
