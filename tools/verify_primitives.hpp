// `streamscan verify` beyond the plain scans: segmented and backward scans,
// enumerate, distribute, segmented reduction, compaction in each strategy,
// partition, split, split-and-segment, the sorts, SpMV, coo_to_csr and the tridiagonal
// solver, each against the tests' naive host oracles (tests/common/) on fresh
// random inputs, outputs poisoned, at sizes 0, 1, around a tile, a few tiles
// and a random large one. One line per primitive and strategy.
//
// A Backend offers, besides what verify_body.hpp asks:
//   template <class T> buffer: buffer(const std::vector<T>&) copies in; get() -> T*; download(std::vector<T>&)
//   segmented_strategies(), compaction_strategies(), sort_strategies(), spmv_strategies(),
//   tridiagonal_strategies(std::int64_t n)
//   template <class A> std::int64_t segmented_tile(); std::int64_t select_tile();
//   template <class K, int value_bytes> std::int64_t sort_tile();
//   large_size: the largest random size
//   the convenience forms with the options first: STREAMSCAN_VERIFY_FORWARDERS.
// Errors come back as exceptions (streamscan::error, or a CUDA failure).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <streamscan/operators.hpp>
#include <streamscan/segmented.hpp>
#include <streamscan/select.hpp>
#include <streamscan/sort.hpp>
#include <streamscan/spmv.hpp>
#include <streamscan/tridiagonal.hpp>

#include "../tests/common/oracle.hpp"
#include "../tests/common/random.hpp"
#include "../tests/common/segmented_oracle.hpp"
#include "../tests/common/select_oracle.hpp"
#include "../tests/common/sort_oracle.hpp"
#include "../tests/common/spmv_oracle.hpp"
#include "../tests/common/tridiagonal_oracle.hpp"
#include "../tests/common/types.hpp"
#include "report.hpp"

// One forwarder per convenience form: NAME(options, args...) calls
// NS::NAME(args..., [stream,] options). The back ends' forms differ only by
// the CUDA stream before the options; pass `cudaStream_t{},` as the stream
// argument, or nothing for the CPU.
#define STREAMSCAN_VERIFY_FORWARD(NS, NAME, ...)                  \
  template <class Options, class... Args>                         \
  static auto NAME(const Options& options, const Args&... args) { \
    return NS::NAME(args..., __VA_ARGS__ options);                \
  }
#define STREAMSCAN_VERIFY_FORWARDERS(NS, ...)                                  \
  STREAMSCAN_VERIFY_FORWARD(NS, segmented_inclusive_scan, __VA_ARGS__)         \
  STREAMSCAN_VERIFY_FORWARD(NS, segmented_inclusive_scan_init, __VA_ARGS__)    \
  STREAMSCAN_VERIFY_FORWARD(NS, segmented_exclusive_scan, __VA_ARGS__)         \
  STREAMSCAN_VERIFY_FORWARD(NS, enumerate, __VA_ARGS__)                        \
  STREAMSCAN_VERIFY_FORWARD(NS, distribute, __VA_ARGS__)                       \
  STREAMSCAN_VERIFY_FORWARD(NS, segmented_reduce, __VA_ARGS__)                 \
  STREAMSCAN_VERIFY_FORWARD(NS, select_if, __VA_ARGS__)                        \
  STREAMSCAN_VERIFY_FORWARD(NS, select_flagged, __VA_ARGS__)                   \
  STREAMSCAN_VERIFY_FORWARD(NS, partition, __VA_ARGS__)                        \
  STREAMSCAN_VERIFY_FORWARD(NS, stable_partition, __VA_ARGS__)                 \
  STREAMSCAN_VERIFY_FORWARD(NS, split, __VA_ARGS__)                            \
  STREAMSCAN_VERIFY_FORWARD(NS, split_and_segment, __VA_ARGS__)               \
  STREAMSCAN_VERIFY_FORWARD(NS, radix_sort_keys, __VA_ARGS__)                  \
  STREAMSCAN_VERIFY_FORWARD(NS, radix_sort_pairs, __VA_ARGS__)                 \
  STREAMSCAN_VERIFY_FORWARD(NS, quicksort, __VA_ARGS__)                        \
  STREAMSCAN_VERIFY_FORWARD(NS, spmv, __VA_ARGS__)                             \
  STREAMSCAN_VERIFY_FORWARD(NS, coo_to_csr, __VA_ARGS__)                       \
  STREAMSCAN_VERIFY_FORWARD(NS, tridiagonal_solve, __VA_ARGS__)

