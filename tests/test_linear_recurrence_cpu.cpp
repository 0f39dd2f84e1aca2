// The linear recurrence and its gradient on the CPU back end.
#include <streamscan/cpu/linear_recurrence.hpp>

#include <vector>

#include "linear_recurrence_test_body.hpp"

namespace streamscan_test {

struct cpu_recurrence_backend {
  static constexpr const char* name = "cpu";
  static constexpr bool gpu = false;
  static bool available() { return true; }

  template <class T>
  static streamscan::status forward(const streamscan::recurrence_layout& l, const std::vector<T>& a,
                                    const std::vector<T>& b, std::vector<T>& h, const std::vector<T>* initial,
                                    streamscan::recurrence_options opt, recurrence_form form, recurrence_null null_arg,
                                    recurrence_in_place in_place) {
    namespace ss = streamscan;
    auto pick = [&](auto* p, recurrence_null which) { return null_arg == which ? nullptr : p; };
    const T* ap = in_place == recurrence_in_place::on_a ? h.data() : pick(a.data(), recurrence_null::a);
    const T* bp = in_place == recurrence_in_place::on_b ? h.data() : pick(b.data(), recurrence_null::b);
    T* hp = pick(h.data(), recurrence_null::h);
    const T* ip = initial ? initial->data() : nullptr;
    try {
      if (form == recurrence_form::convenience) {
        ss::cpu::linear_recurrence(l, ap, bp, hp, ip, opt);
        return ss::status::ok();
      }
      std::size_t bytes = 0;
      if (ss::status s = ss::cpu::linear_recurrence<T>(nullptr, bytes, l, ap, bp, hp, ip, opt); !s) return s;
      std::vector<unsigned char> temp(bytes);
      return ss::cpu::linear_recurrence<T>(temp.data(), bytes, l, ap, bp, hp, ip, opt);
    } catch (const ss::error& e) {
      return e.get_status();
    }
  }

  template <class T>
  static streamscan::status backward(const streamscan::recurrence_layout& l, const std::vector<T>& a,
                                     const std::vector<T>& h, const std::vector<T>& dh, const std::vector<T>* initial,
                                     std::vector<T>& grad_a, std::vector<T>& grad_b, std::vector<T>* grad_initial,
                                     streamscan::recurrence_options opt, recurrence_form form,
                                     recurrence_null null_arg, bool in_place) {
    namespace ss = streamscan;
    auto pick = [&](auto* p, recurrence_null which) { return null_arg == which ? nullptr : p; };
    const T* ap = pick(a.data(), recurrence_null::a);
    const T* hp = pick(h.data(), recurrence_null::h);
    const T* dp = in_place ? grad_b.data() : pick(dh.data(), recurrence_null::dh);
    T* gap = pick(grad_a.data(), recurrence_null::grad_a);
    T* gbp = pick(grad_b.data(), recurrence_null::grad_b);
    const T* ip = initial ? initial->data() : nullptr;
    T* gip = grad_initial ? grad_initial->data() : nullptr;
    try {
      if (form == recurrence_form::convenience) {
        ss::cpu::linear_recurrence_backward(l, ap, hp, dp, ip, gap, gbp, gip, opt);
        return ss::status::ok();
      }
      std::size_t bytes = 0;
      if (ss::status s = ss::cpu::linear_recurrence_backward<T>(nullptr, bytes, l, ap, hp, dp, ip, gap, gbp, gip, opt); !s)
        return s;
      std::vector<unsigned char> temp(bytes);
      return ss::cpu::linear_recurrence_backward<T>(temp.data(), bytes, l, ap, hp, dp, ip, gap, gbp, gip, opt);
    } catch (const ss::error& e) {
      return e.get_status();
    }
  }
};

}  // namespace streamscan_test

STREAMSCAN_RECURRENCE_TESTS(linear_recurrence_cpu, streamscan_test::cpu_recurrence_backend, float, double,
                            streamscan::float16, streamscan::bfloat16)
