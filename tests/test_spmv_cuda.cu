// SpMV on the GPU: the shared bodies (spmv_test_body.hpp) through the two
// public forms, with the arrays copied to the device.
#include <streamscan/cuda/device/device_coo_to_csr.cuh>
#include <streamscan/cuda/device/device_spmv.cuh>

#include <algorithm>
#include <random>

#include <vector>

#include "common/cuda_helpers.cuh"
#include "spmv_test_body.hpp"

namespace streamscan_test {

struct cuda_spmv_backend {
  static constexpr const char* name = "cuda";
  static constexpr std::int64_t long_row = 2'100'000;  // a row of millions of non-zeros, many tiles long
  static bool available() { return gpu_present(); }

  template <class V, class O, class I>
  static streamscan::status run_spmv(const host_csr<V, O, I>& a, const std::vector<V>& x, std::vector<V>& y, V alpha,
                                     V beta, streamscan::spmv_options opt, spmv_form form, spmv_null null_arg) {
    namespace ss = streamscan;
    device_buffer<O> d_offsets(a.offsets.size());
    device_buffer<I> d_columns(a.columns.size());
    device_buffer<V> d_values(a.values.size()), d_x(x.size()), d_y(y.size());
    d_offsets.upload(a.offsets);
    d_columns.upload(a.columns);
    d_values.upload(a.values);
    d_x.upload(x);
    d_y.upload(y);
    auto pick = [&](auto* p, spmv_null which) { return null_arg == which ? nullptr : p; };
    const ss::csr_view<V, O, I> view{a.rows, a.cols, a.nnz(), pick(d_offsets.get(), spmv_null::offsets),
                                     pick(d_columns.get(), spmv_null::columns), pick(d_values.get(), spmv_null::values)};
    const ss::csr_view<V, O, I> sized{a.rows, a.cols, a.nnz(), d_offsets.get(), d_columns.get(), d_values.get()};
    const V* xp = pick(d_x.get(), spmv_null::x);
    V* yp = pick(d_y.get(), spmv_null::y);
    const cudaStream_t stream = test_stream();
    ss::status s = ss::status::ok();
    if (form == spmv_form::convenience) {
      try {
        ss::cuda::spmv(view, xp, yp, alpha, beta, stream, opt);
      } catch (const ss::error& e) {
        s = e.get_status();
      }
    } else {
      std::size_t bytes = 0;
      s = ss::cuda::spmv(nullptr, bytes, sized, d_x.get(), d_y.get(), alpha, beta, stream, opt);
      if (s) {
        device_buffer<unsigned char> temp(bytes + 1);
        s = ss::cuda::spmv(temp.get() + 1, bytes, view, xp, yp, alpha, beta, stream, opt);  // unaligned on purpose
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      }
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    d_y.download(y);
    return s;
  }
};

}  // namespace streamscan_test

STREAMSCAN_SPMV_TESTS(spmv_cuda, streamscan_test::cuda_spmv_backend)

namespace {

// A CSR matrix of 2^31 + 2^20 non-zeros (int64 offsets): 2^20 rows of 2049,
// values 1, columns hashed from the position, x[c] = c % 7 + 1, so every row
// sum is an exact small integer in float.
constexpr std::int64_t large_rows = std::int64_t{1} << 20, large_length = 2049, large_cols = (1 << 20) + 7;

__host__ __device__ inline std::int32_t large_column(std::int64_t k) {
  return static_cast<std::int32_t>((static_cast<std::uint64_t>(k) * 2654435761u) % large_cols);
}

__global__ void fill_large_csr(std::int64_t* offsets, std::int32_t* columns, float* values, float* x) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (std::int64_t r = first; r <= large_rows; r += stride) offsets[r] = r * large_length;
  for (std::int64_t k = first; k < large_rows * large_length; k += stride) {
    columns[k] = large_column(k);
    values[k] = 1.0f;
  }
  for (std::int64_t c = first; c < large_cols; c += stride) x[c] = static_cast<float>(c % 7 + 1);
}

TEST(large_spmv_cuda, int64_offsets_past_two_to_the_31) {
  namespace ss = streamscan;
  using namespace streamscan_test;
  if (!gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  const std::int64_t nnz = large_rows * large_length;
  std::size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<std::size_t>(nnz) * 16) GTEST_SKIP() << "needs " << nnz * 16 / (1 << 30) << " GiB";
  device_buffer<std::int64_t> offsets(large_rows + 1);
  device_buffer<std::int32_t> columns(nnz);
  device_buffer<float> values(nnz), x(large_cols), y(large_rows);
  fill_large_csr<<<4096, 256>>>(offsets.get(), columns.get(), values.get(), x.get());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<float> expected(large_rows);
  for (std::int64_t r = 0; r < large_rows; ++r) {
    std::int64_t sum = 0;
    for (std::int64_t k = r * large_length; k < (r + 1) * large_length; ++k) sum += large_column(k) % 7 + 1;
    expected[r] = static_cast<float>(sum);
  }
  const ss::csr_view<float, std::int64_t, std::int32_t> a{large_rows, large_cols, nnz, offsets.get(), columns.get(),
                                                          values.get()};
  for (const auto strategy : {ss::spmv_strategy::merge_path, ss::spmv_strategy::segmented_scan}) {
    ss::spmv_options opt;
    opt.strategy = strategy;
    STREAMSCAN_TEST_CUDA(cudaMemset(y.get(), 0xff, large_rows * sizeof(float)));
    ss::cuda::spmv(a, x.get(), y.get(), 1.0f, 0.0f, nullptr, opt);
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<float> got;
    y.download(got);
    for (std::int64_t r = 0; r < large_rows; ++r)
      ASSERT_EQ(got[r], expected[r]) << ss::to_string(strategy) << " row " << r;
  }
}

}  // namespace