namespace streamscan_tool {

namespace verify_detail {
namespace st = streamscan_test;

// One printed line: a primitive, a strategy, how many runs, the first failure.
struct verify_line {
  std::string primitive, strategy;
  int runs = 0;
  std::string first_failure;
  void record(const std::string& what, const std::string& why) {
    ++runs;
    if (!why.empty() && first_failure.empty()) first_failure = what + ": " + why;
  }
};

// Runs f; an exception becomes its message.
template <class F>
std::string attempt(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      std::ostringstream os;
      os << "element " << i << " of " << got.size() << " differs";
      if constexpr (std::is_arithmetic_v<T>) os << ": got " << +got[i] << ", expected " << +want[i];
      return os.str();
    }
  return {};
}

// 0, 1, a tile and its neighbours, a few tiles, and a random large size (up
// to the back end's large_size).
template <class B>
std::vector<std::int64_t> sizes_around(std::int64_t tile, std::mt19937_64& rng) {
  std::vector<std::int64_t> v = {0, 1, tile - 1, tile, tile + 1, 3 * tile + 7,
                                 std::uniform_int_distribution<std::int64_t>(B::large_size / 10, B::large_size)(rng)};
  v.erase(std::remove_if(v.begin(), v.end(), [](std::int64_t n) { return n < 0; }), v.end());
  return v;
}

// ---- segmented scans, enumerate, distribute ----

template <class B, class A, class Op>
std::string run_segmented(st::seg_kind kind, st::seg_form form, const streamscan::segmented_options& opt,
                          const std::vector<A>& in, const st::segments_fixture& segs, Op op, A init,
                          std::vector<A>& out) {
  namespace ss = streamscan;
  const auto n = static_cast<std::int64_t>(in.size());
  typename B::template buffer<A> d_in(in), d_out(out);
  typename B::template buffer<unsigned char> d_flags(segs.flags);
  typename B::template buffer<std::uint32_t> d_bits(segs.bits);
  typename B::template buffer<std::int64_t> d_offsets(segs.offsets);
  auto call = [&](auto segments) {
    switch (kind) {
      case st::seg_kind::inclusive: B::segmented_inclusive_scan(opt, d_in.get(), d_out.get(), n, segments, op); break;
      case st::seg_kind::inclusive_init:
        B::segmented_inclusive_scan_init(opt, d_in.get(), d_out.get(), n, segments, op, init);
        break;
      case st::seg_kind::exclusive:
        B::segmented_exclusive_scan(opt, d_in.get(), d_out.get(), n, segments, init, op);
        break;
      case st::seg_kind::enumerate:
        if constexpr (std::is_arithmetic_v<A>) B::enumerate(opt, d_in.get(), d_out.get(), n, segments);
        break;
      default: B::distribute(opt, d_in.get(), d_out.get(), n, segments);
    }
  };
  switch (form) {
    case st::seg_form::flags: call(ss::head_flags(d_flags.get())); break;
    case st::seg_form::bits: call(ss::head_bits(d_bits.get())); break;
    default:
      call(ss::segment_offsets<const std::int64_t*>{d_offsets.get(), static_cast<std::int64_t>(segs.offsets.size()) - 1});
  }
  d_out.download(out);
  return {};
}

template <class B, class A, class Op>
void check_segmented(B&, verify_line& line, st::seg_kind kind, streamscan::scan_strategy s, Op op, const char* type,
                     std::mt19937_64& rng) {
  const std::vector<double> means = {1, 4, 300, 1e12};
  for (const std::int64_t n : sizes_around<B>(B::template segmented_tile<A>(), rng)) {
    const double mean = means[rng() % means.size()];
    const st::segments_fixture segs = st::make_segments(rng, n, mean);
    for (const st::seg_form form : {st::seg_form::flags, st::seg_form::bits, st::seg_form::offsets})
      for (const auto dir : {streamscan::scan_direction::forward, streamscan::scan_direction::backward}) {
        std::vector<A> in = st::random_vector<A>(rng, n);
        A init = st::random_init<A>(rng);
        if constexpr (std::is_arithmetic_v<A>) {
          if (kind == st::seg_kind::enumerate) {  // 0/1 flags in, counts out
            for (auto& x : in) x = static_cast<A>(rng() % 2);
            init = A(0);
          }
        }
        std::vector<A> out(in.size());
        st::poison(out);
        const streamscan::segmented_options opt{dir, {s}};
        std::string why = attempt([&] { return run_segmented<B>(kind, form, opt, in, segs, op, init, out); });
        if (why.empty()) {
          const auto oracle_kind = kind == st::seg_kind::enumerate ? st::seg_kind::exclusive : kind;
          why = first_difference(out, st::oracle_segmented<A>(in, segs.flags, op, oracle_kind, init, dir));
        }
        line.record(std::string(type) + ", n = " + std::to_string(n) + ", " + st::to_string(form) + ", " +
                        streamscan::to_string(dir),
                    why);
      }
  }
}

// ---- segmented reduction ----

template <class B, class A, class Op>
void check_segmented_reduce(B&, verify_line& line, Op op, const char* type, std::mt19937_64& rng) {
  namespace ss = streamscan;
  for (const std::int64_t n : sizes_around<B>(B::template segmented_tile<A>(), rng)) {
    const st::segments_fixture segs = st::make_segments(rng, n, std::vector<double>{1, 5, 700, 1e12}[rng() % 4]);
    const std::vector<A> in = st::random_vector<A>(rng, n);
    const A init = st::random_init<A>(rng);
    for (const st::seg_form form : {st::seg_form::flags, st::seg_form::bits, st::seg_form::offsets}) {
      const std::vector<A> want = form == st::seg_form::offsets
                                      ? st::oracle_segmented_reduce_offsets<A>(in, segs.offsets, op, init)
                                      : st::oracle_segmented_reduce_flags<A>(in, segs.flags, op, init);
      std::vector<A> out(want.size());
      st::poison(out);
      std::string why = attempt([&] {
        typename B::template buffer<A> d_in(in), d_out(out);
        typename B::template buffer<unsigned char> d_flags(segs.flags);
        typename B::template buffer<std::uint32_t> d_bits(segs.bits);
        typename B::template buffer<std::int64_t> d_offsets(segs.offsets);
        std::int64_t* no_count = nullptr;  // the last argument, where the options would be
        if (form == st::seg_form::flags)
          B::segmented_reduce(no_count, d_in.get(), d_out.get(), n, ss::head_flags(d_flags.get()), init, op);
        else if (form == st::seg_form::bits)
          B::segmented_reduce(no_count, d_in.get(), d_out.get(), n, ss::head_bits(d_bits.get()), init, op);
        else
          B::segmented_reduce(no_count, d_in.get(), d_out.get(), n,
                              ss::segment_offsets<const std::int64_t*>{d_offsets.get(),
                                                                       static_cast<std::int64_t>(segs.offsets.size()) - 1},
                              init, op);
        d_out.download(out);
        return std::string();
      });
      if (why.empty()) why = first_difference(out, want);
      line.record(std::string(type) + ", n = " + std::to_string(n) + ", " + st::to_string(form), why);
    }
  }
}

// ---- compaction, partition, split, split-and-segment ----

template <class B>
std::string run_select(st::select_kind kind, const streamscan::select_options& opt, const std::vector<std::int32_t>& in,
                       const std::vector<unsigned char>& keep, const std::vector<unsigned char>& heads,
                       std::int32_t threshold, std::vector<std::int32_t>& out, std::vector<unsigned char>& heads_out,
                       std::int64_t& num) {
  const auto n = static_cast<std::int64_t>(in.size());
  typename B::template buffer<std::int32_t> d_in(in), d_out(out);
  typename B::template buffer<unsigned char> d_keep(keep), d_heads_out(heads_out);
  const st::below pred{threshold};
  switch (kind) {
    case st::select_kind::select_if: num = B::select_if(opt, d_in.get(), d_out.get(), n, n, pred); break;
    case st::select_kind::select_flagged: num = B::select_flagged(opt, d_in.get(), d_keep.get(), d_out.get(), n, n); break;
    case st::select_kind::partition: num = B::partition(opt, d_in.get(), d_out.get(), n, pred); break;
    case st::select_kind::stable_partition: num = B::stable_partition(opt, d_in.get(), d_out.get(), n, pred); break;
    case st::select_kind::split: num = B::split(opt, d_in.get(), d_keep.get(), d_out.get(), n); break;
    default: {
      num = 0;  // nothing counted
      typename B::template buffer<unsigned char> d_heads(heads);
      B::split_and_segment(opt, d_in.get(), d_keep.get(), streamscan::head_flags(d_heads.get()), d_out.get(),
                           d_heads_out.get(), n);
      d_heads_out.download(heads_out);
    }
  }
  d_out.download(out);
  return {};
}

template <class B>
void check_select(B&, verify_line& line, st::select_kind kind, streamscan::select_strategy s, std::mt19937_64& rng) {
  for (const std::int64_t n : sizes_around<B>(B::select_tile(), rng)) {
    const double kept = std::vector<double>{0.0, 0.05, 0.5, 0.95, 1.0}[rng() % 5];
    std::vector<std::int32_t> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = static_cast<std::int32_t>(rng() % 1000000);
    const auto threshold = static_cast<std::int32_t>(kept * 1000000);
    const bool by_predicate = kind == st::select_kind::select_if || kind == st::select_kind::partition ||
                              kind == st::select_kind::stable_partition;
    std::vector<unsigned char> keep(in.size()), heads(in.size());
    std::bernoulli_distribution flag(kept), head(0.01);
    for (std::size_t i = 0; i < in.size(); ++i) {
      keep[i] = by_predicate ? in[i] < threshold : static_cast<unsigned char>(flag(rng) ? 1 + rng() % 255 : 0);
      heads[i] = head(rng) ? 1 : 0;
    }
    std::vector<std::int32_t> out(in.size());
    std::vector<unsigned char> heads_out(in.size());
    st::poison(out);
    st::poison(heads_out);
    std::int64_t num = -1;
    const streamscan::select_options opt{s};
    std::string why = attempt([&] { return run_select<B>(kind, opt, in, keep, heads, threshold, out, heads_out, num); });
    if (why.empty()) {
      const st::select_expectation want = st::oracle_select(kind, in, keep, heads);
      const bool compaction = kind == st::select_kind::select_if || kind == st::select_kind::select_flagged;
      std::vector<std::int64_t> got(out.begin(), out.begin() + (compaction ? std::min<std::int64_t>(std::max<std::int64_t>(num, 0), n) : n));
      std::vector<std::int64_t> expected = want.out;
      if (compaction && st::unordered(s)) {  // the same elements, in any order
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
      }
      if (num != want.num) why = "count " + std::to_string(num) + ", expected " + std::to_string(want.num);
      else if (!(why = first_difference(got, expected)).empty()) why = "output: " + why;
      else if (kind == st::select_kind::split_and_segment) why = first_difference(heads_out, want.heads_out);
    }
    line.record("n = " + std::to_string(n) + ", " + std::to_string(static_cast<int>(kept * 100)) + "% kept", why);
  }
}

// ---- sorts ----

template <class B, class K, class V>
void check_radix(B&, verify_line& line, streamscan::sort_strategy s, const char* type, std::mt19937_64& rng) {
  constexpr bool pairs = !std::is_same_v<V, void>;
  using Value = std::conditional_t<pairs, V, std::uint32_t>;
  for (const std::int64_t n : sizes_around<B>(B::template sort_tile<K, (pairs ? int(sizeof(Value)) : 0)>(), rng)) {
    for (const auto order : {streamscan::sort_order::ascending, streamscan::sort_order::descending}) {
      std::vector<K> keys(static_cast<std::size_t>(n));
      const bool few = rng() % 2 == 0;  // few distinct values: stability shows
      for (auto& k : keys) {
        const std::uint64_t bits = few ? rng() % 16 : rng();
        if constexpr (std::is_floating_point_v<K>) k = static_cast<K>(static_cast<double>(bits % 2000000) - 1e6) / K(7);
        else k = static_cast<K>(bits);
      }
      std::vector<Value> values(pairs ? keys.size() : 0);
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<Value>(i);
      std::vector<K> keys_out(keys.size());
      std::vector<Value> values_out(values.size());
      st::poison(keys_out);
      st::poison(values_out);
      streamscan::sort_options opt;
      opt.strategy = s;
      opt.order = order;
      std::string why = attempt([&] {
        typename B::template buffer<K> d_keys(keys), d_keys_out(keys_out);
        typename B::template buffer<Value> d_values(values), d_values_out(values_out);
        if constexpr (pairs)
          B::radix_sort_pairs(opt, static_cast<const K*>(d_keys.get()), d_keys_out.get(),
                              static_cast<const Value*>(d_values.get()), d_values_out.get(), n);
        else
          B::radix_sort_keys(opt, static_cast<const K*>(d_keys.get()), d_keys_out.get(), n);
        d_keys_out.download(keys_out);
        d_values_out.download(values_out);
        return std::string();
      });
      const auto perm = st::oracle_permutation(keys, opt);
      if (why.empty() && !(why = first_difference(keys_out, st::permuted(keys, perm))).empty()) why = "keys: " + why;
      if (why.empty() && pairs && !(why = first_difference(values_out, st::permuted(values, perm))).empty())
        why = "values (stability): " + why;
      line.record(std::string(type) + ", n = " + std::to_string(n) + ", " +
                      (order == streamscan::sort_order::ascending ? "ascending" : "descending"),
                  why);
    }
  }
}

template <class B>
void check_quicksort(B&, verify_line& line, streamscan::pivot_rule pivot, std::mt19937_64& rng) {
  for (const std::int64_t n : sizes_around<B>(1024, rng)) {
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
    const bool few = rng() % 2 == 0;
    for (auto& k : keys) k = static_cast<std::uint32_t>(few ? rng() % 16 : rng());
    std::vector<std::uint32_t> out(keys.size());
    st::poison(out);
    streamscan::quicksort_options opt;
    opt.pivot = pivot;
    std::string why = attempt([&] {
      typename B::template buffer<std::uint32_t> d_in(keys), d_out(out);
      B::quicksort(opt, static_cast<const std::uint32_t*>(d_in.get()), d_out.get(), n);
      d_out.download(out);
      return std::string();
    });
    if (why.empty()) why = first_difference(out, st::permuted(keys, st::oracle_permutation(keys, {})));
    line.record("uint32, n = " + std::to_string(n), why);
  }
}

// ---- SpMV ----

template <class B, class V, class O, class I>
void check_spmv(B&, verify_line& line, streamscan::spmv_strategy s, const char* type, std::mt19937_64& rng) {
  struct shape {
    std::int64_t rows, cols;
    int max_length, long_rows;
    std::int64_t long_length;
  };
  const std::int64_t big = std::uniform_int_distribution<std::int64_t>(B::large_size / 20, B::large_size / 5)(rng);
  for (const shape sh : {shape{0, 0, 0, 0, 0}, shape{1, 1, 1, 0, 0}, shape{1, 3000, 0, 1, 2999},
                         shape{1025, 90, 2, 0, 0}, shape{big, big, 40, 3, 300000}}) {
    const auto a = st::random_csr<V, O, I>(rng, sh.rows, sh.cols, sh.max_length, sh.long_rows, sh.long_length);
    const std::vector<V> x = st::random_vector<V>(rng, sh.cols), y0 = st::random_vector<V>(rng, sh.rows);
    for (const V beta : {V(0), V(-0.5)}) {
      const V alpha = V(1.5);
      std::vector<V> y = y0;
      streamscan::spmv_options opt;
      opt.strategy = s;
      std::string why = attempt([&] {
        typename B::template buffer<O> d_offsets(a.offsets);
        typename B::template buffer<I> d_columns(a.columns);
        typename B::template buffer<V> d_values(a.values), d_x(x), d_y(y);
        const auto view = streamscan::make_csr_view(a.rows, a.cols, a.nnz(), static_cast<const O*>(d_offsets.get()),
                                                    static_cast<const I*>(d_columns.get()),
                                                    static_cast<const V*>(d_values.get()));
        B::spmv(opt, view, static_cast<const V*>(d_x.get()), d_y.get(), alpha, beta);
        d_y.download(y);
        return std::string();
      });
      if (why.empty()) why = st::spmv_mismatch(a, x, y0, y, alpha, beta);
      line.record(std::string(type) + ", " + std::to_string(a.rows) + " rows, " + std::to_string(a.nnz()) +
                      " non-zeros, beta " + std::to_string(double(beta)),
                  why);
    }
  }
}

template <class B, class I, class V, class O>
void check_coo_to_csr(B&, verify_line& line, bool checked, std::mt19937_64& rng) {
  for (const std::int64_t nnz : sizes_around<B>(4096, rng)) {
    const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 100000), cols = 1 + static_cast<std::int64_t>(rng() % 5000);
    std::vector<I> r(static_cast<std::size_t>(nnz)), c(r.size());
    std::vector<V> v(r.size());
    for (std::size_t k = 0; k < r.size(); ++k) {  // few rows and columns: duplicates
      r[k] = static_cast<I>(rng() % rows % 977);
      c[k] = static_cast<I>(rng() % cols % 61);
      v[k] = static_cast<V>(static_cast<int>(rng() % 17) - 8);  // small integers: exact sums
    }
    const auto want = st::oracle_coo_to_csr<I, V, O>(rows, r, c, v);
    std::vector<O> offsets(static_cast<std::size_t>(rows + 1));
    std::vector<I> columns(r.size());
    std::vector<V> values(r.size());
    st::poison(offsets);
    st::poison(columns);
    st::poison(values);
    std::int64_t entries = -1;
    std::string why = attempt([&] {
      typename B::template buffer<I> d_r(r), d_c(c), d_columns(columns);
      typename B::template buffer<V> d_v(v), d_values(values);
      typename B::template buffer<O> d_offsets(offsets);
      entries = B::coo_to_csr(streamscan::coo_options{checked}, rows, cols, nnz, static_cast<const I*>(d_r.get()),
                              static_cast<const I*>(d_c.get()), static_cast<const V*>(d_v.get()), d_offsets.get(),
                              d_columns.get(), d_values.get());
      d_offsets.download(offsets);
      d_columns.download(columns);
      d_values.download(values);
      return std::string();
    });
    if (why.empty() && entries != static_cast<std::int64_t>(want.columns.size()))
      why = "entries " + std::to_string(entries) + ", expected " + std::to_string(want.columns.size());
    columns.resize(want.columns.size());
    values.resize(want.values.size());
    if (why.empty() && !(why = first_difference(offsets, want.offsets)).empty()) why = "row_offsets: " + why;
    if (why.empty() && !(why = first_difference(columns, want.columns)).empty()) why = "columns: " + why;
    if (why.empty() && !(why = first_difference(values, want.values)).empty()) why = "values: " + why;
    line.record("nnz = " + std::to_string(nnz) + ", " + std::to_string(rows) + " x " + std::to_string(cols), why);
  }
}

