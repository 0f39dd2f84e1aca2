// Compaction, partition, split and split_and_segment on the GPU:
// the shared bodies, plus value types other than int32, every strategy
// on them, and the argument errors.
#include "cuda_backend.cuh"

#include "common/types.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <type_traits>

STREAMSCAN_SELECT_TESTS(select_cuda, streamscan_test::cuda_backend)
STREAMSCAN_SELECT_TESTS(select_cuda_pipelined, streamscan_test::cuda_backend_pipelined_select)

namespace {
namespace ss = streamscan;
using streamscan_test::device_buffer;

struct below300 {
  STREAMSCAN_HOST_DEVICE bool operator()(int x) const { return x < 300; }
};

struct mat2u_keep {  // selects matrices by a bit of their first entry
  STREAMSCAN_HOST_DEVICE bool operator()(const streamscan_test::mat2u& m) const { return (m.a & 4u) != 0; }
};

// A 16-byte struct through every compaction strategy and both partitions, at
// a size of many tiles plus a ragged end; each against a host oracle.
TEST(select_cuda_types, StructsEveryStrategy) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_types");
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{5000}, std::int64_t{300007}}) {
    std::vector<streamscan_test::mat2u> in(static_cast<std::size_t>(n));
    for (auto& m : in) m = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()), 1u, 2u};
    std::vector<streamscan_test::mat2u> kept, rejected;
    for (const auto& m : in) (mat2u_keep{}(m) ? kept : rejected).push_back(m);
    device_buffer<streamscan_test::mat2u> d_in(in.size()), d_out(in.size());
    device_buffer<std::int64_t> d_num(1);
    d_in.upload(in);
    const streamscan_test::mat2u* src = d_in.get();
    auto two_phase = [&](auto call) {
      std::size_t bytes = 0;
      ss::status s = call(nullptr, bytes);
      if (!s) return s;
      device_buffer<unsigned char> temp(bytes);
      s = call(temp.get(), bytes);
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      return s;
    };
    auto result = [&](std::int64_t& num) {
      std::vector<streamscan_test::mat2u> out;
      d_out.download(out);
      std::vector<std::int64_t> h;
      d_num.download(h);
      num = h[0];
      return out;
    };
    auto by_a = [](const streamscan_test::mat2u& x, const streamscan_test::mat2u& y) { return x.a < y.a || (x.a == y.a && x.b < y.b); };
    for (const auto strategy : {ss::select_strategy::stable, ss::select_strategy::multi_level, ss::select_strategy::hybrid,
                                ss::select_strategy::warp_atomic}) {
      STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), 0xA7, in.size() * sizeof(streamscan_test::mat2u)));
      ASSERT_TRUE(two_phase([&](void* t, std::size_t& b) {
                    return ss::cuda::select_if(t, b, src, d_out.get(), n, n, d_num.get(), mat2u_keep{}, nullptr,
                                               ss::select_options{strategy});
                  }).is_ok());
      std::int64_t num = 0;
      std::vector<streamscan_test::mat2u> out = result(num);
      ASSERT_EQ(num, static_cast<std::int64_t>(kept.size())) << "n=" << n << " " << ss::to_string(strategy);
      out.resize(kept.size());
      std::vector<streamscan_test::mat2u> want = kept;
      if (streamscan_test::unordered(strategy)) {
        std::sort(out.begin(), out.end(), by_a);
        std::sort(want.begin(), want.end(), by_a);
      }
      EXPECT_TRUE(out == want) << "n=" << n << " " << ss::to_string(strategy) << " seed=" << streamscan_test::global_seed();
    }
    for (const bool stable : {false, true}) {
      ASSERT_TRUE(two_phase([&](void* t, std::size_t& b) {
                    return stable ? ss::cuda::stable_partition(t, b, src, d_out.get(), n, d_num.get(), mat2u_keep{})
                                  : ss::cuda::partition(t, b, src, d_out.get(), n, d_num.get(), mat2u_keep{});
                  }).is_ok());
      std::int64_t num = 0;
      const std::vector<streamscan_test::mat2u> out = result(num);
      std::vector<streamscan_test::mat2u> want = kept;
      if (stable) want.insert(want.end(), rejected.begin(), rejected.end());
      else want.insert(want.end(), rejected.rbegin(), rejected.rend());
      EXPECT_EQ(num, static_cast<std::int64_t>(kept.size()));
      EXPECT_TRUE(out == want) << "n=" << n << (stable ? " stable_partition" : " partition");
    }
  }
}

