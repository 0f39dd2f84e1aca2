// Comparison of a scan's output with the oracle: exact for integers and
// structs, within a size-derived rounding bound for floating point.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

namespace streamscan_test {

// Floating point: |got_i - exact_i| <= 2 * eps * sqrt(i + 2) * m_i, where m_i
// bounds every intermediate sum (oracle.hpp, float_error_scale). Each of the
// at most i additions on the way to element i rounds by an independent error
// of standard deviation <= 0.29 ulp <= 0.15 eps m_i, so the total has standard
// deviation <= 0.15 eps sqrt(i) m_i: the bound is 13 of those. A real mistake
// (a term lost or counted twice) moves the result by a whole |x|, which is
// above this bound for the sizes we test (about 0.03 |x| at 10^5 elements).
template <class Out>
::testing::AssertionResult compare_float(const std::vector<Out>& got, const std::vector<double>& exact,
                                         const std::vector<double>& scale, std::size_t first = 0) {
  const double eps = std::numeric_limits<Out>::epsilon();
  for (std::size_t i = first; i < got.size(); ++i) {
    const double tol = 2.0 * eps * std::sqrt(static_cast<double>(i) + 2.0) * scale[i] + 1e-30;
    const double g = static_cast<double>(got[i]);
    if (!(std::fabs(g - exact[i]) <= tol)) {  // NaN fails too
      return ::testing::AssertionFailure() << "element " << i << " of " << got.size() << ": got " << g
                                           << ", expected " << exact[i] << " +- " << tol;
    }
  }
  return ::testing::AssertionSuccess();
}

template <class Out, class A>
::testing::AssertionResult compare_exact(const std::vector<Out>& got, const std::vector<A>& expected) {
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << expected.size();
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == static_cast<Out>(expected[i]))) {
      if (mismatches++ == 0) first = i;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << mismatches << " of " << got.size() << " elements differ; first at " << first << ": got ";
  if constexpr (sizeof(Out) == 1) f << +got[first] << ", expected " << +static_cast<Out>(expected[first]);
  else f << got[first] << ", expected " << static_cast<Out>(expected[first]);
  return f;
}

}  // namespace streamscan_test