// ---- tridiagonal solver ----

template <class B, class T>
void check_tridiagonal(B& b, verify_line& line, streamscan::tridiagonal_strategy s, const char* type,
                       std::mt19937_64& rng) {
  using L = streamscan::tridiagonal_layout;
  struct shape {
    std::int64_t n, batch;
  };
  for (const shape sh : {shape{0, 3}, shape{1, 5}, shape{2, 1}, shape{33, 70}, shape{1000, 9}, shape{5000, 3}}) {
    const auto strategies = b.tridiagonal_strategies(sh.n);
    if (std::find(strategies.begin(), strategies.end(), s) == strategies.end()) continue;
    for (const L layout : {L::strided, L::interleaved}) {
      const auto a = st::random_tridiagonal<T>(rng, sh.n, sh.batch, layout);
      const std::vector<T> rhs = st::random_rhs(rng, a);
      std::vector<T> x(rhs.size(), st::poison_value<T>());
      streamscan::tridiagonal_options opt;
      opt.strategy = s;
      std::string why = attempt([&] {
        typename B::template buffer<T> d_lower(a.lower), d_diagonal(a.diagonal), d_upper(a.upper), d_b(rhs), d_x(x);
        streamscan::tridiagonal_view<T> view = a.shape;
        view.lower = d_lower.get();
        view.diagonal = d_diagonal.get();
        view.upper = d_upper.get();
        B::tridiagonal_solve(opt, view, static_cast<const T*>(d_b.get()), d_x.get());
        d_x.download(x);
        return std::string();
      });
      if (why.empty()) why = st::tridiagonal_mismatch(a, rhs, x);
      line.record(std::string(type) + ", n = " + std::to_string(sh.n) + " x " + std::to_string(sh.batch) + ", " +
                      streamscan::to_string(layout),
                  why);
    }
  }
}

}  // namespace verify_detail

