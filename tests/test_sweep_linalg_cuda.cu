// The size sweep (issue 53) of SpMV and the tridiagonal solver: inputs built
// and results checked on the device, cases the GPU's memory cannot hold
// logged as skipped (common/sweep.cuh).
//
// SpMV (y = A x, CSR, int64 offsets, int32 column indices, float and double):
//   nnz at every sweep size; rows of hashed lengths by formula (csr_rows):
//   short rows (empty ones included) and long ones, one row across non-zero
//   2^31 and one across 2^32; a different mean row length at each size, so
//   that row_groups runs with 2, 1, 32 and 8 lanes a row. Every strategy, and
//   automatic in checked mode. y is checked against a naive kernel (a thread
//   a row, compensated sum in double), within 16 eps of sum |a x| a row;
//   y starts as NaNs (beta = 0 must not read it), guard bytes after y, the
//   matrix and x unchanged. Past 2^31 - 1 non-zeros, int32 offsets are
//   refused (invalid_argument naming A.nnz) and y is left as it was.
// Tridiagonal (float and double, diagonally dominant systems hashed from
//   their place in memory): one system of n rows at every sweep size; batches
//   whose rows pass 2^31 and 2^32: systems of 1024 rows strided and
//   interleaved, systems of 2^20 rows with gaps between them. Every strategy
//   that takes the shape, and automatic in checked mode; out of place where
//   five arrays fit, else in place (x = b). The residual
//   |a_i x_{i-1} + b_i x_i + c_i x_{i+1} - d_i| is taken on the device (its
//   maximum over all rows, within 64 eps of max |d|; no NaN), guard bytes after
//   every array, the inputs unchanged and the gaps between systems unwritten.
//   Past 2048 rows the one-block strategies are refused (invalid_argument
//   naming options.strategy, at the size query and the call) and write nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"
#include "common/sweep.cuh"