// int32 values and their byte flags on the device, an output as long as the
// input and a count: what most tests here hand to the calls.
struct flagged_ints {
  device_buffer<int> in, out;
  device_buffer<unsigned char> flags;
  device_buffer<std::int64_t> num;
  flagged_ints(const std::vector<int>& values, const std::vector<unsigned char>& f)
      : in(values.size()), out(values.size()), flags(f.size()), num(1) {
    in.upload(values);
    flags.upload(f);
  }
  const int* src() const { return in.get(); }
  const unsigned char* fl() const { return flags.get(); }
};

struct keep_all_ints {
  STREAMSCAN_HOST_DEVICE bool operator()(int) const { return true; }
};

// Runs a two-phase select call into a poisoned d_out (and d_num), then
// checks the count and the first want.size() outputs against the oracle's.
template <class V, class Call>
void expect_select(const std::string& where, device_buffer<V>& d_out, device_buffer<std::int64_t>& d_num, Call call,
                   const std::vector<V>& want, std::int64_t want_num) {
  STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), 0xA7, d_out.size() * sizeof(V)));
  STREAMSCAN_TEST_CUDA(cudaMemset(d_num.get(), 0xA7, sizeof(std::int64_t)));
  std::size_t bytes = 0;
  ASSERT_TRUE(call(nullptr, bytes).is_ok()) << where;
  device_buffer<unsigned char> temp(bytes);
  const ss::status s = call(temp.get(), bytes);
  ASSERT_TRUE(s.is_ok()) << s.message() << " " << where;
  std::vector<V> out;
  d_out.download(out);
  std::vector<std::int64_t> num;
  d_num.download(num);
  // Nothing past what the call had to write: those slots still hold the poison.
  const auto poisoned = [](const V& x) {
    const auto* b = reinterpret_cast<const unsigned char*>(&x);
    return std::all_of(b, b + sizeof(V), [](unsigned char c) { return c == 0xA7; });
  };
  EXPECT_TRUE(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(want.size()), out.end(), poisoned))
      << where << ": written past the " << want.size() << " expected elements";
  out.resize(want.size());
  EXPECT_EQ(num[0], want_num) << where;
  EXPECT_TRUE(out == want) << where << " seed=" << streamscan_test::global_seed();
}

// Every candidate shape of the stable kernel (their tiles differ) on
// compaction, partition and split, at its own tile edges.
TEST(select_cuda_shapes, EveryShapeAtItsTileEdges) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_shapes");
  for (int shape = 0; shape < ss::tuning::select_shape_count; ++shape) {
    const std::string name = ss::tuning::name(ss::tuning::select_shapes[shape]);
    const ss::select_options opt{ss::select_strategy::stable, name.c_str()};
    const std::int64_t tile = std::int64_t{ss::tuning::select_shapes[shape].threads} * ss::tuning::select_shapes[shape].vectors * 4;
    for (const std::int64_t n : {tile - 1, tile, tile + 1, 5 * tile + 3}) {
      std::vector<int> in(static_cast<std::size_t>(n));
      std::vector<unsigned char> flags(in.size());
      for (auto& x : in) x = static_cast<int>(rng() % 1000);
      std::vector<int> kept, rejected;
      for (std::size_t i = 0; i < in.size(); ++i) {
        flags[i] = in[i] < 300;
        (flags[i] ? kept : rejected).push_back(in[i]);
      }
      flagged_ints dev(in, flags);
      auto& d_out = dev.out;
      auto& d_num = dev.num;
      const int* src = dev.src();
      const unsigned char* fl = dev.fl();
      auto check = [&](const char* what, auto call, const std::vector<int>& want, std::int64_t want_num) {
        expect_select(std::string(what) + " " + name + " n=" + std::to_string(n), d_out, d_num, call, want, want_num);
      };
      const below300 pred{};
      check("select_if", [&](void* t, std::size_t& b) {
        return ss::cuda::select_if(t, b, src, d_out.get(), n, n, d_num.get(), pred, nullptr, opt);
      }, kept, static_cast<std::int64_t>(kept.size()));
      check("select_flagged", [&](void* t, std::size_t& b) {
        return ss::cuda::select_flagged(t, b, src, fl, d_out.get(), n, n, d_num.get(), nullptr, opt);
      }, kept, static_cast<std::int64_t>(kept.size()));
      std::vector<int> part = kept;
      part.insert(part.end(), rejected.rbegin(), rejected.rend());
      check("partition", [&](void* t, std::size_t& b) {
        return ss::cuda::partition(t, b, src, d_out.get(), n, d_num.get(), pred, nullptr, opt);
      }, part, static_cast<std::int64_t>(kept.size()));
      std::vector<int> split = rejected;
      split.insert(split.end(), kept.begin(), kept.end());
      check("split", [&](void* t, std::size_t& b) {
        return ss::cuda::split(t, b, src, fl, d_out.get(), n, d_num.get(), nullptr, opt);
      }, split, static_cast<std::int64_t>(rejected.size()));
    }
  }
}