namespace {

// coo_to_csr against a host build: stable sort by (row, column), duplicates
// summed in input order (small integer values keep float sums exact).
template <class I, class V, class O>
void check_coo_to_csr(std::mt19937_64& rng, std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  namespace ss = streamscan;
  using namespace streamscan_test;
  std::vector<I> r(nnz), c(nnz);
  std::vector<V> v(nnz);
  const std::int64_t used_rows = rows > 3 ? rows / 3 : rows;  // leave rows empty, force duplicates
  for (std::int64_t k = 0; k < nnz; ++k) {
    r[k] = static_cast<I>(rng() % used_rows * 3 % rows);
    c[k] = static_cast<I>(rng() % (cols > 50 ? 50 : cols));
    v[k] = static_cast<V>(static_cast<int>(rng() % 17) - 8);
  }
  std::vector<std::int64_t> order(nnz);
  for (std::int64_t k = 0; k < nnz; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return r[a] != r[b] ? r[a] < r[b] : c[a] < c[b];
  });
  std::vector<O> want_offsets(rows + 1, 0);
  std::vector<I> want_columns;
  std::vector<V> want_values;
  std::vector<I> want_rows;
  for (const std::int64_t k : order) {
    if (!want_columns.empty() && want_rows.back() == r[k] && want_columns.back() == c[k]) {
      want_values.back() += v[k];
    } else {
      want_rows.push_back(r[k]);
      want_columns.push_back(c[k]);
      want_values.push_back(v[k]);
    }
  }
  for (const I row : want_rows) ++want_offsets[row + 1];
  for (std::int64_t i = 0; i < rows; ++i) want_offsets[i + 1] += want_offsets[i];

  device_buffer<I> dr(nnz), dc(nnz), out_c(nnz);
  device_buffer<V> dv(nnz), out_v(nnz);
  device_buffer<O> out_o(rows + 1);
  dr.upload(r);
  dc.upload(c);
  dv.upload(v);
  const std::int64_t entries = ss::cuda::coo_to_csr(rows, cols, nnz, dr.get(), dc.get(), dv.get(), out_o.get(),
                                                    out_c.get(), out_v.get(), test_stream());
  ASSERT_EQ(entries, static_cast<std::int64_t>(want_columns.size())) << "rows " << rows << " nnz " << nnz;
  std::vector<O> got_o;
  std::vector<I> got_c;
  std::vector<V> got_v;
  out_o.download(got_o);
  out_c.download(got_c);
  out_v.download(got_v);
  got_c.resize(entries);
  got_v.resize(entries);
  EXPECT_EQ(got_o, want_offsets);
  EXPECT_EQ(got_c, want_columns);
  EXPECT_EQ(got_v, want_values);
}

TEST(spmv_cuda_coo, builds_csr_and_sums_duplicates) {
  using namespace streamscan_test;
  if (!gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = make_rng("spmv_cuda_coo");
  check_coo_to_csr<std::int32_t, float, std::int32_t>(rng, 5, 5, 0);
  check_coo_to_csr<std::int32_t, float, std::int32_t>(rng, 1, 1, 1);
  check_coo_to_csr<std::int32_t, float, std::int32_t>(rng, 7, 3, 40);
  check_coo_to_csr<std::int32_t, double, std::int64_t>(rng, 1000, 800, 20000);
  check_coo_to_csr<std::int64_t, float, std::int64_t>(rng, 300000, 100000, 1000000 + rng() % 1000);
}

TEST(spmv_cuda_coo, bad_arguments_are_named) {
  namespace ss = streamscan;
  std::size_t bytes = 0;
  std::int64_t* count = nullptr;
  const ss::status s = ss::cuda::coo_to_csr(nullptr, bytes, std::int64_t{-1}, std::int64_t{4}, std::int64_t{0},
                                            static_cast<const int*>(nullptr), static_cast<const int*>(nullptr),
                                            static_cast<const float*>(nullptr), static_cast<int*>(nullptr),
                                            static_cast<int*>(nullptr), static_cast<float*>(nullptr), count);
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  EXPECT_NE(s.message().find("'rows' is negative"), std::string::npos) << s.message();
}

}  // namespace
