// streamscan/cuda/block/block_binary.cuh - binary (predicate) counts and
// prefix counts over a thread block ([BinaryPrefix]): each warp counts by ballot +
// popc (warp_binary.cuh), one int per warp crosses the block through shared
// memory. Any block size from 1 to 1024; every thread of the block must call.
//
//   using bb = block_binary<THREADS>;
//   __shared__ bb::temp_storage s;
//   int total = bb::count(pred);                         // __syncthreads_count
//   int rank  = bb(s).prefix_count(pred, binary_scan::exclusive_forward, &total);
#pragma once

#include "../util/shuffle.cuh"
#include "../warp/warp_binary.cuh"

namespace streamscan::cuda {

template <int Threads>
class block_binary {
  static_assert(Threads >= 1 && Threads <= 1024, "block_binary: 1 to 1024 threads");
  static constexpr int warps = (Threads + 31) / 32;

 public:
  struct temp_storage {
    int warp_counts[warps];
  };

  __device__ explicit block_binary(temp_storage& s) : s_(s) {}

  // True predicates in the block (the hardware's barrier-and-count).
  __device__ static int count(bool pred) { return __syncthreads_count(pred); }

  // True predicates before this thread (forward: lower thread ids; reverse:
  // higher), this thread included for the inclusive kinds. `total`, if given,
  // receives the block's count. Ends with a barrier, so storage can be reused.
  __device__ int prefix_count(bool pred, binary_scan kind, int* total = nullptr) {
    const int t = static_cast<int>(threadIdx.x), warp = t / 32;
    const warp_binary w(detail::lane_mask(Threads - warp * 32 < 32 ? Threads - warp * 32 : 32));
    const int within = w.prefix_count(pred, kind);
    const int warp_total = w.count(pred);
    const bool forward = kind == binary_scan::inclusive_forward || kind == binary_scan::exclusive_forward;
    int all = 0;
    const int before = warps_before(warp_total, forward, all);
    if (total != nullptr) *total = all;
    __syncthreads();
    return before + within;
  }

  // Given each warp's count (the same in every lane of a warp), the sum of
  // the warps before this one (forward: lower warps; else higher) and the
  // block's total. One barrier; the caller must sync before reusing storage.
  __device__ int warps_before(int warp_count, bool forward, int& total) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    if (threadIdx.x % 32 == 0) s_.warp_counts[warp] = warp_count;
    __syncthreads();
    int before = 0, all = 0;
#pragma unroll
    for (int k = 0; k < warps; ++k) {  // at most 32 adds of shared words, broadcast reads
      const int c = s_.warp_counts[k];
      all += c;
      if (forward ? k < warp : k > warp) before += c;
    }
    total = all;
    return before;
  }

 private:
  temp_storage& s_;
};

}  // namespace streamscan::cuda