struct keep_mod_below {
  std::uint64_t threshold;  // of 1000
  template <class T>
  STREAMSCAN_HOST_DEVICE bool operator()(T x) const { return static_cast<std::uint64_t>(x) % 1000u < threshold; }
};

// The outbox kernel (select_if's and select_flagged's default from 2^26) with
// its persistent grid cut to 2 blocks, so that each block takes ~40 tiles and its ring (4 tiles'
// worth of int32 at 100% kept) and its 32 records go round many times; at
// 100% kept (the ring full every few tiles), 50%, 2%, with a short capacity;
// int32 to int32 (the vector drain, at an output offset off 16 bytes too),
// int32 to int64 (converted one at a time) and uint64. Host oracle, poisoned
// output, nothing written past the kept or the capacity.
TEST(select_cuda_shapes, OutboxRingAndRecordsWrap) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_outbox");
  constexpr int shape = ss::tuning::default_compaction_shape;
  const std::string name = ss::tuning::name(ss::tuning::select_shapes[shape]);
  const ss::select_options opt{ss::select_strategy::stable, name.c_str()};
  struct grid_limit {
    grid_limit() { ss::cuda::testing::persistent_grid_limit() = 2; }
    ~grid_limit() { ss::cuda::testing::persistent_grid_limit() = 0; }
  } limit;
  auto run = [&](auto value_tag, auto out_tag, std::int64_t n, std::uint64_t threshold, bool cut, int out_offset) {
    using V = decltype(value_tag);
    using O = decltype(out_tag);
    std::vector<V> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = static_cast<V>(rng() % 1000000u);
    const keep_mod_below pred{threshold};
    std::vector<O> kept;
    for (const V x : in)
      if (pred(x)) kept.push_back(static_cast<O>(x));
    const auto num = static_cast<std::int64_t>(kept.size());
    const std::int64_t capacity = cut ? num / 3 : n;
    if (cut) kept.resize(static_cast<std::size_t>(capacity));
    device_buffer<V> d_in(in.size());
    device_buffer<O> d_out(in.size() + out_offset);
    device_buffer<std::int64_t> d_num(1);
    d_in.upload(in);
    const V* src = d_in.get();
    std::vector<O> want(static_cast<std::size_t>(out_offset), O{});
    std::ostringstream where;
    where << name << " " << sizeof(V) << "-byte values to " << sizeof(O) << "-byte outputs at +" << out_offset
          << ", n=" << n << ", kept " << threshold << "/1000, capacity " << capacity;
    // The first out_offset slots stay poisoned: compare from there.
    std::vector<O> poison_head(static_cast<std::size_t>(out_offset));
    std::memset(poison_head.data(), 0xA7, poison_head.size() * sizeof(O));
    want.assign(poison_head.begin(), poison_head.end());
    want.insert(want.end(), kept.begin(), kept.end());
    expect_select(where.str(), d_out, d_num, [&](void* t, std::size_t& b) {
      return ss::cuda::select_if(t, b, src, d_out.get() + out_offset, n, capacity, d_num.get(), pred, nullptr, opt);
    }, want, num);
  };
  const std::int64_t tile4 = ss::tuning::select_policy<4, shape>::tile_items;
  const std::int64_t tile8 = ss::tuning::select_policy<2, shape>::tile_items;
  for (const std::uint64_t threshold : {1000u, 500u, 20u}) {
    run(std::int32_t{}, std::int32_t{}, 80 * tile4 + 77, threshold, false, 0);
    run(std::int32_t{}, std::int32_t{}, 80 * tile4 + 77, threshold, true, 1);
    run(std::int32_t{}, std::int64_t{}, 80 * tile4 + 3, threshold, false, 0);
    run(std::uint64_t{}, std::uint64_t{}, 80 * tile8 + 1, threshold, false, 0);
  }
  // By byte flags, on the flagged outbox shape (its stages land the flags too).
  constexpr int flagged_shape = ss::tuning::flagged_compaction_shape;
  const std::string flagged_name = ss::tuning::name(ss::tuning::select_shapes[flagged_shape]);
  const ss::select_options flagged_opt{ss::select_strategy::stable, flagged_name.c_str()};
  const std::int64_t n = 80 * ss::tuning::select_policy<4, flagged_shape>::tile_items + 5;
  for (const int percent : {100, 50, 2}) {
    std::vector<int> in(static_cast<std::size_t>(n));
    std::vector<unsigned char> flags(in.size());
    std::vector<int> kept;
    for (std::size_t i = 0; i < in.size(); ++i) {
      in[i] = static_cast<int>(rng());
      flags[i] = static_cast<int>(rng() % 100) < percent;
      if (flags[i]) kept.push_back(in[i]);
    }
    flagged_ints dev(in, flags);
    expect_select(flagged_name + " select_flagged n=" + std::to_string(n) + " kept " + std::to_string(percent) + "%",
                  dev.out, dev.num, [&](void* t, std::size_t& b) {
                    return ss::cuda::select_flagged(t, b, dev.src(), dev.fl(), dev.out.get(), n, n, dev.num.get(),
                                                    nullptr, flagged_opt);
                  }, kept, static_cast<std::int64_t>(kept.size()));
  }
}

