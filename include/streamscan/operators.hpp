// streamscan/operators.hpp - the common scan operators.
//
// Any associative binary functor works with every algorithm; commutativity is
// never assumed (op(a, b) always has a to the left of b in sequence order).
// These are provided so that host and device code share one definition.
#pragma once

#include "config.hpp"

namespace streamscan {

struct plus {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

struct maximum {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

struct minimum {
  template <class T>
  STREAMSCAN_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

}  // namespace streamscan
