// The batched tridiagonal solver: systems on the host in their layout, random
// diagonally dominant ones, and the oracle (the Thomas algorithm in double);
// no test framework, so that `streamscan verify` uses it as well.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <streamscan/tridiagonal.hpp>

namespace streamscan_test {

// The systems, in their layout, on the host.
template <class T>
struct host_tridiagonal {
  streamscan::tridiagonal_view<T> shape;  // pointers unused
  std::vector<T> lower, diagonal, upper;  // the matrix's extent
  std::int64_t matrix_at(std::int64_t s, std::int64_t i) const {
    return shape.layout == streamscan::tridiagonal_layout::interleaved ? i * shape.batch_count + s
                                                                       : s * shape.batch_stride + i;
  }
  std::int64_t rhs_stride() const {
    return shape.rhs_stride != 0 ? shape.rhs_stride : static_cast<std::int64_t>(lower.size());
  }
  std::int64_t rhs_extent() const {
    return lower.empty() || shape.rhs_count == 0 ? 0
                                                : (shape.rhs_count - 1) * rhs_stride() + static_cast<std::int64_t>(lower.size());
  }
};

template <class T>
T poison_value() {
  return T(-7777.25);
}

// Random diagonally dominant systems: |diagonal| >= dominance (|lower| + |upper|),
// the signs random. Elements outside the systems (gaps) hold poison.
template <class T>
host_tridiagonal<T> random_tridiagonal(std::mt19937_64& rng, std::int64_t n, std::int64_t batch,
                                       streamscan::tridiagonal_layout layout, std::int64_t gap = 0,
                                       std::int64_t rhs_count = 1, std::int64_t rhs_gap = 0, double dominance = 1.5) {
  host_tridiagonal<T> a;
  a.shape.n = n;
  a.shape.batch_count = batch;
  a.shape.layout = layout;
  a.shape.batch_stride = layout == streamscan::tridiagonal_layout::strided ? n + gap : 0;
  a.shape.rhs_count = rhs_count;
  const std::int64_t extent = n == 0 || batch == 0 ? 0
                              : layout == streamscan::tridiagonal_layout::interleaved ? n * batch
                                                                                        : (batch - 1) * (n + gap) + n;
  a.shape.rhs_stride = rhs_gap == 0 ? 0 : extent + rhs_gap;
  a.lower.assign(static_cast<std::size_t>(extent), poison_value<T>());
  a.diagonal = a.upper = a.lower;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto at = static_cast<std::size_t>(a.matrix_at(s, i));
      const double l = u(rng), up = u(rng);
      // lower[0] and upper[n-1] are ignored: give them junk that would show.
      a.lower[at] = static_cast<T>(i == 0 ? 1e6 : l);
      a.upper[at] = static_cast<T>(i + 1 == n ? -1e6 : up);
      const double off = (i == 0 ? 0 : std::fabs(l)) + (i + 1 == n ? 0 : std::fabs(up));
      const double d = dominance * off + 0.25 + 0.75 * std::fabs(u(rng));
      a.diagonal[at] = static_cast<T>(u(rng) < 0 ? -d : d);
    }
  return a;
}

template <class T>
std::vector<T> random_rhs(std::mt19937_64& rng, const host_tridiagonal<T>& a) {
  std::vector<T> b(static_cast<std::size_t>(a.rhs_extent()), poison_value<T>());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t r = 0; r < a.shape.rhs_count; ++r)
    for (std::int64_t s = 0; s < a.shape.batch_count; ++s)
      for (std::int64_t i = 0; i < a.shape.n; ++i)
        b[static_cast<std::size_t>(r * a.rhs_stride() + a.matrix_at(s, i))] = static_cast<T>(u(rng));
  return b;
}

// The oracle: Thomas in double, system by system. Empty when x is within the
// bound of the oracle's solution, its residual is small and the elements
// outside the systems still hold poison; otherwise what is wrong.
template <class T>
std::string tridiagonal_mismatch(const host_tridiagonal<T>& a, const std::vector<T>& b, const std::vector<T>& x) {
  if (x.size() != b.size()) return "x has " + std::to_string(x.size()) + " elements, b " + std::to_string(b.size());
  const std::int64_t n = a.shape.n;
  const double eps = std::numeric_limits<T>::epsilon();
  std::vector<bool> inside(x.size(), false);
  std::vector<double> c(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < a.shape.rhs_count; ++r)
    for (std::int64_t s = 0; s < a.shape.batch_count; ++s) {
      auto m = [&](std::int64_t i) { return static_cast<std::size_t>(a.matrix_at(s, i)); };
      auto v = [&](std::int64_t i) { return static_cast<std::size_t>(r * a.rhs_stride() + a.matrix_at(s, i)); };
      for (std::int64_t i = 0; i < n; ++i) {
        const double l = i == 0 ? 0.0 : double(a.lower[m(i)]);
        const double p = double(a.diagonal[m(i)]) - l * (i == 0 ? 0.0 : c[i - 1]);
        c[i] = i + 1 < n ? double(a.upper[m(i)]) / p : 0.0;
        y[i] = (double(b[v(i)]) - l * (i == 0 ? 0.0 : y[i - 1])) / p;
      }
      for (std::int64_t i = n - 2; i >= 0; --i) y[i] -= c[i] * y[i + 1];
      double scale = 0;
      for (std::int64_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(y[i]));
      const double bound = 64 * eps * std::log2(double(n) + 2) * (scale + 1);
      for (std::int64_t i = 0; i < n; ++i) {
        inside[v(i)] = true;
        if (!(std::fabs(double(x[v(i)]) - y[i]) <= bound)) {
          std::ostringstream os;
          os << "system " << s << " rhs " << r << " row " << i << " of " << n << ": got " << x[v(i)] << ", expected "
             << y[i] << " (bound " << bound << ")";
          return os.str();
        }
      }
      // The residual of what came back, as a user would check it.
      double residual = 0, size = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        double ax = double(a.diagonal[m(i)]) * double(x[v(i)]);
        if (i > 0) ax += double(a.lower[m(i)]) * double(x[v(i - 1)]);
        if (i + 1 < n) ax += double(a.upper[m(i)]) * double(x[v(i + 1)]);
        residual = std::max(residual, std::fabs(ax - double(b[v(i)])));
        size = std::max(size, std::fabs(double(b[v(i)])));
      }
      if (!(residual <= 64 * eps * std::log2(double(n) + 2) * (size + scale) * 4)) {
        std::ostringstream os;
        os << "system " << s << " rhs " << r << ": residual " << residual;
        return os.str();
      }
    }
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!inside[k] && !(x[k] == poison_value<T>())) return "element " + std::to_string(k) + " outside every system was written";
  return {};
}

// The strategies a back end runs for systems of n rows (the GPU's block-wide
// ones hold a whole system in one block).
inline std::vector<streamscan::tridiagonal_strategy> tridiagonal_strategies(std::int64_t n, bool gpu) {
  using S = streamscan::tridiagonal_strategy;
  if (!gpu) return {S::automatic, S::cyclic_reduction};
  std::vector<S> v = {S::automatic, S::partitioned, S::thomas, S::warp_pcr};
  if (n <= 2048) v.insert(v.end(), {S::cyclic_reduction, S::parallel_cyclic_reduction, S::hybrid, S::thomas_pcr});
  return v;
}

}  // namespace streamscan_test