// Flagged calls on the shapes that stage the flags (the pipeline's p512x2s10,
// the outbox's o512x4s4b64; split on the latter runs the default):
// 8-byte values with bool flags (two values a 16-byte row, a side stream of
// T bools), and 4-byte values whose flags or values start off a 16-byte
// boundary (the one-tile kernel then). Split and select_flagged, full and
// partial tiles, a ragged 16-byte row at the end; host oracle, poisoned output.
TEST(select_cuda_shapes, FlaggedPipelineTypesAndPointers) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_flagged_pipeline");
  std::string name;
  ss::select_options opt{ss::select_strategy::stable, nullptr};
  auto run = [&](auto value_tag, auto flag_tag, std::int64_t n, int value_offset, int flag_offset) {
    using V = decltype(value_tag);
    using F = decltype(flag_tag);
    std::vector<V> in(static_cast<std::size_t>(n + value_offset));
    using host_flag = std::conditional_t<std::is_same_v<F, bool>, unsigned char, F>;  // no std::vector<bool>
    static_assert(sizeof(host_flag) == sizeof(F), "bool is one byte");
    std::vector<host_flag> flags(static_cast<std::size_t>(n + flag_offset));
    for (auto& x : in) x = static_cast<V>(rng());
    for (auto& f : flags) f = static_cast<host_flag>(rng() % 3 == 0);
    std::vector<V> kept, rejected;
    for (std::int64_t i = 0; i < n; ++i) (flags[i + flag_offset] ? kept : rejected).push_back(in[i + value_offset]);
    device_buffer<V> d_in(in.size()), d_out(n);
    device_buffer<F> d_flags(flags.size());
    device_buffer<std::int64_t> d_num(1);
    d_in.upload(in);
    STREAMSCAN_TEST_CUDA(cudaMemcpy(d_flags.get(), flags.data(), flags.size() * sizeof(F), cudaMemcpyHostToDevice));
    const V* src = d_in.get() + value_offset;
    const F* fl = d_flags.get() + flag_offset;
    std::ostringstream where;
    where << name << ", " << sizeof(V) << "-byte values, " << sizeof(F) << "-byte flags, n=" << n << " offsets "
          << value_offset << "/" << flag_offset;
    auto check = [&](const char* what, auto call, const std::vector<V>& want, std::int64_t want_num) {
      expect_select(std::string(what) + " " + where.str(), d_out, d_num, call, want, want_num);
    };
    check("select_flagged", [&](void* t, std::size_t& b) {
      return ss::cuda::select_flagged(t, b, src, fl, d_out.get(), n, n, d_num.get(), nullptr, opt);
    }, kept, static_cast<std::int64_t>(kept.size()));
    std::vector<V> split = rejected;
    split.insert(split.end(), kept.begin(), kept.end());
    check("split", [&](void* t, std::size_t& b) {
      return ss::cuda::split(t, b, src, fl, d_out.get(), n, d_num.get(), nullptr, opt);
    }, split, static_cast<std::int64_t>(rejected.size()));
  };
  auto every_case = [&](auto shape_constant) {
    constexpr int shape = decltype(shape_constant)::value;
    name = ss::tuning::name(ss::tuning::select_shapes[shape]);
    opt.policy = name.c_str();
    const std::int64_t tile4 = ss::tuning::select_policy<4, shape>::tile_items;
    const std::int64_t tile8 = ss::tuning::select_policy<2, shape>::tile_items;
    for (const std::int64_t n : {tile8 - 1, tile8, 7 * tile8 + 3}) run(std::uint64_t{}, bool{}, n, 0, 0);
    for (const std::int64_t n : {tile4 + 1, 5 * tile4 + 7}) {
      run(std::int32_t{}, std::uint8_t{}, n, 0, 0);
      run(std::int32_t{}, std::uint8_t{}, n, 0, 1);
      run(std::int32_t{}, std::uint8_t{}, n, 1, 0);
      run(std::int32_t{}, std::int32_t{}, n, 0, 0);  // flags as wide as the values: no room, the one-tile kernel
    }
  };
  // The pipeline's flagged shape (split's default) and the outbox's (select_flagged's from 2^26).
  every_case(std::integral_constant<int, ss::tuning::flagged_pipelined_shape>{});
  every_case(std::integral_constant<int, ss::tuning::flagged_compaction_shape>{});
}

