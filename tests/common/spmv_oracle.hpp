// SpMV: a host CSR matrix, random ones with empty, single, short and long
// rows, and the oracle (a loop over rows in double, with a rounding bound for
// the value type and row length); no test framework, so that `streamscan
// verify` uses it as well.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "random.hpp"

namespace streamscan_test {

template <class V, class O, class I>
struct host_csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<O> offsets;  // rows + 1 (or as a test breaks it)
  std::vector<I> columns;
  std::vector<V> values;
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
};

// Row lengths: a mix of empty, single, short and random rows, plus `long_rows`
// rows of `long_length` non-zeros and `empty_runs` runs of `empty_run`
// consecutive empty rows at random places; with `long_after_run`, the row
// after each run is a long one (it starts where the run's rows close).
template <class V, class O, class I>
host_csr<V, O, I> random_csr(std::mt19937_64& rng, std::int64_t rows, std::int64_t cols, int max_length,
                             int long_rows = 0, std::int64_t long_length = 0, int empty_runs = 0,
                             std::int64_t empty_run = 0, bool long_after_run = false) {
  host_csr<V, O, I> a;
  a.rows = rows;
  a.cols = cols;
  std::vector<std::int64_t> length(static_cast<std::size_t>(rows));
  for (auto& l : length) {
    const auto k = rng() % 8;
    l = k == 0 ? 0 : k == 1 ? 1 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_length + 1));
  }
  for (int i = 0; i < long_rows && rows > 0; ++i) length[rng() % static_cast<std::uint64_t>(rows)] = long_length;
  for (int i = 0; i < empty_runs && rows > 0; ++i) {
    const std::int64_t start = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows));
    std::fill(length.begin() + start, length.begin() + std::min(rows, start + empty_run), 0);
    if (long_after_run && start + empty_run < rows) length[start + empty_run] = long_length;
  }
  if (cols == 0) std::fill(length.begin(), length.end(), 0);
  a.offsets.push_back(0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < length[r]; ++k) {
      a.columns.push_back(static_cast<I>(rng() % static_cast<std::uint64_t>(cols)));
      a.values.push_back(random_value<V>(rng));
    }
    a.offsets.push_back(static_cast<O>(a.values.size()));
  }
  return a;
}

// Empty when y is within the rounding bound of the oracle for y0 (the initial
// y); otherwise the first row that is not.
template <class V, class O, class I>
std::string spmv_mismatch(const host_csr<V, O, I>& a, const std::vector<V>& x, const std::vector<V>& y0,
                          const std::vector<V>& y, V alpha, V beta) {
  if (y.size() != static_cast<std::size_t>(a.rows)) return "y has " + std::to_string(y.size()) + " rows";
  const double eps = std::numeric_limits<V>::epsilon();
  for (std::int64_t r = 0; r < a.rows; ++r) {
    double sum = 0, magnitude = 0;
    const std::int64_t b = a.offsets[r], e = a.offsets[r + 1];
    for (std::int64_t k = b; k < e; ++k) {
      const double p = double(a.values[k]) * double(x[a.columns[k]]);
      sum += p;
      magnitude += std::fabs(p);
    }
    const double expected = beta == V(0) ? double(alpha) * sum : double(alpha) * sum + double(beta) * double(y0[r]);
    const double bound = 4 * eps * (double(e - b) + 2) * (std::fabs(double(alpha)) * magnitude +
                                                          (beta == V(0) ? 0 : std::fabs(double(beta) * y0[r]))) +
                         std::numeric_limits<V>::min();
    if (!(std::fabs(double(y[r]) - expected) <= bound)) {
      std::ostringstream os;
      os << "row " << r << " (" << e - b << " non-zeros): got " << y[r] << ", expected " << expected << " (bound "
         << bound << ")";
      return os.str();
    }
  }
  return {};
}

// coo_to_csr's oracle: a stable sort by (row, column), duplicates summed in
// input order from 0.
template <class I, class V, class O>
struct host_coo_csr {
  std::vector<O> offsets;  // rows + 1
  std::vector<I> columns;
  std::vector<V> values;
};

template <class I, class V, class O>
host_coo_csr<I, V, O> oracle_coo_to_csr(std::int64_t rows, const std::vector<I>& r, const std::vector<I>& c,
                                        const std::vector<V>& v) {
  std::vector<std::size_t> order(r.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return r[a] != r[b] ? r[a] < r[b] : c[a] < c[b]; });
  host_coo_csr<I, V, O> out;
  out.offsets.assign(static_cast<std::size_t>(rows + 1), O(0));
  std::vector<I> entry_rows;
  for (const std::size_t k : order) {
    if (out.columns.empty() || entry_rows.back() != r[k] || out.columns.back() != c[k]) {
      entry_rows.push_back(r[k]);
      out.columns.push_back(c[k]);
      out.values.push_back(V(0));
    }
    out.values.back() += v[k];
  }
  for (const I row : entry_rows) ++out.offsets[static_cast<std::size_t>(row) + 1];
  for (std::int64_t i = 0; i < rows; ++i) out.offsets[i + 1] += out.offsets[i];
  return out;
}

}  // namespace streamscan_test
