// The batched tridiagonal solver on the CPU back end.
#include <streamscan/cpu/tridiagonal.hpp>

#include <vector>

#include "tridiagonal_test_body.hpp"

namespace streamscan_test {

struct cpu_tridiagonal_backend {
  static constexpr const char* name = "cpu";
  static constexpr bool gpu = false;
  static bool available() { return true; }

  template <class T>
  static streamscan::status run_tridiagonal(const host_tridiagonal<T>& a, const std::vector<T>& b, std::vector<T>& x,
                                            streamscan::tridiagonal_options opt, tridiagonal_form form,
                                            tridiagonal_null null_arg, bool in_place, std::int64_t* /*zero_pivot_at*/) {
    namespace ss = streamscan;
    auto pick = [&](auto* p, tridiagonal_null which) { return null_arg == which ? nullptr : p; };
    ss::tridiagonal_view<T> view = a.shape;
    view.lower = pick(a.lower.data(), tridiagonal_null::lower);
    view.diagonal = pick(a.diagonal.data(), tridiagonal_null::diagonal);
    view.upper = pick(a.upper.data(), tridiagonal_null::upper);
    T* xp = pick(x.data(), tridiagonal_null::x);
    const T* bp = in_place ? x.data() : pick(b.data(), tridiagonal_null::b);
    if (form == tridiagonal_form::convenience) {
      try {
        ss::cpu::tridiagonal_solve(view, bp, xp, opt);
        return ss::status::ok();
      } catch (const ss::error& e) {
        return e.get_status();
      }
    }
    std::size_t bytes = 0;
    if (ss::status s = ss::cpu::tridiagonal_solve<T>(nullptr, bytes, view, bp, xp, opt); !s) return s;
    std::vector<unsigned char> temp(bytes);
    return ss::cpu::tridiagonal_solve<T>(temp.data(), bytes, view, bp, xp, opt);
  }
};

}  // namespace streamscan_test

STREAMSCAN_TRIDIAGONAL_TESTS(tridiagonal_cpu, streamscan_test::cpu_tridiagonal_backend)
