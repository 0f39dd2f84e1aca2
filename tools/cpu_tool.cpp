// The streamscan command's CPU half: bench and verify of the CPU back end
// (used without a GPU, or with --cpu), and the candidate list.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <streamscan/cpu.hpp>
#include <streamscan/tuning/choose.hpp>

#include "fill.hpp"
#include "tool.hpp"
#include "verify_body.hpp"

namespace streamscan_tool {
namespace {

using streamscan_test::vec4i;
using streamscan_test::vec4i_plus;

template <class F>
timing cpu_median_ms(int repeats, F f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return timing::of(std::move(t));
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  if constexpr (std::is_same_v<T, float>) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(std::fabs(a[i] - b[i]) <= 1e-3f * std::max(1.0f, std::fabs(b[i])))) return false;
    return true;
  } else {
    return a == b;
  }
}

template <class T, class Op>
void bench_one(const bench_options& o, const char* type, int log2n, Op op, bench_report& rep, progress& bar) {
  const std::int64_t n = std::int64_t{1} << log2n;
  std::vector<T> in(static_cast<std::size_t>(n)), out(in.size()), reference(in.size());
  for (std::int64_t i = 0; i < n; ++i) in[i] = bench_value<T>(i, bench_seed);
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const std::string where = std::string(type) + " 2^" + std::to_string(log2n) + " ";
  auto add = [&](const std::string& algorithm, const std::string& policy, const timing& ms, bool ok) {
    rep.rows.push_back({type, log2n, n, algorithm, policy, ms, bytes, ok, 0, 0});
  };
  std::inclusive_scan(in.begin(), in.end(), reference.begin(), op);
  auto wants = [&](const std::string& a) { return std::find(o.algorithms.begin(), o.algorithms.end(), a) != o.algorithms.end(); };
  if (wants("memcpy")) {
    bar.step(where + "memcpy");
    add("std::memcpy", "-", cpu_median_ms(o.repeat, [&] { std::memcpy(out.data(), in.data(), n * sizeof(T)); }), true);
  }
  if (wants("cub") || wants("thrust")) {  // the sequential scan users have without a GPU stands in for both
    bar.step(where + "std::inclusive_scan");
    add("std::inclusive_scan", "-",
        cpu_median_ms(o.repeat, [&] { std::inclusive_scan(in.begin(), in.end(), out.begin(), op); }), true);
  }
  for (const auto strategy : {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
                              streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback}) {
    const std::string name = streamscan::to_string(strategy);
    if (!wants(name)) continue;
    bar.step(where + name);
    const bool single_pass =
        strategy == streamscan::scan_strategy::chained || strategy == streamscan::scan_strategy::decoupled_lookback;
    const timing ms = cpu_median_ms(o.repeat, [&] {
      streamscan::cpu::inclusive_scan(in.data(), out.data(), n, op, {strategy});
    });
    std::fill(out.begin(), out.end(), T{});
    streamscan::cpu::inclusive_scan(in.data(), out.data(), n, op, {strategy});
    add(name, single_pass ? "runs reduce_then_scan" : "-", ms, same(out, reference));
  }
}