// Every primitive beyond the plain scans, one line per primitive and strategy;
// returns how many lines failed.
template <class Backend>
int verify_primitives(Backend& b, std::mt19937_64& rng) {
  using namespace verify_detail;
  namespace ss = streamscan;
  std::vector<verify_line> lines;
  auto run = [&](const std::string& primitive, const std::string& strategy, auto check) {
    verify_line line{primitive, strategy, 0, {}};
    check(line);
    lines.push_back(line);
    const bool ok = line.first_failure.empty();
    std::printf("  %-28s %-26s %4d runs  %s%s\n", primitive.c_str(), strategy.c_str(), line.runs,
                ok ? "pass" : "FAIL: ", line.first_failure.c_str());
    std::fflush(stdout);
  };
  for (const auto kind : {st::seg_kind::inclusive, st::seg_kind::inclusive_init, st::seg_kind::exclusive,
                          st::seg_kind::enumerate, st::seg_kind::distribute}) {
    const std::string name = kind == st::seg_kind::enumerate    ? "enumerate"
                             : kind == st::seg_kind::distribute ? "distribute"
                                                                : std::string("segmented_") + st::to_string(kind) + "_scan";
    for (const auto s : b.segmented_strategies())
      run(name, ss::to_string(s), [&](verify_line& line) {
        check_segmented<Backend, std::int32_t>(b, line, kind, s, ss::plus{}, "int32", rng);
        if (kind != st::seg_kind::enumerate)
          check_segmented<Backend, st::mat2u>(b, line, kind, s, st::mat2u_product{}, "mat2u", rng);
      });
  }
  run("segmented_reduce", "-", [&](verify_line& line) {
    check_segmented_reduce<Backend, std::int32_t>(b, line, ss::plus{}, "int32", rng);
    check_segmented_reduce<Backend, st::mat2u>(b, line, st::mat2u_product{}, "mat2u", rng);
  });
  for (const auto s : b.compaction_strategies()) {
    run("select_if", ss::to_string(s), [&](verify_line& line) { check_select(b, line, st::select_kind::select_if, s, rng); });
    run("select_flagged", ss::to_string(s),
        [&](verify_line& line) { check_select(b, line, st::select_kind::select_flagged, s, rng); });
  }
  for (const auto kind : {st::select_kind::partition, st::select_kind::stable_partition, st::select_kind::split,
                          st::select_kind::split_and_segment})
    run(st::to_string(kind), "stable", [&](verify_line& line) { check_select(b, line, kind, ss::select_strategy::automatic, rng); });
  for (const auto s : b.sort_strategies()) {
    run("radix_sort_keys", ss::to_string(s), [&](verify_line& line) {
      check_radix<Backend, std::uint32_t, void>(b, line, s, "uint32", rng);
      check_radix<Backend, float, void>(b, line, s, "float", rng);
      check_radix<Backend, std::uint64_t, void>(b, line, s, "uint64", rng);
    });
    run("radix_sort_pairs", ss::to_string(s),
        [&](verify_line& line) { check_radix<Backend, std::uint32_t, std::uint32_t>(b, line, s, "uint32/uint32", rng); });
  }
  for (const auto pivot : {ss::pivot_rule::first, ss::pivot_rule::middle})
    run("quicksort", pivot == ss::pivot_rule::first ? "pivot first" : "pivot middle",
        [&](verify_line& line) { check_quicksort(b, line, pivot, rng); });
  for (const auto s : b.spmv_strategies())
    run("spmv", ss::to_string(s), [&](verify_line& line) {
      check_spmv<Backend, float, std::int32_t, std::int32_t>(b, line, s, "float/int32", rng);
      check_spmv<Backend, double, std::int64_t, std::int64_t>(b, line, s, "double/int64", rng);
    });
  for (const bool checked : {false, true})
    run("coo_to_csr", checked ? "checked" : "unchecked", [&](verify_line& line) {
      check_coo_to_csr<Backend, std::int32_t, float, std::int32_t>(b, line, checked, rng);
      check_coo_to_csr<Backend, std::int64_t, double, std::int64_t>(b, line, checked, rng);
    });
  for (const auto s : b.tridiagonal_strategies(1000))
    run("tridiagonal_solve", ss::to_string(s), [&](verify_line& line) {
      check_tridiagonal<Backend, float>(b, line, s, "float", rng);
      check_tridiagonal<Backend, double>(b, line, s, "double", rng);
    });
  int failed = 0;
  for (const auto& l : lines) failed += l.first_failure.empty() ? 0 : 1;
  return failed;
}

}  // namespace streamscan_tool