namespace {
namespace ss = streamscan;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

// Outputs start as all-ones bytes (NaNs): an element never written shows.
constexpr unsigned char unwritten = 0xFF;

template <class T>
__device__ bool is_unwritten(T v) {
  if constexpr (sizeof(T) == 4)
    return __float_as_uint(v) == 0xFFFFFFFFu;
  else
    return __double_as_longlong(v) == -1;
}

template <class T>
std::string value_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

// Machine epsilon (numeric_limits' is host-only in device code).
template <class T>
constexpr double epsilon_of = sizeof(T) == 4 ? 0x1p-23 : 0x1p-52;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Whether one case passed (gtest's HasFailure covers the whole test).
struct verdict {
  bool ok = true;
  void expect(bool condition, const std::string& what) {
    EXPECT_TRUE(condition) << what;
    ok = ok && condition;
  }
};

// A value in [-1, 1) from the low `bits` bits: exact in float, and the
// product of two 24-bit ones exact in double.
template <int Bits>
__host__ __device__ double fixed(std::uint64_t h) {
  constexpr std::int64_t half = std::int64_t{1} << (Bits - 1);
  return static_cast<double>(static_cast<std::int64_t>(h & ((std::uint64_t{1} << Bits) - 1)) - half) / half;
}

// ---------------------------------------------------------------- SpMV

// The matrix's row offsets by formula (no scan). Row 0 is a head row of
// 2^18 - 2^14 non-zeros; then come bands of 2 (S + 1) rows and 2^18 non-zeros:
// a long pair (lengths L and 2^17 - L, L hashed in [2^15, 3 * 2^15)) and
// S = 2^17 / P pairs of short rows (lengths l and P - l, l hashed in [0, P]),
// so the mean row length is about P. Bands start at multiples of 2^18 less
// 2^14: 2^31 and 2^32 lie 2^14 into a band's first row, which is longer.
// The row holding non-zero nnz - 1 is cut after it (at nnz = 2^k + 17, the
// row across 2^k is the last).
struct csr_rows {
  std::int64_t nnz, pair;  // pair: P, a power of two up to 2^17
  std::uint64_t salt;
  static constexpr std::int64_t band = std::int64_t{1} << 18, long_pair = std::int64_t{1} << 17,
                                head = band - long_pair / 8;
  __host__ __device__ std::int64_t short_pairs() const { return long_pair / pair; }
  __host__ __device__ std::int64_t band_rows() const { return 2 * (short_pairs() + 1); }
  __host__ __device__ std::int64_t uncut(std::int64_t r) const {
    if (r == 0) return 0;
    const std::int64_t j = r - 1, b = j / band_rows(), k = j % band_rows(), start = head + b * band;
    if (k == 0) return start;
    if (k == 1) return start + long_pair / 4 + static_cast<std::int64_t>(sw::hash64(salt, b) % (long_pair / 2));
    const std::int64_t p = (k - 2) / 2, at = start + long_pair + p * pair;
    if (k % 2 == 0) return at;
    return at + static_cast<std::int64_t>(sw::hash64(salt + 1, b * short_pairs() + p) %
                                          static_cast<std::uint64_t>(pair + 1));
  }
  __host__ __device__ std::int64_t offset(std::int64_t r) const {
    const std::int64_t o = uncut(r);
    return o < nnz ? o : nnz;
  }
  // The first row whose start reaches nnz (uncut never decreases).
  std::int64_t rows() const {
    std::int64_t lo = 1, hi = 1 + (nnz / band + 1) * band_rows();
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (uncut(mid) >= nnz)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
};

// The whole matrix and x: columns and values hashed from the non-zero's
// index, x from the column.
struct sweep_matrix {
  csr_rows shape;
  std::int64_t rows, cols;
  std::uint64_t entry_salt, x_salt;
  __device__ void entry(std::int64_t k, std::int32_t& column, double& value) const {
    const std::uint64_t h = sw::hash64(entry_salt, static_cast<std::uint64_t>(k));
    column = static_cast<std::int32_t>((h & 0xFFFFFFFFu) % static_cast<std::uint64_t>(cols));
    value = fixed<24>(h >> 40);
  }
  __device__ double x_at(std::int64_t j) const { return fixed<24>(sw::hash64(x_salt, static_cast<std::uint64_t>(j))); }
};

// x: 2^22 + 1 columns (16 MiB of float), which the L2 mostly holds.
constexpr std::int64_t spmv_cols = (std::int64_t{1} << 22) + 1;

template <class V>
__global__ void fill_csr(sweep_matrix m, std::int64_t* offsets, std::int32_t* offsets32, std::int32_t* columns,
                         V* values, V* x) {
  const std::int64_t first = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x,
                     stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t k = first; k < m.shape.nnz; k += stride) {
    std::int32_t c;
    double v;
    m.entry(k, c, v);
    columns[k] = c;
    values[k] = static_cast<V>(v);
  }
  for (std::int64_t r = first; r <= m.rows; r += stride) {
    const std::int64_t o = m.shape.offset(r);
    offsets[r] = o;
    if (offsets32) offsets32[r] = static_cast<std::int32_t>(static_cast<std::uint32_t>(o));  // wrapped past 2^31
  }
  for (std::int64_t j = first; j < m.cols; j += stride) x[j] = static_cast<V>(m.x_at(j));
}

enum spmv_counter { spmv_bad, spmv_nonfinite, spmv_worst, spmv_changed, spmv_counters };

// A row's error allowed, in units of eps * sum |a x| (the row's length
// does not enter: with terms of random sign the partial sums, and so the
// rounding errors, stay small beside sum |a x|; the bound for any order,
// length * eps, would let a lost term of a long row pass). Every strategy
// stayed within 2.2 in float and 0.08 in double (H100, all sizes).
constexpr double spmv_allowed = 16;

// The naive product: a thread a row, the row's terms (recomputed from the
// hashes, not read from the arrays) added in order in double with Neumaier's
// compensation (the products of 24-bit values are exact), against y.
template <class V>
__global__ void check_spmv(sweep_matrix m, const V* y, unsigned long long* counts) {
  constexpr double eps = epsilon_of<V>;
  unsigned long long bad = 0, nonfinite = 0;
  double worst = 0;
  for (std::int64_t r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; r < m.rows;
       r += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t begin = m.shape.offset(r), end = m.shape.offset(r + 1);
    double sum = 0, lost = 0, magnitude = 0;
    for (std::int64_t k = begin; k < end; ++k) {
      std::int32_t c;
      double v;
      m.entry(k, c, v);
      const double p = v * m.x_at(c), t = sum + p;
      lost += fabs(sum) >= fabs(p) ? (sum - t) + p : (p - t) + sum;
      sum = t;
      magnitude += fabs(p);
    }
    const double got = static_cast<double>(y[r]);
    if (!isfinite(got)) {
      ++nonfinite;
      continue;
    }
    if (magnitude == 0) {
      bad += got != 0;
      continue;
    }
    const double error = fabs(got - (sum + lost)) / (eps * magnitude);
    bad += !(error <= spmv_allowed);
    worst = error > worst ? error : worst;
  }
  if (bad) atomicAdd(counts + spmv_bad, bad);
  if (nonfinite) atomicAdd(counts + spmv_nonfinite, nonfinite);
  sw::atomic_max_nonneg(counts + spmv_worst, worst);
}

// The matrix and x as fill_csr left them.
template <class V>
__global__ void check_csr_inputs(sweep_matrix m, const std::int64_t* offsets, const std::int32_t* columns,
                                 const V* values, const V* x, unsigned long long* counts) {
  const std::int64_t first = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x,
                     stride = std::int64_t{gridDim.x} * blockDim.x;
  unsigned long long changed = 0;
  for (std::int64_t k = first; k < m.shape.nnz; k += stride) {
    std::int32_t c;
    double v;
    m.entry(k, c, v);
    changed += columns[k] != c || values[k] != static_cast<V>(v);
  }
  for (std::int64_t r = first; r <= m.rows; r += stride) changed += offsets[r] != m.shape.offset(r);
  for (std::int64_t j = first; j < m.cols; j += stride) changed += x[j] != static_cast<V>(m.x_at(j));
  if (changed) atomicAdd(counts + spmv_changed, changed);
}

struct spmv_run {
  const char* name;
  ss::spmv_strategy strategy;
  bool checked;
};
constexpr spmv_run spmv_runs[] = {{"automatic", ss::spmv_strategy::automatic, false},
                                  {"merge_path", ss::spmv_strategy::merge_path, false},
                                  {"row_groups", ss::spmv_strategy::row_groups, false},
                                  {"nonzero_split", ss::spmv_strategy::nonzero_split, false},
                                  {"segmented_scan", ss::spmv_strategy::segmented_scan, false},
                                  {"automatic checked", ss::spmv_strategy::automatic, true}};

ss::spmv_options options_of(const spmv_run& run) {
  ss::spmv_options opt;
  opt.strategy = run.strategy;
  opt.checked = run.checked;
  return opt;
}

// One matrix of nnz non-zeros (mean row length `pair`) through every strategy;
// past 2^31 - 1 non-zeros (float only: the offsets are the same for double),
// int32 offsets refused.
template <class V>
void spmv_size(sw::arena& arena, std::int64_t nnz, std::int64_t pair, std::mt19937_64& rng) {
  using view = ss::csr_view<V, std::int64_t, std::int32_t>;
  sweep_matrix m{csr_rows{nnz, pair, rng()}, 0, spmv_cols, rng(), rng()};
  m.rows = m.shape.rows();
  const bool narrow_check = nnz > std::numeric_limits<std::int32_t>::max() && sizeof(V) == 4;
  const std::string what = "spmv " + value_name<V>() + " nnz=" + sw::log2_name(nnz) + " mean " + std::to_string(pair);
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + what);

  constexpr std::size_t runs = std::size(spmv_runs);
  std::size_t temp_bytes[runs];
  const view sizes{m.rows, m.cols, nnz, nullptr, nullptr, nullptr};
  for (std::size_t i = 0; i < runs; ++i) {
    const ss::status s = ss::cuda::spmv<V, std::int64_t, std::int32_t>(nullptr, temp_bytes[i], sizes, nullptr,
                                                                        nullptr, V(1), V(0), nullptr,
                                                                        options_of(spmv_runs[i]));
    ASSERT_TRUE(s.is_ok()) << s.message();
  }
  const std::size_t slack = sw::guard_bytes + 256;
  const std::size_t arrays = (m.rows + 1) * (8 + (narrow_check ? 4 : 0)) + nnz * (4 + sizeof(V)) +
                             (m.cols + m.rows) * sizeof(V) + 6 * slack;
  std::size_t temp_taken = 0;
  bool any = false;
  for (std::size_t i = 0; i < runs; ++i)
    if (sw::arena::fits(arrays + temp_bytes[i], arena.capacity())) {
      any = true;
      temp_taken = temp_bytes[i] > temp_taken ? temp_bytes[i] : temp_taken;
    }
  if (!any) {
    for (const spmv_run& run : spmv_runs)
      sw::case_log::skipped(what + " " + run.name, arrays + temp_bytes[0], arena.capacity());
    return;
  }
  arena.reset();
  auto* offsets = arena.take<std::int64_t>(m.rows + 1);
  auto* offsets32 = narrow_check ? arena.take<std::int32_t>(m.rows + 1) : nullptr;
  auto* columns = arena.take<std::int32_t>(nnz);
  V* values = arena.take<V>(nnz);
  V* x = arena.take<V>(m.cols);
  V* y = arena.take<V>(m.rows);
  void* temp = arena.take<unsigned char>(static_cast<std::int64_t>(temp_taken), false);
  ASSERT_NE(temp, nullptr);
  fill_csr<V><<<8192, 256>>>(m, offsets, offsets32, columns, values, x);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  const std::string rows_note = std::to_string(m.rows) + " rows";

  sw::counters counts(spmv_counters);
  const view a{m.rows, m.cols, nnz, offsets, columns, values};
  for (std::size_t i = 0; i < runs; ++i) {
    const std::string name = what + " " + spmv_runs[i].name;
    if (!sw::arena::fits(arrays + temp_bytes[i], arena.capacity())) {
      sw::case_log::skipped(name, arrays + temp_bytes[i], arena.capacity());
      continue;
    }
    SCOPED_TRACE(spmv_runs[i].name);
    const sw::case_log log(name);
    STREAMSCAN_TEST_CUDA(cudaMemset(y, unwritten, m.rows * sizeof(V)));
    std::size_t bytes = temp_bytes[i];
    const ss::status s = ss::cuda::spmv(temp, bytes, a, static_cast<const V*>(x), y, V(1), V(0), nullptr,
                                        options_of(spmv_runs[i]));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    counts.clear();
    check_spmv<V><<<sw::grid_for(m.rows), 256>>>(m, y, counts.get());
    check_csr_inputs<V><<<sw::grid_for(nnz), 256>>>(m, offsets, columns, values, x, counts.get());
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    const auto got = counts.read();
    verdict v;
    v.expect(s.is_ok(), "spmv failed: " + s.message());
    v.expect(got[spmv_nonfinite] == 0, std::to_string(got[spmv_nonfinite]) + " rows of y not finite (or not written)");
    v.expect(got[spmv_bad] == 0, std::to_string(got[spmv_bad]) + " rows of y off the naive product by more than " +
                                     fmt("%g", spmv_allowed) + " eps sum |a x|");
    v.expect(got[spmv_changed] == 0, std::to_string(got[spmv_changed]) + " elements of the matrix or x changed");
    v.expect(sw::guard_intact(y, m.rows), "bytes after y written");
    v.expect(sw::guard_intact(x, m.cols) && sw::guard_intact(values, nnz) && sw::guard_intact(columns, nnz) &&
                 sw::guard_intact(offsets, m.rows + 1),
             "bytes after an input written");
    log.done(v.ok, rows_note + ", worst row off by " + fmt("%.3g", sw::as_double(got[spmv_worst])) +
                       " eps sum |a x|");
  }

  if (!narrow_check) return;
  // int32 offsets cannot hold nnz: every strategy refuses, and y keeps its NaNs.
  const std::string name = what + " int32 offsets refused";
  const sw::case_log log(name);
  const ss::csr_view<V, std::int32_t, std::int32_t> narrow{m.rows, m.cols, nnz, offsets32, columns, values};
  verdict v;
  for (const spmv_run& run : spmv_runs) {
    STREAMSCAN_TEST_CUDA(cudaMemset(y, unwritten, m.rows * sizeof(V)));
    std::size_t bytes = temp_taken;
    const ss::status s =
        ss::cuda::spmv(temp, bytes, narrow, static_cast<const V*>(x), y, V(1), V(0), nullptr, options_of(run));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    v.expect(s.code() == ss::errc::invalid_argument && s.message().find("'A.nnz'") != std::string::npos,
             std::string(run.name) + ": expected invalid_argument naming 'A.nnz', got \"" + s.message() + "\"");
    v.expect(sw::bytes_unlike(y, m.rows * sizeof(V), unwritten) == 0, std::string(run.name) + ": y written");
    // The size query refuses too (it checks the sizes), so that a convenience
    // call never allocates for a matrix it will refuse.
    std::size_t query = 0;
    const ss::status q = ss::cuda::spmv<V, std::int32_t, std::int32_t>(
        nullptr, query, ss::csr_view<V, std::int32_t, std::int32_t>{m.rows, m.cols, nnz, nullptr, nullptr, nullptr},
        nullptr, nullptr, V(1), V(0), nullptr, options_of(run));
    v.expect(q.code() == ss::errc::invalid_argument && q.message().find("'A.nnz'") != std::string::npos,
             std::string(run.name) + ": the size query: expected invalid_argument naming 'A.nnz', got \"" +
                 q.message() + "\"");
  }
  v.expect(sw::guard_intact(y, m.rows), "bytes after y written");
  log.done(v.ok);
}

// ---------------------------------------------------------------- tridiagonal

// Element g of the batch (its place in memory): the row's three coefficients
// and right-hand side from one hash, all exact in float; |diagonal| >=
// |lower| + |upper| + 1/2 (so |x| <= 2 max |d|), either sign.
struct tri_row {
  double lower, diagonal, upper, rhs;
};
__device__ inline tri_row tri_element(std::uint64_t salt, std::int64_t g) {
  const std::uint64_t h = sw::hash64(salt, static_cast<std::uint64_t>(g));
  const double a = fixed<16>(h), c = fixed<16>(h >> 16), e = fixed<16>(h >> 32);
  const double diagonal = fabs(a) + fabs(c) + 0.75 + e / 4;
  return {a, (h >> 32) & 1 ? -diagonal : diagonal, c, fixed<16>(h >> 48)};
}

// A batch: batch systems of n rows, strided (system s at s * stride, gaps of
// stride - n elements between systems) or interleaved.
struct tri_shape {
  std::int64_t n, batch, stride;
  bool interleaved;
  __host__ __device__ std::int64_t extent() const { return interleaved ? n * batch : (batch - 1) * stride + n; }
  // Element g's row in its system (n or more: a gap).
  __device__ std::int64_t row_of(std::int64_t g) const { return interleaved ? g / batch : g % stride; }
  __device__ std::int64_t step() const { return interleaved ? batch : 1; }
};

template <class T>
__global__ void fill_tridiagonal(std::uint64_t salt, std::int64_t extent, T* lower, T* diagonal, T* upper, T* rhs) {
  for (std::int64_t g = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; g < extent;
       g += std::int64_t{gridDim.x} * blockDim.x) {
    const tri_row e = tri_element(salt, g);
    if (lower) {
      lower[g] = static_cast<T>(e.lower);
      diagonal[g] = static_cast<T>(e.diagonal);
      upper[g] = static_cast<T>(e.upper);
    }
    rhs[g] = static_cast<T>(e.rhs);
  }
}

enum tri_counter { tri_nonfinite, tri_residual, tri_rhs, tri_changed, tri_gap_written, tri_counters };

// Every element: the matrix unchanged; the right-hand side unchanged where it
// is an input (everywhere out of place; in the gaps in place, where it is x);
// with x: each row's residual from the hashed coefficients (its maximum, and
// max |d|), x finite, and the gaps out of place unwritten.
template <class T>
__global__ void check_tridiagonal(tri_shape shape, std::uint64_t salt, const T* lower, const T* diagonal,
                                  const T* upper, const T* rhs, const T* x, unsigned long long* counts) {
  unsigned long long nonfinite = 0, changed = 0, gap_written = 0;
  double residual = 0, biggest_rhs = 0;
  const std::int64_t extent = shape.extent(), step = shape.step();
  for (std::int64_t g = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; g < extent;
       g += std::int64_t{gridDim.x} * blockDim.x) {
    const tri_row e = tri_element(salt, g);
    changed += lower[g] != static_cast<T>(e.lower) || diagonal[g] != static_cast<T>(e.diagonal) ||
               upper[g] != static_cast<T>(e.upper);
    const std::int64_t i = shape.row_of(g);
    const bool gap = i >= shape.n;
    if (rhs != x || gap) changed += rhs[g] != static_cast<T>(e.rhs);
    if (x == nullptr) continue;
    if (gap) {
      if (rhs != x) gap_written += !is_unwritten(x[g]);
      continue;
    }
    const double xi = static_cast<double>(x[g]);
    if (!isfinite(xi)) {
      ++nonfinite;
      continue;
    }
    const double left = i > 0 ? e.lower * static_cast<double>(x[g - step]) : 0.0;
    const double right = i + 1 < shape.n ? e.upper * static_cast<double>(x[g + step]) : 0.0;
    const double r = fabs(left + e.diagonal * xi + right - e.rhs);
    residual = r > residual || r != r ? r : residual;
    biggest_rhs = fabs(e.rhs) > biggest_rhs ? fabs(e.rhs) : biggest_rhs;
  }
  if (nonfinite) atomicAdd(counts + tri_nonfinite, nonfinite);
  if (changed) atomicAdd(counts + tri_changed, changed);
  if (gap_written) atomicAdd(counts + tri_gap_written, gap_written);
  sw::atomic_max_nonneg(counts + tri_residual, residual);
  sw::atomic_max_nonneg(counts + tri_rhs, biggest_rhs);
}

struct tri_run {
  const char* name;
  ss::tridiagonal_strategy strategy;
  bool checked;
};
constexpr tri_run tri_runs[] = {
    {"automatic", ss::tridiagonal_strategy::automatic, false},
    {"cyclic_reduction", ss::tridiagonal_strategy::cyclic_reduction, false},
    {"parallel_cyclic_reduction", ss::tridiagonal_strategy::parallel_cyclic_reduction, false},
    {"hybrid", ss::tridiagonal_strategy::hybrid, false},
    {"thomas_pcr", ss::tridiagonal_strategy::thomas_pcr, false},
    {"partitioned", ss::tridiagonal_strategy::partitioned, false},
    {"thomas", ss::tridiagonal_strategy::thomas, false},
    {"warp_pcr", ss::tridiagonal_strategy::warp_pcr, false},
    {"automatic checked", ss::tridiagonal_strategy::automatic, true}};

bool one_block(ss::tridiagonal_strategy s) {
  return s == ss::tridiagonal_strategy::cyclic_reduction || s == ss::tridiagonal_strategy::parallel_cyclic_reduction ||
         s == ss::tridiagonal_strategy::hybrid || s == ss::tridiagonal_strategy::thomas_pcr;
}

ss::tridiagonal_options options_of(const tri_run& run) {
  ss::tridiagonal_options opt;
  opt.strategy = run.strategy;
  opt.checked = run.checked;
  return opt;
}

// The residual allowed, relative to max |d|: with |x| <= 2 max |d| and
// |coefficients| summing to at most 5 a row, some tens of rounding errors of a
// row's size. Every strategy stayed within 13 eps (H100, all shapes).
template <class T>
constexpr double tri_allowed = 64 * epsilon_of<T>;

// One batch through every strategy that takes its shape; past 2048 rows the
// one-block strategies' refusal.
template <class T>
void tridiagonal_batch(sw::arena& arena, const tri_shape& shape, const std::string& label, std::mt19937_64& rng) {
  constexpr std::int64_t max_block_rows = ss::tuning::tridiagonal_shape_for(sizeof(T)).max_block_rows;
  // Thomas walks a system in one thread: past 2^20 rows that takes minutes.
  constexpr std::int64_t thomas_max_rows = std::int64_t{1} << 20;
  const std::int64_t extent = shape.extent();
  const std::uint64_t salt = rng();
  const std::string what = "tridiagonal " + value_name<T>() + " " + label;
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + what);

