// streamscan/detail/segmented_pair.hpp - the (value, head) pair of a
// segmented scan and the operator that restarts at heads (Schwartz's
// transform; detail/segmented_scan.hpp says more). Apart from the rest of
// segmented_scan.hpp, which is host code too: the kernels include only this,
// so they also compile under NVRTC (streamscan/nvrtc). Host and device
// callable; no CUDA.
#pragma once

#include "../config.hpp"
#include "../operators.hpp"

namespace streamscan::detail {

template <class A>
struct seg_pair {
  A value;
  bool head;
};

template <class Op>
struct segmented_op {
  mutable Op op;
  template <class P>
  STREAMSCAN_HOST_DEVICE P operator()(const P& a, const P& b) const {
    const P joined{static_cast<decltype(a.value)>(op(a.value, b.value)), a.head};
    return b.head ? b : joined;
  }
};

}  // namespace streamscan::detail

namespace streamscan {
// The restarting operator is exactly associative when (+) is.
template <class Op, class A>
struct is_exactly_associative<detail::segmented_op<Op>, detail::seg_pair<A>> : is_exactly_associative<Op, A> {};
}  // namespace streamscan