// The built-in defaults on both sides of pipelined_select_from (one-tile
// kernel below, a pipelined one from there on sm_90+) of every call whose
// default changes there: partition (rejected in reverse input order),
// stable_partition, split (by flags, falses first) and select_flagged; and
// select_if and select_flagged on both sides of pipelined_compaction_from.
TEST(select_cuda_convenience, DefaultsAroundPipelinedFrom) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_partition_from");
  for (const std::int64_t n : {ss::tuning::pipelined_compaction_from - 1, ss::tuning::pipelined_compaction_from + 2053}) {
    std::vector<int> in(n), kept;
    std::vector<unsigned char> flags(in.size());
    for (auto& x : in) x = static_cast<int>(rng() % 1000);
    for (std::size_t i = 0; i < in.size(); ++i) {
      flags[i] = below300{}(in[i]);
      if (flags[i]) kept.push_back(in[i]);
    }
    flagged_ints dev(in, flags);
    expect_select("select_if n=" + std::to_string(n), dev.out, dev.num, [&](void* t, std::size_t& b) {
      return ss::cuda::select_if(t, b, dev.src(), dev.out.get(), n, n, dev.num.get(), below300{});
    }, kept, static_cast<std::int64_t>(kept.size()));
    expect_select("select_flagged n=" + std::to_string(n), dev.out, dev.num, [&](void* t, std::size_t& b) {
      return ss::cuda::select_flagged(t, b, dev.src(), dev.fl(), dev.out.get(), n, n, dev.num.get());
    }, kept, static_cast<std::int64_t>(kept.size()));
  }
  for (const std::int64_t n : {ss::tuning::pipelined_select_from - 1, ss::tuning::pipelined_select_from + 4099}) {
    std::vector<int> in(n);
    for (auto& x : in) x = static_cast<int>(rng() % 1000);
    std::vector<unsigned char> flags(in.size());
    std::vector<int> kept, rejected;
    for (std::size_t i = 0; i < in.size(); ++i) {
      flags[i] = below300{}(in[i]);
      (flags[i] ? kept : rejected).push_back(in[i]);
    }
    const auto k = static_cast<std::int64_t>(kept.size());
    flagged_ints dev(in, flags);
    auto& d_out = dev.out;
    const int* src = dev.src();
    const unsigned char* fl = dev.fl();
    auto check = [&](const char* what, auto call, const std::vector<int>& want, std::int64_t want_num) {
      STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), 0xA7, n * sizeof(int)));
      EXPECT_EQ(call(), want_num) << what << " n=" << n;
      std::vector<int> got;
      d_out.download(got);
      got.resize(want.size());
      EXPECT_TRUE(got == want) << what << " n=" << n << " seed " << streamscan_test::global_seed();
    };
    std::vector<int> want = kept;
    want.insert(want.end(), rejected.rbegin(), rejected.rend());
    check("partition", [&] { return ss::cuda::partition(src, d_out.get(), n, below300{}); }, want, k);
    want = kept;
    want.insert(want.end(), rejected.begin(), rejected.end());
    check("stable_partition", [&] { return ss::cuda::stable_partition(src, d_out.get(), n, below300{}); }, want, k);
    check("select_flagged", [&] { return ss::cuda::select_flagged(src, fl, d_out.get(), n, n); }, kept, k);
    want = rejected;
    want.insert(want.end(), kept.begin(), kept.end());
    check("split", [&] { return ss::cuda::split(src, fl, d_out.get(), n); }, want, n - k);
  }
}