  ss::tridiagonal_view<T> a;
  a.n = shape.n;
  a.batch_count = shape.batch;
  a.batch_stride = shape.stride;
  a.layout = shape.interleaved ? ss::tridiagonal_layout::interleaved : ss::tridiagonal_layout::strided;
  constexpr std::size_t runs = std::size(tri_runs);
  std::size_t temp_bytes[runs] = {};
  bool takes[runs];
  std::size_t least_temp = ~std::size_t{0};
  for (std::size_t i = 0; i < runs; ++i) {
    takes[i] = !(one_block(tri_runs[i].strategy) && shape.n > max_block_rows);
    if (!takes[i]) continue;
    const ss::status s =
        ss::cuda::tridiagonal_solve<T>(nullptr, temp_bytes[i], a, nullptr, nullptr, nullptr, options_of(tri_runs[i]));
    ASSERT_TRUE(s.is_ok()) << tri_runs[i].name << ": " << s.message();
    least_temp = temp_bytes[i] < least_temp ? temp_bytes[i] : least_temp;
  }
  const std::size_t array = extent * sizeof(T) + sw::guard_bytes + 256;
  const bool in_place = !sw::arena::fits(5 * array + least_temp, arena.capacity());
  const std::size_t arrays = (in_place ? 4 : 5) * array;
  const std::string form = in_place ? " in-place " : " ";
  std::size_t temp_taken = 0;
  for (std::size_t i = 0; i < runs; ++i)
    if (takes[i] && sw::arena::fits(arrays + temp_bytes[i], arena.capacity()))
      temp_taken = temp_bytes[i] > temp_taken ? temp_bytes[i] : temp_taken;
  if (temp_taken == 0) {
    for (std::size_t i = 0; i < runs; ++i)
      if (takes[i]) sw::case_log::skipped(what + form + tri_runs[i].name, arrays + temp_bytes[i], arena.capacity());
    return;
  }
  arena.reset();
  T* lower = arena.take<T>(extent);
  T* diagonal = arena.take<T>(extent);
  T* upper = arena.take<T>(extent);
  T* b = arena.take<T>(extent);
  T* x = in_place ? b : arena.take<T>(extent);
  void* temp = arena.take<unsigned char>(static_cast<std::int64_t>(temp_taken), false);
  ASSERT_NE(temp, nullptr);
  fill_tridiagonal<T><<<8192, 256>>>(salt, extent, lower, diagonal, upper, b);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  a.lower = lower;
  a.diagonal = diagonal;
  a.upper = upper;
  sw::counters counts(tri_counters);
  const auto inputs_intact = [&] {
    return sw::guard_intact(lower, extent) && sw::guard_intact(diagonal, extent) && sw::guard_intact(upper, extent) &&
           sw::guard_intact(b, extent);
  };

