// The linear recurrence's CUDA adapter (linear_recurrence_test_body.hpp):
// arrays copied to the device, the 16-bit types passed as CUDA's __half and
// __nv_bfloat16 (the public API's types; the body's streamscan::float16 and
// bfloat16 are the same bits), temp storage deliberately unaligned.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <streamscan/cuda/device/device_linear_recurrence.cuh>

#include <type_traits>
#include <vector>

#include "common/cuda_helpers.cuh"
#include "linear_recurrence_test_body.hpp"

namespace streamscan_test {

struct cuda_recurrence_backend {
  static constexpr const char* name = "cuda";
  static constexpr bool gpu = true;
  static bool available() { return gpu_present(); }

  template <class T>
  using api_t = std::conditional_t<std::is_same_v<T, streamscan::float16>, __half,
                                   std::conditional_t<std::is_same_v<T, streamscan::bfloat16>, __nv_bfloat16, T>>;
  template <class T>
  static auto api(T* p) {
    return reinterpret_cast<api_t<std::remove_const_t<T>>*>(p);
  }
  template <class T>
  static auto api(const T* p) {
    return reinterpret_cast<const api_t<T>*>(p);
  }

  template <class T>
  static streamscan::status forward(const streamscan::recurrence_layout& l, const std::vector<T>& a,
                                    const std::vector<T>& b, std::vector<T>& h, const std::vector<T>* initial,
                                    streamscan::recurrence_options opt, recurrence_form form, recurrence_null null_arg,
                                    recurrence_in_place in_place) {
    namespace ss = streamscan;
    device_buffer<T> d_a(a.size()), d_b(b.size()), d_h(h.size()), d_i(initial ? initial->size() : 0);
    d_a.upload(a);
    d_b.upload(b);
    d_h.upload(h);
    if (initial) d_i.upload(*initial);
    auto pick = [&](auto* p, recurrence_null which) { return null_arg == which ? nullptr : p; };
    const T* ap = in_place == recurrence_in_place::on_a ? d_h.get() : pick(d_a.get(), recurrence_null::a);
    const T* bp = in_place == recurrence_in_place::on_b ? d_h.get() : pick(d_b.get(), recurrence_null::b);
    T* hp = pick(d_h.get(), recurrence_null::h);
    const T* ip = initial ? d_i.get() : nullptr;
    const cudaStream_t stream = test_stream();
    ss::status s = ss::status::ok();
    if (form == recurrence_form::convenience) {
      try {
        ss::cuda::linear_recurrence(l, api(ap), api(bp), api(hp), api(ip), stream, opt);
      } catch (const ss::error& e) {
        s = e.get_status();
      }
    } else {
      std::size_t bytes = 0;
      s = ss::cuda::linear_recurrence(nullptr, bytes, l, api(ap), api(bp), api(hp), api(ip), stream, opt);
      if (s) {
        device_buffer<unsigned char> temp(bytes + 1);
        s = ss::cuda::linear_recurrence(temp.get() + 1, bytes, l, api(ap), api(bp), api(hp), api(ip), stream, opt);
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      }
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    d_h.download(h);
    return s;
  }

  template <class T>
  static streamscan::status backward(const streamscan::recurrence_layout& l, const std::vector<T>& a,
                                     const std::vector<T>& h, const std::vector<T>& dh, const std::vector<T>* initial,
                                     std::vector<T>& grad_a, std::vector<T>& grad_b, std::vector<T>* grad_initial,
                                     streamscan::recurrence_options opt, recurrence_form form,
                                     recurrence_null null_arg, bool in_place) {
    namespace ss = streamscan;
    device_buffer<T> d_a(a.size()), d_h(h.size()), d_dh(dh.size()), d_i(initial ? initial->size() : 0),
        d_ga(grad_a.size()), d_gb(grad_b.size()), d_gi(grad_initial ? grad_initial->size() : 0);
    d_a.upload(a);
    d_h.upload(h);
    d_dh.upload(dh);
    if (initial) d_i.upload(*initial);
    d_ga.upload(grad_a);
    d_gb.upload(grad_b);
    if (grad_initial) d_gi.upload(*grad_initial);
    auto pick = [&](auto* p, recurrence_null which) { return null_arg == which ? nullptr : p; };
    const T* ap = pick(d_a.get(), recurrence_null::a);
    const T* hp = pick(d_h.get(), recurrence_null::h);
    const T* dp = in_place ? d_gb.get() : pick(d_dh.get(), recurrence_null::dh);
    T* gap = pick(d_ga.get(), recurrence_null::grad_a);
    T* gbp = pick(d_gb.get(), recurrence_null::grad_b);
    const T* ip = initial ? d_i.get() : nullptr;
    T* gip = grad_initial ? d_gi.get() : nullptr;
    const cudaStream_t stream = test_stream();
    ss::status s = ss::status::ok();
    if (form == recurrence_form::convenience) {
      try {
        ss::cuda::linear_recurrence_backward(l, api(ap), api(hp), api(dp), api(ip), api(gap), api(gbp), api(gip),
                                             stream, opt);
      } catch (const ss::error& e) {
        s = e.get_status();
      }
    } else {
      std::size_t bytes = 0;
      s = ss::cuda::linear_recurrence_backward(nullptr, bytes, l, api(ap), api(hp), api(dp), api(ip), api(gap),
                                               api(gbp), api(gip), stream, opt);
      if (s) {
        device_buffer<unsigned char> temp(bytes + 1);
        s = ss::cuda::linear_recurrence_backward(temp.get() + 1, bytes, l, api(ap), api(hp), api(dp), api(ip),
                                                 api(gap), api(gbp), api(gip), stream, opt);
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      }
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    d_ga.download(grad_a);
    d_gb.download(grad_b);
    if (grad_initial) d_gi.download(*grad_initial);
    return s;
  }
};

}  // namespace streamscan_test