struct low300 {
  STREAMSCAN_HOST_DEVICE bool operator()(std::uint64_t x) const { return x % 1000 < 300; }
};

// 8-byte values have their own defaults (tuning/select.hpp): partition and
// stable_partition pipelined from pipelined_select_from, select_if on the
// outbox from wide_compaction_from; each on both sides of its edge.
TEST(select_cuda_convenience, WideDefaultsAroundTheirEdges) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_wide_defaults");
  for (const std::int64_t n : {ss::tuning::pipelined_select_from - 1, ss::tuning::pipelined_select_from + 4099,
                               ss::tuning::wide_compaction_from - 1, ss::tuning::wide_compaction_from + 2053}) {
    std::vector<std::uint64_t> in(n), kept, rejected;
    for (auto& x : in) x = rng();
    for (const std::uint64_t x : in) (low300{}(x) ? kept : rejected).push_back(x);
    const auto k = static_cast<std::int64_t>(kept.size());
    device_buffer<std::uint64_t> d_in(in.size()), d_out(in.size());
    device_buffer<std::int64_t> d_num(1);
    d_in.upload(in);
    const std::string at = " n=" + std::to_string(n);
    expect_select("select_if" + at, d_out, d_num, [&](void* t, std::size_t& b) {
      return ss::cuda::select_if(t, b, d_in.get(), d_out.get(), n, n, d_num.get(), low300{});
    }, kept, k);
    if (n >= ss::tuning::wide_compaction_from - 1) continue;  // partition's edge is the first two
    std::vector<std::uint64_t> want = kept;
    want.insert(want.end(), rejected.rbegin(), rejected.rend());
    expect_select("partition" + at, d_out, d_num, [&](void* t, std::size_t& b) {
      return ss::cuda::partition(t, b, d_in.get(), d_out.get(), n, d_num.get(), low300{});
    }, want, k);
    std::copy(rejected.begin(), rejected.end(), want.begin() + k);
    expect_select("stable_partition" + at, d_out, d_num, [&](void* t, std::size_t& b) {
      return ss::cuda::stable_partition(t, b, d_in.get(), d_out.get(), n, d_num.get(), low300{});
    }, want, k);
  }
}