  if (shape.n > max_block_rows) {
    // The one-block strategies refuse the size, at the query and the call, and write nothing.
    const sw::case_log log(what + form + "one-block strategies refused");
    if (!in_place) STREAMSCAN_TEST_CUDA(cudaMemset(x, unwritten, extent * sizeof(T)));
    verdict v;
    for (std::size_t i = 0; i < runs; ++i) {
      if (takes[i]) continue;
      std::size_t bytes = 0;
      const ss::status q = ss::cuda::tridiagonal_solve<T>(nullptr, bytes, a, b, x, nullptr, options_of(tri_runs[i]));
      bytes = temp_taken;
      const ss::status s = ss::cuda::tridiagonal_solve<T>(temp, bytes, a, b, x, nullptr, options_of(tri_runs[i]));
      for (const ss::status* r : {&q, &s})
        v.expect(r->code() == ss::errc::invalid_argument &&
                     r->message().find("'options.strategy'") != std::string::npos,
                 std::string(tri_runs[i].name) + (r == &q ? " (size query)" : "") +
                     ": expected invalid_argument naming 'options.strategy', got \"" + r->message() + "\"");
    }
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    counts.clear();
    check_tridiagonal<T><<<sw::grid_for(extent), 256>>>(shape, salt, lower, diagonal, upper, b,
                                                        static_cast<const T*>(nullptr), counts.get());
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    v.expect(counts.read()[tri_changed] == 0, "inputs (or b, in place) written");
    if (!in_place) v.expect(sw::bytes_unlike(x, extent * sizeof(T), unwritten) == 0, "x written");
    v.expect(inputs_intact() && sw::guard_intact(x, extent), "bytes after an array written");
    log.done(v.ok);
  }

