// streamscan/cuda/dispatch/sort_io.cuh - the buffers of one radix sort call,
// as every sort strategy's dispatcher receives them (arguments already
// checked by dispatch_radix_sort).
#pragma once

#include <type_traits>

#include "../../sort.hpp"

namespace streamscan::cuda::detail {

struct no_values {};  // the value type of a keys-only sort

template <class K, class V>
struct sort_io {
  static constexpr bool pairs = !std::is_same_v<V, no_values>;
  const K* keys_in = nullptr;
  K* keys_out = nullptr;
  const V* values_in = nullptr;  // pairs only
  V* values_out = nullptr;
  // Double-buffer forms: keys_in/values_in are current(), keys_out/values_out
  // alternate(); the sorted data may end in either, and `selector` says which.
  double_buffer<K>* keys_double_buffer = nullptr;
  double_buffer<V>* values_double_buffer = nullptr;
};

}  // namespace streamscan::cuda::detail
