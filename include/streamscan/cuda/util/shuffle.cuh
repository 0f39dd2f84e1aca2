// streamscan/cuda/util/shuffle.cuh - warp shuffles of any trivially copyable T.
//
// Hardware shuffles move 32-bit words; a T is moved word by word.
#pragma once

#include <cstring>

namespace streamscan::cuda::detail {

// Moves a T through `shuffle_word` (one 32-bit hardware shuffle) word by word.
template <class T, class ShuffleWord>
__device__ __forceinline__ T shuffle_by_words(const T& value, ShuffleWord shuffle_word) {
  constexpr int words = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned w[words];
  memcpy(w, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = shuffle_word(w[i]);
  T result;
  memcpy(&result, w, sizeof(T));
  return result;
}

template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, const T& value, unsigned delta) {
  return shuffle_by_words(value, [=](unsigned w) { return __shfl_up_sync(mask, w, delta); });
}

template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, const T& value, unsigned delta) {
  return shuffle_by_words(value, [=](unsigned w) { return __shfl_down_sync(mask, w, delta); });
}

template <class T>
__device__ __forceinline__ T shfl_idx(unsigned mask, const T& value, int src_lane) {
  return shuffle_by_words(value, [=](unsigned w) { return __shfl_sync(mask, w, src_lane); });
}

// Mask naming lanes [0, lanes) of a warp; `lanes` in 1..32.
__device__ __forceinline__ unsigned lane_mask(int lanes) {
  return lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u);
}

}  // namespace streamscan::cuda::detail
