// streamscan/cuda/block/block_exchange.cuh - tile loads and stores.
//
// Global memory is read and written "striped" (item k of thread t is tile
// element k*THREADS + t, so a warp touches consecutive addresses: coalesced);
// the scan needs it "blocked" (thread t owns elements t*IPT .. t*IPT+IPT-1, its
// row of [StreamScan]'s matrix). Shared memory turns one into the other; one
// padding slot every 32 elements keeps the blocked reads off a single bank.
#pragma once

#include <cstdint>

#include "../util/uninitialized.cuh"

namespace streamscan::cuda {

template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
class block_exchange {
  static constexpr int tile_items = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool pad = ITEMS_PER_THREAD > 1;
  __device__ static int slot(int i) { return pad ? i + i / 32 : i; }

 public:
  struct temp_storage {
    detail::uninitialized<T> items[tile_items + (pad ? tile_items / 32 + 1 : 0)];
  };

  __device__ explicit block_exchange(temp_storage& storage) : s_(storage) {}

  // Reads tile elements [0, valid) of `in` (valid >= 1) into striped registers,
  // converted to T. Slots past `valid` receive a copy of element 0, so that
  // later arithmetic runs on real values of the right type; callers never
  // publish results computed from them.
  template <class InIt>
  __device__ static void load_striped(InIt in, int valid, T (&items)[ITEMS_PER_THREAD]) {
    const int tid = static_cast<int>(threadIdx.x);
    if (valid == tile_items) {
#pragma unroll
      for (int k = 0; k < ITEMS_PER_THREAD; ++k) items[k] = static_cast<T>(in[k * BLOCK_THREADS + tid]);
    } else {
      const T filler = static_cast<T>(in[0]);
#pragma unroll
      for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const int i = k * BLOCK_THREADS + tid;
        items[k] = i < valid ? static_cast<T>(in[i]) : filler;
      }
    }
  }

  // Writes striped registers to tile elements [first, valid) of `out`.
  template <class OutIt>
  __device__ static void store_striped(OutIt out, int first, int valid, const T (&items)[ITEMS_PER_THREAD]) {
    const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
      const int i = k * BLOCK_THREADS + tid;
      if (i >= first && i < valid) out[i] = items[k];
    }
  }

  // The caller must barrier between two exchanges that share temp_storage.
  __device__ void striped_to_blocked(T (&items)[ITEMS_PER_THREAD]) {
    const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) s_.items[slot(k * BLOCK_THREADS + tid)].get() = items[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) items[k] = s_.items[slot(tid * ITEMS_PER_THREAD + k)].get();
  }

  __device__ void blocked_to_striped(T (&items)[ITEMS_PER_THREAD]) {
    const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) s_.items[slot(tid * ITEMS_PER_THREAD + k)].get() = items[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) items[k] = s_.items[slot(k * BLOCK_THREADS + tid)].get();
  }

 private:
  temp_storage& s_;
};

}  // namespace streamscan::cuda