// seed 002's hybrid kernel on a source that inverts its predicate (no public
// compaction does yet): elements past n stay rejected though the inverted
// predicate would keep them. Full and ragged groups, with and without a short
// capacity; outputs poisoned, checked as multisets.
TEST(select_cuda_seed002, HybridInvertsOverValidElementsOnly) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  auto rng = streamscan_test::make_rng("select_cuda_seed002");
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{1024}, std::int64_t{3 * 1024 + 17},
                               std::int64_t{20000}}) {
    std::vector<int> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = std::uniform_int_distribution<int>(0, 999)(rng);
    std::vector<int> want;  // selected: not below 300
    for (const int x : in)
      if (!below300{}(x)) want.push_back(x);
    const auto k = static_cast<std::int64_t>(want.size());
    device_buffer<int> d_in(in.size()), d_out(in.size());
    device_buffer<unsigned long long> d_counter(1);
    d_in.upload(in);
    for (const std::int64_t capacity : {n, k / 2}) {
      STREAMSCAN_TEST_CUDA(cudaMemset(d_out.get(), 0xA7, in.size() * sizeof(int)));
      STREAMSCAN_TEST_CUDA(cudaMemset(d_counter.get(), 0, sizeof(unsigned long long)));
      using source = ss::detail::predicate_source<const int*, int*, below300>;
      const source src{d_in.get(), d_out.get(), below300{}, true};
      const auto blocks = static_cast<unsigned>((n + 4095) / 4096);  // 4 warps of 1024 a block
      ss::cuda::detail::hybrid_select_kernel<source><<<blocks, 128>>>(src, n, capacity, d_counter.get());
      STREAMSCAN_TEST_CUDA(cudaGetLastError());
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
      std::vector<unsigned long long> count;
      d_counter.download(count);
      std::vector<int> out;
      d_out.download(out);
      const std::string where = "n=" + std::to_string(n) + " capacity=" + std::to_string(capacity) +
                                " seed=" + std::to_string(streamscan_test::global_seed());
      EXPECT_EQ(static_cast<std::int64_t>(count[0]), k) << where;
      const std::int64_t written = std::min(k, capacity);
      std::vector<int> got(out.begin(), out.begin() + written), all = want;
      std::sort(got.begin(), got.end());
      std::sort(all.begin(), all.end());
      EXPECT_TRUE(std::includes(all.begin(), all.end(), got.begin(), got.end())) << where;
      if (capacity >= k) EXPECT_EQ(got, all) << where;
      int poisoned = 0;
      std::memset(&poisoned, 0xA7, sizeof poisoned);
      EXPECT_TRUE(std::all_of(out.begin() + written, out.end(), [&](int x) { return x == poisoned; }))
          << "written past the end: " << where;
    }
  }
}

// The convenience forms: scratch allocated for the call, the count returned.
TEST(select_cuda_convenience, CountsComeBack) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  const std::int64_t n = 100003;
  std::vector<int> in(n);
  std::vector<unsigned char> flags(n);
  for (std::int64_t i = 0; i < n; ++i) {
    in[i] = static_cast<int>((i * 7919) % 1000);
    flags[i] = in[i] < 300;
  }
  std::vector<int> kept, rejected;
  for (std::int64_t i = 0; i < n; ++i) (flags[i] ? kept : rejected).push_back(in[i]);
  device_buffer<int> d_in(n), d_out(n);
  device_buffer<unsigned char> d_flags(n);
  d_in.upload(in);
  d_flags.upload(flags);
  const int* src = d_in.get();
  auto out = [&] {
    std::vector<int> h;
    d_out.download(h);
    return h;
  };
  const auto k = static_cast<std::int64_t>(kept.size());
  EXPECT_EQ(ss::cuda::select_if(src, d_out.get(), n, n, below300{}), k);
  EXPECT_TRUE(std::equal(kept.begin(), kept.end(), out().begin()));
  EXPECT_EQ(ss::cuda::select_flagged(src, d_flags.get(), d_out.get(), n, k / 2), k);  // capacity short: count still k
  EXPECT_EQ(ss::cuda::partition(src, d_out.get(), n, below300{}), k);
  EXPECT_EQ(ss::cuda::stable_partition(src, d_out.get(), n, below300{}), k);
  std::vector<int> want = kept;
  want.insert(want.end(), rejected.begin(), rejected.end());
  EXPECT_EQ(out(), want);
  EXPECT_EQ(ss::cuda::split(src, static_cast<const unsigned char*>(d_flags.get()), d_out.get(), n),
            static_cast<std::int64_t>(rejected.size()));
  EXPECT_THROW(ss::cuda::select_if(src, d_out.get(), n, -1, below300{}), ss::error);
}