  for (std::size_t i = 0; i < runs; ++i) {
    if (!takes[i]) continue;
    const std::string name = what + form + tri_runs[i].name;
    if (tri_runs[i].strategy == ss::tridiagonal_strategy::thomas && shape.n > thomas_max_rows) {
      sw::case_log::skipped(name, "a thread walks each system's " + sw::log2_name(shape.n) + " rows (minutes)");
      continue;
    }
    if (!sw::arena::fits(arrays + temp_bytes[i], arena.capacity())) {
      sw::case_log::skipped(name, arrays + temp_bytes[i], arena.capacity());
      continue;
    }
    SCOPED_TRACE(tri_runs[i].name);
    const sw::case_log log(name);
    if (in_place)  // the last solve left x in b
      fill_tridiagonal<T><<<8192, 256>>>(salt, extent, static_cast<T*>(nullptr), nullptr, nullptr, b);
    else
      STREAMSCAN_TEST_CUDA(cudaMemset(x, unwritten, extent * sizeof(T)));
    std::size_t bytes = temp_bytes[i];
    const ss::status s = ss::cuda::tridiagonal_solve<T>(temp, bytes, a, b, x, nullptr, options_of(tri_runs[i]));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    counts.clear();
    check_tridiagonal<T><<<sw::grid_for(extent), 256>>>(shape, salt, lower, diagonal, upper, b, x, counts.get());
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    const auto got = counts.read();
    const double relative = sw::as_double(got[tri_residual]) / sw::as_double(got[tri_rhs]);
    verdict v;
    v.expect(s.is_ok(), "tridiagonal_solve failed: " + s.message());
    v.expect(got[tri_nonfinite] == 0, std::to_string(got[tri_nonfinite]) + " elements of x not finite (or not written)");
    v.expect(relative <= tri_allowed<T>, "max residual / max |d| = " + fmt("%.3g", relative) + ", above " +
                                             fmt("%.3g", tri_allowed<T>));
    v.expect(got[tri_changed] == 0, std::to_string(got[tri_changed]) + " input elements changed");
    v.expect(got[tri_gap_written] == 0, std::to_string(got[tri_gap_written]) + " gap elements of x written");
    v.expect(inputs_intact() && sw::guard_intact(x, extent), "bytes after an array written");
    log.done(v.ok, "residual " + fmt("%.3g", relative) + " max |d|");
  }
}

