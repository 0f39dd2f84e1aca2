// The batched tridiagonal solver on the GPU: the shared bodies
// (tridiagonal_test_body.hpp) through the two public forms, with the arrays
// copied to the device.
#include <streamscan/cuda/device/device_tridiagonal.cuh>

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
