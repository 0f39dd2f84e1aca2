// streamscan/cuda/util/shuffle.cuh - warp shuffles of any trivially copyable T.
//
// Hardware shuffles move 32-bit words; a T is moved word by word.
#pragma once

#include <cstring>

namespace streamscan::cuda::detail {

template <class T>
struct shuffle_words {
  static constexpr int count = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned w[count];
};

template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, const T& value, unsigned delta) {
  shuffle_words<T> words;
  memcpy(words.w, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < shuffle_words<T>::count; ++i) words.w[i] = __shfl_up_sync(mask, words.w[i], delta);
  T result;
  memcpy(&result, words.w, sizeof(T));
  return result;
}

template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, const T& value, unsigned delta) {
  shuffle_words<T> words;
  memcpy(words.w, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < shuffle_words<T>::count; ++i) words.w[i] = __shfl_down_sync(mask, words.w[i], delta);
  T result;
  memcpy(&result, words.w, sizeof(T));
  return result;
}

template <class T>
__device__ __forceinline__ T shfl_idx(unsigned mask, const T& value, int src_lane) {
  shuffle_words<T> words;
  memcpy(words.w, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < shuffle_words<T>::count; ++i) words.w[i] = __shfl_sync(mask, words.w[i], src_lane);
  T result;
  memcpy(&result, words.w, sizeof(T));
  return result;
}

// Mask naming lanes [0, lanes) of a warp; `lanes` in 1..32.
__device__ __forceinline__ unsigned lane_mask(int lanes) {
  return lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u);
}

}  // namespace streamscan::cuda::detail