TEST(select_cuda_errors, BadArgumentsAreNamedAndNothingIsWritten) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no cuda device";
  const std::int64_t n = 1000;
  device_buffer<int> d_in(n), d_out(n);
  device_buffer<std::int64_t> d_num(1);
  std::vector<int> poisoned(n, -7);
  d_in.upload(std::vector<int>(n, 1));
  d_out.upload(poisoned);
  const std::vector<std::int64_t> num_poison = {-1};
  d_num.upload(num_poison);
  const keep_all_ints keep_all{};
  std::size_t bytes = 0;
  ASSERT_TRUE(ss::cuda::select_if(nullptr, bytes, d_in.get(), d_out.get(), n, n, d_num.get(), keep_all).is_ok());
  device_buffer<unsigned char> temp(bytes + (1 << 20));
  std::size_t big = bytes + (1 << 20);
  auto expect = [&](const ss::status& s, const char* text) {
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  expect(ss::cuda::select_if(temp.get(), bytes, d_in.get(), d_out.get(), n, -1, d_num.get(), keep_all),
         "argument 'capacity' is negative (-1)");
  expect(ss::cuda::select_if(temp.get(), bytes, d_in.get(), d_out.get(), n, n, nullptr, keep_all),
         "argument 'num_selected' is a null pointer");
  expect(ss::cuda::select_flagged(temp.get(), bytes, d_in.get(), static_cast<const bool*>(nullptr), d_out.get(), n, n,
                                  d_num.get()),
         "argument 'flags' is a null pointer");
  expect(ss::cuda::partition(temp.get(), big, d_out.get(), d_out.get(), n, d_num.get(), keep_all),
         "cannot run in place");
  expect(ss::cuda::select_if(temp.get(), big, d_out.get(), d_out.get(), n, n, d_num.get(), keep_all, nullptr,
                             ss::select_options{ss::select_strategy::hybrid}),
         "hybrid cannot run in place");
  expect(ss::cuda::partition(temp.get(), big, d_in.get(), d_out.get(), n, d_num.get(), keep_all, nullptr,
                             ss::select_options{ss::select_strategy::hybrid}),
         "argument 'options.strategy': hybrid is a compaction strategy");
  expect(ss::cuda::select_if(temp.get(), big, d_in.get(), d_out.get(), n, n, d_num.get(), keep_all, nullptr,
                             ss::select_options{static_cast<ss::select_strategy>(99)}),
         "argument 'options.strategy' is not a strategy");
  expect(ss::cuda::select_indices(temp.get(), big, static_cast<const bool*>(nullptr), d_out.get(), n, n, d_num.get()),
         "select_indices: argument 'flags' is a null pointer");
  expect(ss::cuda::select_if(temp.get(), big, d_in.get(), d_out.get(), n, n, d_num.get(), keep_all, nullptr,
                             ss::select_options{ss::select_strategy::stable, "t1x1"}),
         ("argument 'options.policy' names 't1x1', which is not a policy of select_if for 4-byte values (it has: " +
          ss::tuning::name(ss::tuning::select_shapes[0]))
             .c_str());
  std::size_t small = bytes - 1;
  EXPECT_EQ(ss::cuda::select_if(temp.get(), small, d_in.get(), d_out.get(), n, n, d_num.get(), keep_all).code(),
            ss::errc::temp_storage_too_small);
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<int> out;
  d_out.download(out);
  EXPECT_EQ(out, poisoned);
  std::vector<std::int64_t> num;
  d_num.download(num);
  EXPECT_EQ(num, num_poison);
}

}  // namespace
