// The batched tridiagonal solver on the GPU: the shared bodies
// (tridiagonal_test_body.hpp) through the two public forms, with the arrays
// copied to the device.
#include <streamscan/cuda/device/device_tridiagonal.cuh>

#include <algorithm>
#include <vector>

#include "common/cuda_helpers.cuh"
#include "tridiagonal_test_body.hpp"

namespace streamscan_test {

struct cuda_tridiagonal_backend {
  static constexpr const char* name = "cuda";
  static constexpr bool gpu = true;
  static bool available() { return gpu_present(); }

  template <class T>
  static streamscan::status run_tridiagonal(const host_tridiagonal<T>& a, const std::vector<T>& b, std::vector<T>& x,
                                            streamscan::tridiagonal_options opt, tridiagonal_form form,
                                            tridiagonal_null null_arg, bool in_place, std::int64_t* zero_pivot_at) {
    namespace ss = streamscan;
    device_buffer<T> d_lower(a.lower.size()), d_diagonal(a.diagonal.size()), d_upper(a.upper.size()),
        d_b(b.size()), d_x(x.size());
    device_buffer<std::int64_t> d_pivot(1);
    d_lower.upload(a.lower);
    d_diagonal.upload(a.diagonal);
    d_upper.upload(a.upper);
    d_b.upload(b);
    d_x.upload(x);
    auto pick = [&](auto* p, tridiagonal_null which) { return null_arg == which ? nullptr : p; };
    ss::tridiagonal_view<T> view = a.shape;
    view.lower = pick(d_lower.get(), tridiagonal_null::lower);
    view.diagonal = pick(d_diagonal.get(), tridiagonal_null::diagonal);
    view.upper = pick(d_upper.get(), tridiagonal_null::upper);
    T* xp = pick(d_x.get(), tridiagonal_null::x);
    const T* bp = in_place ? d_x.get() : pick(d_b.get(), tridiagonal_null::b);
    if (zero_pivot_at != nullptr) opt.zero_pivot_at = d_pivot.get();
    const cudaStream_t stream = test_stream();
    ss::status s = ss::status::ok();
    if (form == tridiagonal_form::convenience) {
      try {
        ss::cuda::tridiagonal_solve(view, bp, xp, stream, opt);
      } catch (const ss::error& e) {
        s = e.get_status();
      }
    } else {
      std::size_t bytes = 0;
      s = ss::cuda::tridiagonal_solve<T>(nullptr, bytes, view, bp, xp, stream, opt);
      if (s) {
        device_buffer<unsigned char> temp(bytes + 1);
        s = ss::cuda::tridiagonal_solve<T>(temp.get() + 1, bytes, view, bp, xp, stream, opt);  // unaligned on purpose
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      }
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    d_x.download(x);
    if (zero_pivot_at != nullptr) {
      std::vector<std::int64_t> word;
      d_pivot.download(word);
      *zero_pivot_at = word[0];
    }
    return s;
  }
};

}  // namespace streamscan_test

STREAMSCAN_TRIDIAGONAL_TESTS(tridiagonal_cuda, streamscan_test::cuda_tridiagonal_backend)

// One system of 2^31 + 3 rows (element offsets past int32; the partitioned
// method nested twice), filled on the device from a formula and checked on the
// host by its residual. Needs about 45 GB of GPU memory; skipped under
// STREAMSCAN_TEST_MAX_N (compute-sanitizer runs).
namespace {

constexpr std::int64_t large_n = (std::int64_t{1} << 31) + 3;

__host__ __device__ inline float large_coefficient(std::int64_t i, std::uint64_t salt) {
  const std::uint64_t h = (static_cast<std::uint64_t>(i) + salt) * 0x9E3779B97F4A7C15ull;
  return static_cast<float>((h >> 40) % 1000) / 1000.0f - 0.5f;  // in [-0.5, 0.5)
}

__global__ void fill_large_tridiagonal(float* lower, float* diagonal, float* upper, float* b) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < large_n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    lower[i] = large_coefficient(i, 1);
    upper[i] = large_coefficient(i, 2);
    diagonal[i] = 2.5f + large_coefficient(i, 3);  // dominant: |lower| + |upper| <= 1
    b[i] = large_coefficient(i, 4);
  }
}

}  // namespace

TEST(large_tridiagonal_cuda, one_system_past_two_to_the_31) {
  using streamscan_test::gpu_present;
  if (!gpu_present()) GTEST_SKIP() << "no GPU";
  if (std::getenv("STREAMSCAN_TEST_MAX_N") != nullptr) GTEST_SKIP() << "STREAMSCAN_TEST_MAX_N set";
  std::size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < (std::size_t{48} << 30)) GTEST_SKIP() << "needs 48 GiB of free GPU memory";
  // x has a poisoned guard past its large_n elements, which the solve must leave alone.
  constexpr std::int64_t guard = 64;
  streamscan_test::device_buffer<float> lower(large_n), diagonal(large_n), upper(large_n), b(large_n),
      x(large_n + guard);
  fill_large_tridiagonal<<<4096, 256>>>(lower.get(), diagonal.get(), upper.get(), b.get());
  STREAMSCAN_TEST_CUDA(cudaMemset(x.get(), 0xA5, static_cast<std::size_t>(large_n + guard) * sizeof(float)));
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  const auto view = streamscan::make_tridiagonal_view<float>(large_n, 1, lower.get(), diagonal.get(), upper.get());
  streamscan::tridiagonal_options opt;
  opt.checked = true;  // and a zero pivot would be an error
  std::size_t bytes = 0;
  ASSERT_TRUE(streamscan::cuda::tridiagonal_solve<float>(nullptr, bytes, view, b.get(), x.get(), nullptr, opt));
  streamscan_test::device_buffer<unsigned char> temp(bytes);
  const streamscan::status s =
      streamscan::cuda::tridiagonal_solve<float>(temp.get(), bytes, view, b.get(), x.get(), nullptr, opt);
  ASSERT_TRUE(s.is_ok()) << s.message();
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<float> h;
  x.download(h);
  const auto* tail = reinterpret_cast<const unsigned char*>(h.data() + large_n);
  EXPECT_EQ(std::count(tail, tail + guard * sizeof(float), static_cast<unsigned char>(0xA5)),
            static_cast<std::ptrdiff_t>(guard * sizeof(float)))
      << "the solve wrote past x's last element";
  double worst = 0, largest = 0;
  std::int64_t at = -1;
  for (std::int64_t i = 0; i < large_n; ++i) {
    double ax = (2.5 + large_coefficient(i, 3)) * double(h[i]);
    if (i > 0) ax += double(large_coefficient(i, 1)) * h[i - 1];
    if (i + 1 < large_n) ax += double(large_coefficient(i, 2)) * h[i + 1];
    const double r = std::fabs(ax - double(large_coefficient(i, 4)));
    if (!(r <= worst)) {
      worst = r;
      at = i;
    }
    largest = std::max(largest, std::fabs(double(h[i])));
  }
  const double bound = 64 * 1.1920929e-7 * 32 * (0.5 + 3.5 * largest);
  EXPECT_LE(worst, bound) << "largest residual at row " << at << "; |x| up to " << largest;
}