struct cpu_verify_backend {
  static constexpr const char* name = "cpu";
  std::vector<streamscan::scan_strategy> strategies() const {
    return {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
            streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  }
  std::vector<std::string> policies(streamscan::scan_strategy, std::size_t) const { return {"-"}; }
  template <class A>
  std::int64_t tile_items(streamscan::scan_strategy, const std::string&) const {
    return streamscan::cpu::default_scan_policy.chunk_items;
  }

  static constexpr std::int64_t large_size = 1000000;
  // The other primitives (verify_primitives.hpp): host memory is the "device".
  template <class T>
  struct buffer {
    mutable std::vector<T> v;
    explicit buffer(const std::vector<T>& from) : v(from) {}
    T* get() const { return v.data(); }
    void download(std::vector<T>& to) const { to = v; }
  };
  STREAMSCAN_VERIFY_FORWARDERS(streamscan::cpu, )
  static std::vector<streamscan::scan_strategy> segmented_strategies() {
    return {streamscan::scan_strategy::automatic, streamscan::scan_strategy::reduce_then_scan,
            streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  }
  static std::vector<streamscan::select_strategy> compaction_strategies() { return {streamscan::select_strategy::stable}; }
  static std::vector<streamscan::sort_strategy> sort_strategies() {
    return {streamscan::sort_strategy::automatic, streamscan::sort_strategy::split};
  }
  static std::vector<streamscan::spmv_strategy> spmv_strategies() { return {streamscan::spmv_strategy::automatic}; }
  static std::vector<streamscan::tridiagonal_strategy> tridiagonal_strategies(std::int64_t n) {
    return streamscan_test::tridiagonal_strategies(n, false);
  }
  template <class A>
  static std::int64_t segmented_tile() {
    return streamscan::cpu::default_scan_policy.chunk_items;
  }
  static std::int64_t select_tile() { return streamscan::cpu::default_scan_policy.chunk_items; }
  template <class K, int ValueBytes>
  static std::int64_t sort_tile() {
    return 4096;
  }
  template <class A, class Op>
  std::string run(streamscan_test::scan_kind kind, const std::vector<A>& in, std::vector<A>& out, Op op, A init,
                  streamscan::scan_strategy s, const std::string&) const {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    const ss::scan_options opt{s};
    std::size_t bytes = 0;
    auto invoke = [&](void* temp) {
      switch (kind) {
        case streamscan_test::scan_kind::inclusive: return ss::cpu::inclusive_scan(temp, bytes, in.data(), out.data(), n, op, opt);
        case streamscan_test::scan_kind::inclusive_init:
          return ss::cpu::inclusive_scan_init(temp, bytes, in.data(), out.data(), n, op, init, opt);
        default: return ss::cpu::exclusive_scan(temp, bytes, in.data(), out.data(), n, init, op, opt);
      }
    };
    ss::status st = invoke(nullptr);
    std::vector<unsigned char> temp(bytes);
    if (st) st = invoke(temp.data());
    return st ? std::string() : st.message();
  }
};

}  // namespace

int cpu_bench(const bench_options& given, bench_report& rep) {
  bench_options o = given;
  if (!o.repeat_given) o.repeat = 5;
  rep.repeat = o.repeat;
  std::vector<int> sizes;
  for (const int e : o.log2_sizes) {
    if (!o.sizes_given && e > 24) {
      rep.skipped.push_back("2^" + std::to_string(e) + " on the CPU (default sizes stop at 2^24; --sizes to force)");
      continue;
    }
    sizes.push_back(e);
  }
  progress bar(o.progress, static_cast<int>(o.types.size() * sizes.size() * o.algorithms.size()));
  for (const auto& t : o.types)
    for (const int e : sizes) {
      visit_bench_type(t, [&](auto tag, const char* name, auto op) {
        bench_one<typename decltype(tag)::type>(o, name, e, op, rep, bar);
      });
    }
  bar.done();
  return all_verified(rep) ? 0 : 1;
}

int cpu_verify(const verify_options& o) {
  cpu_verify_backend b;
  return run_verify(b, o.seed, o.progress);
}

void list_candidates() {
  namespace st = streamscan::tuning;
  std::printf("compiled-in candidate policies (streamscan/tuning/), * = default for small n, + = for large n on sm_90:\n");
  for (const st::algorithm a : st::all_algorithms)
    for (const std::size_t bytes : {1, 2, 4, 8, 16, 32}) {
      const st::candidate_list list = st::candidates_for(a, bytes);
      std::printf("  %-20s %2zu-byte values:", st::to_string(a), bytes);
      if (list.count == 0) std::printf(" one fixed policy");
      const int small = st::default_for(a, bytes, 0, 90), large = st::listed_default(a, bytes);
      for (int i = 0; i < list.count; ++i)
        std::printf(" %s%s", st::candidate_name(a, bytes, i).c_str(), i == small ? "*" : i == large ? "+" : "");
      std::printf("\n");
    }
  std::printf("  (tYxZ = Y threads x Z 16-byte loads in flight per thread; pYxZsS[rR]: pipelined, S stages in\n"
              "   shared memory, R reduce warps; oYxZsSbK: outbox compaction, a ring of K KB; sYxZ: segmented\n"
              "   one-tile kernel; tY-SCAN = 2D matrix scan, block scan SCAN; cYrRsS / sYrRsS = StreamScan 3D\n"
              "   scan, coalesced / strided loads, R register and S shared-memory pieces per warp; multi-pass:\n"
              "   pN = N partitions per SM; grammar: streamscan/tuning/shape.hpp)\n");
}

}  // namespace streamscan_tool
