// SpMV on the CPU back end.
#include <streamscan/cpu/coo_to_csr.hpp>
#include <streamscan/cpu/spmv.hpp>

#include <vector>

#include "spmv_test_body.hpp"

namespace streamscan_test {

struct cpu_spmv_backend {
  static constexpr const char* name = "cpu";
  static constexpr std::int64_t long_row = 200000;
  static bool available() { return true; }

  template <class V, class O, class I>
  static streamscan::status run_spmv(const host_csr<V, O, I>& a, const std::vector<V>& x, std::vector<V>& y, V alpha,
                                     V beta, streamscan::spmv_options opt, spmv_form form, spmv_null null_arg) {
    namespace ss = streamscan;
    auto pick = [&](auto* p, spmv_null which) { return null_arg == which ? nullptr : p; };
    const ss::csr_view<V, O, I> view{a.rows, a.cols, a.nnz(), pick(a.offsets.data(), spmv_null::offsets),
                                     pick(a.columns.data(), spmv_null::columns), pick(a.values.data(), spmv_null::values)};
    const V* xp = pick(x.data(), spmv_null::x);
    V* yp = pick(y.data(), spmv_null::y);
    if (form == spmv_form::convenience) {
      try {
        ss::cpu::spmv(view, xp, yp, alpha, beta, opt);
        return ss::status::ok();
      } catch (const ss::error& e) {
        return e.get_status();
      }
    }
    std::size_t bytes = 0;
    if (ss::status s = ss::cpu::spmv(nullptr, bytes, view, xp, yp, alpha, beta, opt); !s) return s;
    std::vector<unsigned char> temp(bytes);
    if (form == spmv_form::prepared) {
      if (ss::status s = ss::cpu::spmv_prepare(temp.data(), bytes, view, opt); !s) return s;
      opt.prepared = true;
      std::vector<V> first = y;
      if (ss::status s = ss::cpu::spmv(temp.data(), bytes, view, xp, first.data(), alpha, beta, opt); !s) return s;
    }
    return ss::cpu::spmv(temp.data(), bytes, view, xp, yp, alpha, beta, opt);
  }

  template <class I, class V, class O>
  static streamscan::status run_coo_to_csr(std::int64_t rows, std::int64_t cols, const std::vector<I>& r,
                                           const std::vector<I>& c, const std::vector<V>& v, std::vector<O>& offsets,
                                           std::vector<I>& columns, std::vector<V>& values, std::int64_t& entries,
                                           streamscan::coo_options opt) {
    namespace ss = streamscan;
    const auto nnz = static_cast<std::int64_t>(v.size());
    std::size_t bytes = 0;
    if (ss::status s = ss::cpu::coo_to_csr(nullptr, bytes, rows, cols, nnz, r.data(), c.data(), v.data(),
                                           offsets.data(), columns.data(), values.data(), &entries, opt);
        !s)
      return s;
    std::vector<unsigned char> temp(bytes + 1);
    return ss::cpu::coo_to_csr(temp.data() + 1, bytes, rows, cols, nnz, r.data(), c.data(), v.data(),  // unaligned
                               offsets.data(), columns.data(), values.data(), &entries, opt);
  }
};

}  // namespace streamscan_test

STREAMSCAN_SPMV_TESTS(spmv_cpu, streamscan_test::cpu_spmv_backend)
