// SpMV on the GPU: the shared bodies (spmv_test_body.hpp) through the two
// public forms, with the arrays copied to the device.
#include <streamscan/cuda/device/device_coo_to_csr.cuh>
#include <streamscan/cuda/device/device_spmv.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
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
    } else if (form == spmv_form::prepared) {
      std::size_t bytes = 0, product_bytes = 0;
      s = ss::cuda::spmv_prepare(nullptr, bytes, sized, stream, opt);
      if (s) s = ss::cuda::spmv(nullptr, product_bytes, sized, d_x.get(), d_y.get(), alpha, beta, stream, opt);
      EXPECT_EQ(bytes, product_bytes) << "spmv_prepare and spmv size temp storage alike";
      if (s) {
        device_buffer<unsigned char> temp(bytes + 1);
        s = ss::cuda::spmv_prepare(temp.get() + 1, bytes, view, stream, opt);
        ss::spmv_options run = opt;
        run.prepared = true;
        // The plan serves more than one product: the first one's y is a copy.
        device_buffer<V> first(y.size());
        first.upload(y);
        if (s) s = ss::cuda::spmv(temp.get() + 1, bytes, view, xp, first.get(), alpha, beta, stream, run);
        if (s) s = ss::cuda::spmv(temp.get() + 1, bytes, view, xp, yp, alpha, beta, stream, run);
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
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

  // The convenience form (it waits and returns the count).
  template <class I, class V, class O>
  static streamscan::status run_coo_to_csr(std::int64_t rows, std::int64_t cols, const std::vector<I>& r,
                                           const std::vector<I>& c, const std::vector<V>& v, std::vector<O>& offsets,
                                           std::vector<I>& columns, std::vector<V>& values, std::int64_t& entries,
                                           streamscan::coo_options opt) {
    namespace ss = streamscan;
    device_buffer<I> dr(r.size()), dc(c.size()), out_c(columns.size());
    device_buffer<V> dv(v.size()), out_v(values.size());
    device_buffer<O> out_o(offsets.size());
    dr.upload(r);
    dc.upload(c);
    dv.upload(v);
    out_o.upload(offsets);
    out_c.upload(columns);
    out_v.upload(values);
    ss::status s = ss::status::ok();
    try {
      entries = ss::cuda::coo_to_csr(rows, cols, static_cast<std::int64_t>(v.size()), dr.get(), dc.get(), dv.get(),
                                     out_o.get(), out_c.get(), out_v.get(), test_stream(), opt);
    } catch (const ss::error& e) {
      s = e.get_status();
    }
    out_o.download(offsets);
    out_c.download(columns);
    out_v.download(values);
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
  // y with a guard after it: nothing may be written past row large_rows - 1.
  constexpr std::int64_t guard = 64;
  device_buffer<float> values(nnz), x(large_cols), y(large_rows + guard);
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
  for (const auto strategy :
       {ss::spmv_strategy::merge_path, ss::spmv_strategy::segmented_scan, ss::spmv_strategy::row_groups,
        ss::spmv_strategy::nonzero_split}) {
    ss::spmv_options opt;
    opt.strategy = strategy;
    STREAMSCAN_TEST_CUDA(cudaMemset(y.get(), 0xff, (large_rows + guard) * sizeof(float)));
    ss::cuda::spmv(a, x.get(), y.get(), 1.0f, 0.0f, nullptr, opt);
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<float> got;
    y.download(got);
    for (std::int64_t r = 0; r < large_rows; ++r)
      ASSERT_EQ(got[r], expected[r]) << ss::to_string(strategy) << " row " << r;
    std::uint32_t bits = 0;
    for (std::int64_t r = large_rows; r < large_rows + guard; ++r) {
      std::memcpy(&bits, &got[r], sizeof(bits));
      ASSERT_EQ(bits, 0xffffffffu) << ss::to_string(strategy) << " wrote the guard after y at " << r;
    }
  }
}

// Each strategy's sums are a fixed sequence of operations: repeated runs of a
// float matrix with long rows give the same bits (row groups claim their
// long rows' chunk slots in whatever order the groups run).
TEST(spmv_cuda_repeatable, float_bits_repeat) {
  namespace ss = streamscan;
  using namespace streamscan_test;
  if (!gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = make_rng("spmv.repeatable");
  const auto a = random_csr<float, std::int32_t, std::int32_t>(rng, 50000, 20000, 6, 6, 30000);
  const auto x = random_vector<float>(rng, a.cols);
  device_buffer<std::int32_t> offsets(a.offsets.size()), columns(a.columns.size());
  device_buffer<float> values(a.values.size()), d_x(x.size()), y(a.rows);
  offsets.upload(a.offsets);
  columns.upload(a.columns);
  values.upload(a.values);
  d_x.upload(x);
  const ss::csr_view<float, std::int32_t, std::int32_t> view{a.rows, a.cols, a.nnz(), offsets.get(), columns.get(),
                                                             values.get()};
  for (const auto strategy :
       {ss::spmv_strategy::row_groups, ss::spmv_strategy::merge_path, ss::spmv_strategy::nonzero_split}) {
    ss::spmv_options opt;
    opt.strategy = strategy;
    std::vector<float> first, again;
    for (int run = 0; run < 20; ++run) {
      STREAMSCAN_TEST_CUDA(cudaMemset(y.get(), 0xff, a.rows * sizeof(float)));
      ss::cuda::spmv(view, d_x.get(), y.get(), 1.5f, 0.0f, nullptr, opt);
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      y.download(run == 0 ? first : again);
      if (run == 0) {
        const std::vector<float> y0(a.rows, 0.0f);
        ASSERT_EQ(spmv_mismatch(a, x, y0, first, 1.5f, 0.0f), "") << ss::to_string(strategy);
      } else {
        ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0)
            << ss::to_string(strategy) << ": run " << run << " differs; seed " << global_seed();
      }
    }
    // Prepared products give the same bits.
    std::size_t bytes = 0;
    ASSERT_TRUE(ss::cuda::spmv_prepare(nullptr, bytes, view, nullptr, opt).is_ok());
    device_buffer<unsigned char> temp(bytes);
    ASSERT_TRUE(ss::cuda::spmv_prepare(temp.get(), bytes, view, nullptr, opt).is_ok());
    opt.prepared = true;
    for (int run = 0; run < 3; ++run) {
      STREAMSCAN_TEST_CUDA(cudaMemset(y.get(), 0xff, a.rows * sizeof(float)));
      ASSERT_TRUE(ss::cuda::spmv(temp.get(), bytes, view, d_x.get(), y.get(), 1.5f, 0.0f, nullptr, opt).is_ok());
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      y.download(again);
      ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0)
          << ss::to_string(strategy) << ": prepared run " << run << " differs; seed " << global_seed();
    }
  }
}

// A plan that does not fit the matrix (prepared for another one, or temp
// storage never prepared) is the caller's error and gives wrong sums, but the
// kernels clamp what they read from it: nothing is written outside y (a
// poisoned guard after it stays), and the call does not fault.
TEST(spmv_cuda_prepared, a_stale_plan_stays_inside_the_arrays) {
  namespace ss = streamscan;
  using namespace streamscan_test;
  if (!gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = make_rng("spmv.stale_plan");
  const auto planned = random_csr<float, std::int32_t, std::int32_t>(rng, 60000, 3000, 40, 0, 0, 2, 30000);
  const auto a = random_csr<float, std::int32_t, std::int32_t>(rng, 20000, 3000, 30);
  const auto x = random_vector<float>(rng, a.cols);
  constexpr std::int64_t guard = 64;
  for (const auto strategy : {ss::spmv_strategy::nonzero_split, ss::spmv_strategy::merge_path}) {
    device_buffer<std::int32_t> p_offsets(planned.offsets.size()), p_columns(planned.columns.size()),
        offsets(a.offsets.size()), columns(a.columns.size());
    device_buffer<float> p_values(planned.values.size()), values(a.values.size()), d_x(x.size()), y(a.rows + guard);
    p_offsets.upload(planned.offsets);
    p_columns.upload(planned.columns);
    p_values.upload(planned.values);
    offsets.upload(a.offsets);
    columns.upload(a.columns);
    values.upload(a.values);
    d_x.upload(x);
    const ss::csr_view<float, std::int32_t, std::int32_t> pview{planned.rows, planned.cols, planned.nnz(),
                                                                p_offsets.get(), p_columns.get(), p_values.get()};
    const ss::csr_view<float, std::int32_t, std::int32_t> view{a.rows, a.cols, a.nnz(), offsets.get(), columns.get(),
                                                               values.get()};
    ss::spmv_options opt;
    opt.strategy = strategy;
    // Temp storage that fits both calls: the planned matrix's empty runs can
    // leave it fewer non-zeros, and so a smaller plan, than `a`.
    std::size_t bytes = 0, needed = 0;
    ASSERT_TRUE(ss::cuda::spmv_prepare(nullptr, bytes, pview, nullptr, opt).is_ok());
    ASSERT_TRUE(ss::cuda::spmv(nullptr, needed, view, d_x.get(), y.get(), 1.0f, 0.0f, nullptr, opt).is_ok());
    bytes = std::max(bytes, needed);
    device_buffer<unsigned char> temp(bytes);
    for (const bool never_prepared : {false, true}) {
      if (never_prepared)
        STREAMSCAN_TEST_CUDA(cudaMemset(temp.get(), 0xa5, bytes));
      else
        ASSERT_TRUE(ss::cuda::spmv_prepare(temp.get(), bytes, pview, nullptr, opt).is_ok());
      opt.prepared = true;
      STREAMSCAN_TEST_CUDA(cudaMemset(y.get(), 0xff, (a.rows + guard) * sizeof(float)));
      ASSERT_TRUE(ss::cuda::spmv(temp.get(), bytes, view, d_x.get(), y.get(), 1.0f, 0.0f, nullptr, opt).is_ok());
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      opt.prepared = false;
      std::vector<float> got;
      y.download(got);
      for (std::int64_t k = a.rows; k < a.rows + guard; ++k) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &got[k], sizeof(bits));
        ASSERT_EQ(bits, 0xffffffffu) << ss::to_string(strategy) << (never_prepared ? ", never prepared" : ", stale")
                                     << ": y[" << k << "] past the " << a.rows << " rows was written";
      }
    }
  }
}

}  // namespace
