// streamscan/cuda/util/maybe.cuh - a value that may be absent: the "nothing
// before it" of the first tile or partition, since no identity element is
// assumed for the operator.
#pragma once

namespace streamscan::cuda::detail {

template <class A>
struct maybe {
  A value;
  bool present;
};

}  // namespace streamscan::cuda::detail