class sweep_linalg : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  }
};

// Mean row lengths by size: 2, 8, 64 and 16 (row_groups with 2, 1, 32 and 8
// lanes a row; automatic takes row_groups for the first two).
TEST_F(sweep_linalg, spmv) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_linalg_spmv");
  const std::int64_t pairs[] = {2, 8, 64, 16};
  const auto sizes = sw::sizes();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    spmv_size<float>(arena, sizes[i], pairs[i % 4], rng);
    spmv_size<double>(arena, sizes[i], pairs[i % 4], rng);
  }
}

TEST_F(sweep_linalg, tridiagonal_one_system) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_linalg_tridiagonal_one_system");
  for (const std::int64_t n : sw::sizes()) {
    const tri_shape shape{n, 1, n, false};
    tridiagonal_batch<float>(arena, shape, "n=" + sw::log2_name(n), rng);
    tridiagonal_batch<double>(arena, shape, "n=" + sw::log2_name(n), rng);
  }
}

// Batches whose rows pass 2^31 and 2^32: systems of 1024 rows (every
// strategy), strided and interleaved; systems of 2^20 rows, 61 elements apart.
TEST_F(sweep_linalg, tridiagonal_batches) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_linalg_tridiagonal_batches");
  for (const std::int64_t total : {(std::int64_t{1} << 31) + 17, (std::int64_t{1} << 32) + 17}) {
    const std::int64_t small = 1024, large = std::int64_t{1} << 20;
    const std::int64_t small_batch = (total + small - 1) / small, large_batch = (total + large - 1) / large;
    const std::string rows = total >> 32 ? " (past 2^32 rows)" : " (past 2^31 rows)";
    const tri_shape shapes[] = {{small, small_batch, small, false},
                                {small, small_batch, small, true},
                                {large, large_batch, large + 61, false}};
    const std::string labels[] = {"1024 x " + std::to_string(small_batch) + " strided" + rows,
                                  "1024 x " + std::to_string(small_batch) + " interleaved" + rows,
                                  "2^20 x " + std::to_string(large_batch) + " stride 2^20+61" + rows};
    for (int k = 0; k < 3; ++k) {
      tridiagonal_batch<float>(arena, shapes[k], labels[k], rng);
      tridiagonal_batch<double>(arena, shapes[k], labels[k], rng);
    }
  }
}

}  // namespace
