// streamscan/cuda/kernels/radix_sort_kernels.cuh - the onesweep radix sort's
// kernels: the digit histogram of every pass, the digit offsets, and one
// sorting pass.
#pragma once

#include <cstdint>

#include "../../sort.hpp"
#include "../agent/agent_radix_sort.cuh"
#include "../block/block_scan.cuh"

namespace streamscan::cuda::detail {

// hist: the portion's counts, pass p digit d at p * bins + d (zeroed before).
template <class K, int THREADS, int ITEMS, int RADIX_BITS>
__global__ void __launch_bounds__(THREADS)
    radix_histogram_kernel(const K* keys, std::int64_t n, radix_passes passes,
                           typename radix_key_traits<K>::bits_type invert, unsigned* hist) {
  using agent = agent_radix_histogram<K, THREADS, ITEMS, RADIX_BITS>;
  __shared__ typename agent::temp_storage storage;
  agent::run(storage, keys, n, passes, invert, hist);
}

// One block per pass p, a thread per digit d: the output position of the
// first key with digit d (in portion 0), from the portions' counts. hist holds
// portion q, pass p, digit d at (q * passes + p) * bins + d; start holds pass
// p, portion q, digit d at (p * portions + q) * bins + d, of which this kernel
// writes q = 0. Later portions' starts are not the input portions' counts
// (after the first pass a portion holds other keys): the sorting pass chains
// them (agent_onesweep).
template <int RADIX_BITS>
__global__ void __launch_bounds__(1 << RADIX_BITS)
    radix_digit_start_kernel(const unsigned* hist, int portions, int passes, std::int64_t* start) {
  constexpr int bins = 1 << RADIX_BITS;
  using scan_t = block_scan<unsigned long long, bins, block_scan_algorithm::kogge_stone>;
  __shared__ typename scan_t::temp_storage storage;
  const int d = static_cast<int>(threadIdx.x);
  unsigned long long total = 0;
  for (int q = 0; q < portions; ++q) total += hist[(std::int64_t{q} * passes + blockIdx.x) * bins + d];
  streamscan::plus add;
  unsigned long long running = scan_t(storage).exclusive_scan(total, add);
  if (d == 0) running = 0;  // exclusive_scan leaves thread 0's result unspecified
  start[std::int64_t{blockIdx.x} * portions * bins + d] = static_cast<std::int64_t>(running);
}

// One tile per block; agent::storage_bytes of dynamic shared memory.
template <class K, class V, bool PAIRS, int THREADS, int ITEMS, int RADIX_BITS, int MIN_BLOCKS, bool PREFETCH>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    onesweep_kernel(typename agent_onesweep<K, V, PAIRS, THREADS, ITEMS, RADIX_BITS, PREFETCH>::params params) {
  using agent = agent_onesweep<K, V, PAIRS, THREADS, ITEMS, RADIX_BITS, PREFETCH>;
  extern __shared__ __align__(16) unsigned char onesweep_storage[];
  agent::run(*reinterpret_cast<typename agent::temp_storage*>(onesweep_storage), params);
}

}  // namespace streamscan::cuda::detail
