// The multi-GPU scan and compaction (streamscan/nccl.cuh) against the naive
// host oracle applied to all shards joined in rank order. Every test runs on
// groups of simulated ranks (one GPU, a thread and a stream per rank) and on
// an NCCL communicator over every GPU present (one rank on a one-GPU machine),
// but the rebalance split's host check and the sizes past 2^32 (simulated
// ranks only, checked on the device, with STREAMSCAN_TEST_SWEEP=1).
#include <gtest/gtest.h>

#include <streamscan/iterators.hpp>
#include <streamscan/nccl.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "common/cuda_helpers.cuh"
#include "common/oracle.hpp"
#include "common/ranked_groups.cuh"
#include "common/random.hpp"
#include "common/sweep.cuh"
#include "common/types.hpp"

namespace {

using namespace streamscan_test;
namespace ss = streamscan;

// The rebalance's split (the library's share_begin and the tests' own
// split_begin) against the bounds of np.array_split(np.arange(total), ranks),
// with total < ranks, total % ranks != 0 and a total past 2^32 among them.
TEST(nccl_split, SplitIsNumpyArraySplit) {
  const struct {
    std::int64_t total;
    int ranks;
    std::vector<std::int64_t> bounds;  // ranks + 1 of them
  } cases[] = {
      {5, 2, {0, 3, 5}},
      {7, 3, {0, 3, 5, 7}},
      {10, 5, {0, 2, 4, 6, 8, 10}},
      {2, 3, {0, 1, 2, 2}},
      {3, 5, {0, 1, 2, 3, 3, 3}},
      {0, 3, {0, 0, 0, 0}},
      {1, 1, {0, 1}},
      {(std::int64_t{1} << 32) + 22, 3, {0, 1431655773, 2863311546, 4294967318}},
  };
  for (const auto& c : cases)
    for (int r = 0; r <= c.ranks; ++r) {
      EXPECT_EQ(ss::cuda::detail::share_begin(c.total, c.ranks, r), c.bounds[r])
          << "total " << c.total << " on " << c.ranks << " ranks, rank " << r;
      EXPECT_EQ(split_begin(c.total, c.ranks, r), c.bounds[r]) << "total " << c.total << " on " << c.ranks;
    }
}

// Scans shards of T with op on group g (inclusive, or exclusive from init)
// and checks every rank's output against the oracle of the joined shards.
template <class T, class A, class Op>
void check_scan(group& g, const std::vector<std::int64_t>& sizes, Op op, scan_kind kind, A init, bool in_place,
                std::mt19937_64& rng) {
  const int ranks = g.size();
  std::vector<std::vector<T>> shards(static_cast<std::size_t>(ranks));
  std::vector<T> joined;
  for (int r = 0; r < ranks; ++r) {
    for (std::int64_t i = 0; i < sizes[r]; ++i) shards[r].push_back(random_value<T>(rng));
    joined.insert(joined.end(), shards[r].begin(), shards[r].end());
  }
  const std::vector<A> expected = oracle_scan<A>(joined, op, kind, init);
  std::vector<std::vector<A>> got(static_cast<std::size_t>(ranks));
  const auto errors = g.run([&](const rank_env& env, auto comm) {
    const std::int64_t n = sizes[env.rank];
    device_buffer<T> in(static_cast<std::size_t>(n));
    device_buffer<A> out_buffer(static_cast<std::size_t>(n));
    in.upload(shards[env.rank]);
    A* out = in_place ? reinterpret_cast<A*>(in.get()) : out_buffer.get();
    if (!in_place && n > 0) STREAMSCAN_TEST_CUDA(cudaMemset(out, 0xA5, static_cast<std::size_t>(n) * sizeof(A)));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // the rank's non-blocking stream would not wait for the fill
    if (kind == scan_kind::exclusive)
      ss::nccl::exclusive_scan(in.get(), out, n, init, op, comm, env.stream);
    else
      ss::nccl::inclusive_scan(in.get(), out, n, op, comm, env.stream);
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
    got[env.rank].resize(static_cast<std::size_t>(n));
    if (n > 0)
      STREAMSCAN_TEST_CUDA(cudaMemcpy(got[env.rank].data(), out, static_cast<std::size_t>(n) * sizeof(A),
                                      cudaMemcpyDeviceToHost));
  });
  expect_all_ok(errors);
  std::size_t at = 0;
  for (int r = 0; r < ranks; ++r) {
    ASSERT_EQ(got[r].size(), static_cast<std::size_t>(sizes[r]));
    for (std::int64_t i = 0; i < sizes[r]; ++i, ++at) {
      if (!(got[r][i] == expected[at])) {
        ADD_FAILURE() << "rank " << r << " element " << i << " (global " << at << "): got " << got[r][i]
                      << ", expected " << expected[at] << "; seed " << global_seed();
        return;
      }
    }
  }
}

TEST_F(nccl_test, InclusiveAndExclusiveSumsOfUnequalShards) {
  auto rng = make_rng("nccl.sums");
  for_each_group([&](group& g) {
    for (int round = 0; round < 3; ++round) {
      const auto sizes = shard_sizes(g.size(), rng, 3'000'000);
      check_scan<std::int32_t, std::int32_t>(g, sizes, ss::plus{}, scan_kind::inclusive, 0, false, rng);
      check_scan<std::int32_t, std::int32_t>(g, sizes, ss::plus{}, scan_kind::exclusive, 7, false, rng);
      check_scan<std::uint64_t, std::uint64_t>(g, sizes, ss::plus{}, scan_kind::inclusive, 0, round == 1, rng);
    }
  });
}

TEST_F(nccl_test, NonCommutativeOperatorsAndStructs) {
  auto rng = make_rng("nccl.noncommutative");
  for_each_group([&](group& g) {
    const auto sizes = shard_sizes(g.size(), rng, 500'000);
    check_scan<mat2u, mat2u>(g, sizes, mat2u_product{}, scan_kind::inclusive, mat2u{}, false, rng);
    check_scan<mat2u, mat2u>(g, sizes, mat2u_product{}, scan_kind::exclusive, mat2u{1, 2, 3, 5}, true, rng);
    using aff = affine<std::uint32_t>;
    check_scan<aff, aff>(g, sizes, affine_compose{}, scan_kind::exclusive, aff{3, 1}, false, rng);
    check_scan<std::int32_t, std::int32_t>(g, sizes, take_right{}, scan_kind::inclusive, 0, false, rng);
  });
}

TEST_F(nccl_test, EmptyAndSingleElementShards) {
  auto rng = make_rng("nccl.empty");
  for_each_group([&](group& g) {
    const int p = g.size();
    check_scan<std::int32_t, std::int32_t>(g, std::vector<std::int64_t>(p, 0), ss::plus{}, scan_kind::inclusive, 0,
                                           false, rng);
    check_scan<std::int32_t, std::int32_t>(g, std::vector<std::int64_t>(p, 1), ss::plus{}, scan_kind::exclusive, 5,
                                           false, rng);
    std::vector<std::int64_t> last_only(p, 0);
    last_only.back() = 1000;
    check_scan<std::int32_t, std::int32_t>(g, last_only, ss::plus{}, scan_kind::inclusive, 0, false, rng);
  });
}

// Floats: the same bits on every run (carries folded in rank order), and
// close to a double-precision oracle.
TEST_F(nccl_test, FloatResultsRepeatBitForBit) {
  auto rng = make_rng("nccl.float");
  for_each_group([&](group& g) {
    const int ranks = g.size();
    const auto sizes = shard_sizes(ranks, rng, 2'000'000);
    std::vector<std::vector<float>> shards(static_cast<std::size_t>(ranks));
    std::vector<double> joined;
    for (int r = 0; r < ranks; ++r)
      for (std::int64_t i = 0; i < sizes[r]; ++i) {
        shards[r].push_back(random_value<float>(rng));
        joined.push_back(shards[r].back());
      }
    std::vector<std::vector<float>> first(static_cast<std::size_t>(ranks));
    int differing_runs = 0;
    for (int run = 0; run < 20; ++run) {
      std::vector<std::vector<float>> got(static_cast<std::size_t>(ranks));
      expect_all_ok(g.run([&](const rank_env& env, auto comm) {
        const std::int64_t n = sizes[env.rank];
        device_buffer<float> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        in.upload(shards[env.rank]);
        ss::nccl::inclusive_scan(in.get(), out.get(), n, ss::plus{}, comm, env.stream);
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
        out.download(got[env.rank]);
      }));
      if (run == 0) first = got;
      else if (got != first) ++differing_runs;
    }
    EXPECT_EQ(differing_runs, 0) << "of 19 repeated runs";
    double sum = 0, magnitude = 0;
    std::size_t at = 0;
    for (int r = 0; r < ranks; ++r)
      for (std::int64_t i = 0; i < sizes[r]; ++i, ++at) {
        sum += joined[at];
        magnitude += std::abs(joined[at]);
        ASSERT_NEAR(first[r][i], sum, 1e-6 * magnitude + 1e-5) << "rank " << r << " element " << i;
      }
  });
}

// A bad argument on one rank: every rank gets an error naming that rank and
// argument, and no rank writes its output.
TEST_F(nccl_test, BadArgumentOnOneRankIsEveryRanksError) {
  for_each_group([&](group& g) {
    const int bad = g.size() - 1;
    const std::int64_t n = 1000;
    std::vector<std::int32_t> untouched(n);
    const auto errors = g.run([&](const rank_env& env, auto comm) {
      device_buffer<std::int32_t> in(n), out(n);
      STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0, n * sizeof(std::int32_t)));
      STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 0x5A, n * sizeof(std::int32_t)));
      const std::int64_t my_n = env.rank == bad ? -5 : n;
      try {
        ss::nccl::inclusive_scan(in.get(), out.get(), my_n, ss::plus{}, comm, env.stream);
      } catch (...) {
        STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
        std::vector<std::int32_t> after;
        out.download(after);
        for (std::int32_t v : after)
          if (v != 0x5A5A5A5A) throw std::runtime_error("output written");
        throw;
      }
    });
    for (int r = 0; r < g.size(); ++r) {
      EXPECT_NE(errors[r].find("'n' is negative"), std::string::npos) << "rank " << r << ": " << errors[r];
      if (r != bad) EXPECT_NE(errors[r].find("on rank " + std::to_string(bad)), std::string::npos) << errors[r];
    }
  });
}

TEST_F(nccl_test, RanksThatDisagreeOnTypesOrOperatorsAllFail) {
  for_each_group([&](group& g) {
    if (g.size() < 2) return;
    for (int variant = 0; variant < 2; ++variant) {
      const auto errors = g.run([&](const rank_env& env, auto comm) {
        device_buffer<std::int64_t> in(100), out(100);
        STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0, 100 * sizeof(std::int64_t)));
        if (env.rank == 1 && variant == 0)  // another accumulator type
          ss::nccl::inclusive_scan(reinterpret_cast<std::int32_t*>(in.get()),
                                   reinterpret_cast<std::int32_t*>(out.get()), 100, ss::plus{}, comm, env.stream);
        else if (env.rank == 1)  // another operator
          ss::nccl::inclusive_scan(in.get(), out.get(), 100, ss::maximum{}, comm, env.stream);
        else
          ss::nccl::inclusive_scan(in.get(), out.get(), 100, ss::plus{}, comm, env.stream);
      });
      for (int r = 0; r < g.size(); ++r)
        EXPECT_NE(errors[r].find("made another call"), std::string::npos) << "rank " << r << ": " << errors[r];
    }
  });
}

TEST_F(nccl_test, NullCommunicatorIsNamed) {
  device_buffer<std::int32_t> in(10), out(10);
  try {
    ss::nccl::inclusive_scan(in.get(), out.get(), 10, ss::plus{}, ncclComm_t{nullptr});
    FAIL() << "no error";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.code(), ss::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'comm'"), std::string::npos) << e.what();
  }
}

// A simulated rank that never calls: the others fail after the timeout
// instead of hanging.
TEST_F(nccl_test, SimulatedGroupTimesOutInsteadOfHanging) {
  simulated_group g(3, std::chrono::milliseconds(300));
  const auto errors = g.run([&](const rank_env& env, auto comm) {
    if (env.rank == 2) return;
    device_buffer<std::int32_t> in(10), out(10);
    ss::nccl::inclusive_scan(in.get(), out.get(), 10, ss::plus{}, comm, env.stream);
  });
  EXPECT_NE(errors[0].find("not every rank reached"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("not every rank reached"), std::string::npos) << errors[1];
}

struct below {
  std::int32_t t;
  STREAMSCAN_HOST_DEVICE bool operator()(std::int32_t x) const { return x < t; }
};

// One rank's rebalance setup: n elements, every one selected and compacted
// into `out` (the placement in `p`); `mine`, the rebalance output, poisoned.
struct compacted_on_rank {
  template <class Comm>
  compacted_on_rank(std::int64_t n, const rank_env& env, Comm comm) : in(n), out(n), mine(n) {
    STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0, n * sizeof(std::int32_t)));
    STREAMSCAN_TEST_CUDA(cudaMemset(mine.get(), 0x5A, n * sizeof(std::int32_t)));
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // the rank's non-blocking stream would not wait for the fills
    p = ss::nccl::select_if(in.get(), out.get(), n, n, below{1}, comm, env.stream);
  }
  device_buffer<std::int32_t> in, out, mine;
  ss::nccl::rank_placement p;
};

// Compaction across ranks: local order, global offsets and total; then
// rebalancing gives every rank its slice of the global order, numpy.array_split's
// (split_begin). Round 2 keeps ranks - 1 elements in all: fewer than the ranks;
// round 3 keeps none. Rounds 1 and 3 compact by flags.
TEST_F(nccl_test, CompactionPlacementAndRebalance) {
  auto rng = make_rng("nccl.compaction");
  for_each_group([&](group& g) {
    const int ranks = g.size();
    for (int round = 0; round < 4; ++round) {
      std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks), 0);
      if (round != 2) sizes = shard_sizes(ranks, rng, 1'500'000);
      else sizes[0] = ranks - 1;
      // Values lie in [-100, 100]: round 2 keeps all, round 3 none.
      const below pred{round == 0 ? -50 : round == 1 ? 40 : round == 2 ? 101 : -101};
      std::vector<std::vector<std::int32_t>> shards(static_cast<std::size_t>(ranks));
      std::vector<std::int32_t> selected;
      std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 0);
      for (int r = 0; r < ranks; ++r)
        for (std::int64_t i = 0; i < sizes[r]; ++i) {
          shards[r].push_back(random_value<std::int32_t>(rng));
          if (pred(shards[r].back())) {
            selected.push_back(shards[r].back());
            ++counts[r];
          }
        }
      const auto total = static_cast<std::int64_t>(selected.size());
      std::vector<ss::nccl::rank_placement> placements(static_cast<std::size_t>(ranks));
      std::vector<std::vector<std::int32_t>> local(static_cast<std::size_t>(ranks)), balanced(local);
      expect_all_ok(g.run([&](const rank_env& env, auto comm) {
        const std::int64_t n = sizes[env.rank];
        device_buffer<std::int32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        in.upload(shards[env.rank]);
        std::vector<std::uint8_t> flags(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) flags[i] = pred(shards[env.rank][i]) ? 1 : 0;
        device_buffer<std::uint8_t> dflags(static_cast<std::size_t>(n));
        dflags.upload(flags);
        ss::nccl::rank_placement p =
            round % 2 == 0 ? ss::nccl::select_if(in.get(), out.get(), n, n, pred, comm, env.stream)
                           : ss::nccl::select_flagged(in.get(), dflags.get(), out.get(), n, n, comm, env.stream);
        placements[env.rank] = p;
        local[env.rank].resize(static_cast<std::size_t>(p.count));
        if (p.count > 0)
          STREAMSCAN_TEST_CUDA(cudaMemcpy(local[env.rank].data(), out.get(), p.count * sizeof(std::int32_t),
                                          cudaMemcpyDeviceToHost));
        const std::int64_t share = (p.total + ranks - 1) / ranks;
        device_buffer<std::int32_t> mine(static_cast<std::size_t>(share));
        const std::int64_t got = ss::nccl::rebalance(out.get(), mine.get(), share, p, comm, env.stream);
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
        balanced[env.rank].resize(static_cast<std::size_t>(got));
        if (got > 0)
          STREAMSCAN_TEST_CUDA(cudaMemcpy(balanced[env.rank].data(), mine.get(), got * sizeof(std::int32_t),
                                          cudaMemcpyDeviceToHost));
      }));
      std::int64_t offset = 0, at = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto& p = placements[r];
        EXPECT_EQ(p.count, counts[r]) << "rank " << r;
        EXPECT_EQ(p.offset, offset) << "rank " << r;
        EXPECT_EQ(p.total, total) << "rank " << r;
        EXPECT_TRUE(p.complete);
        ASSERT_EQ(p.offsets.size(), static_cast<std::size_t>(ranks) + 1);
        EXPECT_EQ(p.offsets[r], offset);
        EXPECT_TRUE(std::equal(local[r].begin(), local[r].end(), selected.begin() + offset)) << "rank " << r;
        offset += counts[r];
        const std::int64_t begin = split_begin(total, ranks, r), end = split_begin(total, ranks, r + 1);
        EXPECT_EQ(at, begin);
        ASSERT_EQ(static_cast<std::int64_t>(balanced[r].size()), end - begin) << "rank " << r;
        EXPECT_TRUE(std::equal(balanced[r].begin(), balanced[r].end(), selected.begin() + begin)) << "rank " << r;
        at = end;
      }
    }
  });
}

// A rank whose capacity is short: the placement says so on every rank, and
// rebalancing refuses on every rank.
TEST_F(nccl_test, ShortCapacityMakesAnIncompletePlacement) {
  for_each_group([&](group& g) {
    const auto errors = g.run([&](const rank_env& env, auto comm) {
      const std::int64_t n = 1000;
      device_buffer<std::int32_t> in(n), out(n), mine(n);
      STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0, n * sizeof(std::int32_t)));
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // the rank's stream would not wait for the fill
      const std::int64_t capacity = env.rank == 0 ? 10 : n;
      const auto p = ss::nccl::select_if(in.get(), out.get(), n, capacity, below{1}, comm, env.stream);
      if (p.complete || p.count != n) throw std::runtime_error("placement should be incomplete");
      (void)ss::nccl::rebalance(out.get(), mine.get(), n, p, comm, env.stream);
    });
    for (int r = 0; r < g.size(); ++r)
      EXPECT_NE(errors[r].find("incomplete"), std::string::npos) << "rank " << r << ": " << errors[r];
  });
}

// Bad arguments on one rank of the two-phase forms, whose size query reports
// none: every rank gets the error (the others with the rank's number), and no
// rank writes its output or its placement.
TEST_F(nccl_test, BadArgumentOnOneRankOfScansAndCompactionsWritesNothing) {
  enum class call { inclusive, exclusive, select_if, select_flagged };
  enum class fault { null_in, null_out, null_flags, negative_n, negative_capacity };
  const struct {
    call kind;
    fault bad;
    const char* text;
  } cases[] = {
      {call::inclusive, fault::null_in, "argument 'in' is a null pointer"},
      {call::inclusive, fault::null_out, "argument 'out' is a null pointer"},
      {call::exclusive, fault::negative_n, "argument 'n' is negative (-5)"},
      {call::exclusive, fault::null_out, "argument 'out' is a null pointer"},
      {call::select_if, fault::null_in, "argument 'in' is a null pointer"},
      {call::select_if, fault::null_out, "argument 'out' is a null pointer"},
      {call::select_if, fault::negative_n, "argument 'n' is negative (-5)"},
      {call::select_if, fault::negative_capacity, "argument 'capacity' is negative (-1)"},
      {call::select_flagged, fault::null_flags, "argument 'flags' is a null pointer"},
      {call::select_flagged, fault::null_out, "argument 'out' is a null pointer"},
  };
  for_each_group([&](group& g) {
    const int bad = std::min(1, g.size() - 1);
    const std::int64_t n = 1000;
    for (const auto& c : cases) {
      SCOPED_TRACE(c.text);
      std::vector<ss::status> got(static_cast<std::size_t>(g.size()));
      std::vector<std::string> written(got.size());
      expect_all_ok(g.run([&](const rank_env& env, auto comm) {
        const bool broken = env.rank == bad;
        device_buffer<std::int32_t> in(n), out(n);
        device_buffer<std::uint8_t> flags(n);
        STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0, n * sizeof(std::int32_t)));  // every element selected
        STREAMSCAN_TEST_CUDA(cudaMemset(flags.get(), 1, n));
        STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 0x5A, n * sizeof(std::int32_t)));
        const std::int32_t* pin = broken && c.bad == fault::null_in ? nullptr : in.get();
        std::int32_t* pout = broken && c.bad == fault::null_out ? nullptr : out.get();
        const std::uint8_t* pflags = broken && c.bad == fault::null_flags ? nullptr : flags.get();
        const std::int64_t my_n = broken && c.bad == fault::negative_n ? -5 : n;
        const std::int64_t capacity = broken && c.bad == fault::negative_capacity ? -1 : n;
        ss::nccl::rank_placement placement;
        placement.count = -7;
        auto invoke = [&](void* t, std::size_t& b) {
          switch (c.kind) {
            case call::inclusive: return ss::nccl::inclusive_scan(t, b, pin, pout, my_n, ss::plus{}, comm, env.stream);
            case call::exclusive:
              return ss::nccl::exclusive_scan(t, b, pin, pout, my_n, 0, ss::plus{}, comm, env.stream);
            case call::select_if:
              return ss::nccl::select_if(t, b, pin, pout, my_n, capacity, below{1}, placement, comm, env.stream);
            default:
              return ss::nccl::select_flagged(t, b, pin, pflags, pout, my_n, capacity, placement, comm, env.stream);
          }
        };
        got[env.rank] = two_phase_on_rank(env, invoke);
        std::vector<std::int32_t> after;
        out.download(after);
        if (after != std::vector<std::int32_t>(n, 0x5A5A5A5A)) written[env.rank] = "output";
        if (placement.count != -7) written[env.rank] = "placement";
      }));
      for (int r = 0; r < g.size(); ++r) {
        EXPECT_EQ(got[r].code(), ss::errc::invalid_argument) << "rank " << r << ": " << got[r].message();
        EXPECT_NE(got[r].message().find(c.text), std::string::npos) << "rank " << r << ": " << got[r].message();
        if (r != bad)
          EXPECT_NE(got[r].message().find("on rank " + std::to_string(bad)), std::string::npos) << got[r].message();
        EXPECT_EQ(written[r], "") << "rank " << r << " wrote its " << written[r];
      }
    }
  });
}

struct below64 {
  std::int64_t t;
  STREAMSCAN_HOST_DEVICE bool operator()(std::int64_t x) const { return x < t; }
};

// The ranked compaction's local call in every strategy, and the stable one in
// each kind of kernel (one tile, pipelined, outbox): each runs behind the gate
// that the ranks' checks open on the device (dispatch_ranked.cuh).
struct compaction_variant {
  ss::select_strategy strategy;
  std::string policy;  // a stable shape by name; "" the default
  bool ordered;        // hybrid and warp_atomic keep no order
};
std::vector<compaction_variant> compaction_variants() {
  namespace tu = ss::tuning;
  return {{ss::select_strategy::automatic, "", true},
          {ss::select_strategy::stable, tu::name(tu::select_shapes[tu::default_partition_shape]), true},
          {ss::select_strategy::stable, tu::name(tu::select_shapes[tu::default_compaction_shape]), true},
          {ss::select_strategy::multi_level, "", true},
          {ss::select_strategy::hybrid, "", false},
          {ss::select_strategy::warp_atomic, "", false}};
}
std::string variant_name(const compaction_variant& v) {
  return std::string(ss::to_string(v.strategy)) + (v.policy.empty() ? "" : " " + v.policy);
}

// Every variant, by predicate and by flags, keeping none, some and all of
// unequal shards (empty ones among them): the placement, each rank's kept
// elements (in order, or as a set for the unordered strategies) and nothing
// written past them.
TEST_F(nccl_test, CompactionInEveryStrategyAndKernelShape) {
  auto rng = make_rng("nccl.compaction_variants");
  for_each_group([&](group& g) {
    const int ranks = g.size();
    for (const compaction_variant& v : compaction_variants()) {
      for (int round = 0; round < 6; ++round) {
        const bool flagged = round % 2 == 1;
        const below pred{round / 2 == 0 ? -101 : round / 2 == 1 ? 10 : 101};  // none, some, all kept
        SCOPED_TRACE(variant_name(v) + (flagged ? ", select_flagged" : ", select_if") + ", keeping below " +
                     std::to_string(pred.t));
        const std::vector<std::int64_t> sizes = shard_sizes(ranks, rng, 200'000);
        std::vector<std::vector<std::int32_t>> shards(static_cast<std::size_t>(ranks)), kept(shards);
        for (int r = 0; r < ranks; ++r)
          for (std::int64_t i = 0; i < sizes[r]; ++i) {
            shards[r].push_back(random_value<std::int32_t>(rng));
            if (pred(shards[r].back())) kept[r].push_back(shards[r].back());
          }
        std::vector<ss::nccl::rank_placement> placements(static_cast<std::size_t>(ranks));
        std::vector<std::vector<std::int32_t>> got(static_cast<std::size_t>(ranks));
        std::vector<std::string> tail(got.size());
        expect_all_ok(g.run([&](const rank_env& env, auto comm) {
          const std::int64_t n = sizes[env.rank];
          device_buffer<std::int32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
          device_buffer<std::uint8_t> flags(static_cast<std::size_t>(n));
          in.upload(shards[env.rank]);
          std::vector<std::uint8_t> f(static_cast<std::size_t>(n));
          for (std::int64_t i = 0; i < n; ++i) f[i] = pred(shards[env.rank][i]) ? 1 : 0;
          flags.upload(f);
          if (n > 0) STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 0x5A, n * sizeof(std::int32_t)));
          STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
          const ss::select_options opt{v.strategy, v.policy.empty() ? nullptr : v.policy.c_str()};
          const ss::nccl::rank_placement p =
              flagged ? ss::nccl::select_flagged(in.get(), flags.get(), out.get(), n, n, comm, env.stream, opt)
                      : ss::nccl::select_if(in.get(), out.get(), n, n, pred, comm, env.stream, opt);
          STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
          placements[env.rank] = p;
          std::vector<std::int32_t> all;
          out.download(all);
          const std::size_t count = static_cast<std::size_t>(std::clamp<std::int64_t>(p.count, 0, n));
          got[env.rank].assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
          for (std::size_t i = count; i < all.size(); ++i)
            if (all[i] != 0x5A5A5A5A) {
              tail[env.rank] = "element " + std::to_string(i) + " past the count written";
              break;
            }
        }));
        std::int64_t offset = 0, total = 0;
        for (int r = 0; r < ranks; ++r) total += static_cast<std::int64_t>(kept[r].size());
        for (int r = 0; r < ranks; ++r) {
          const auto& p = placements[r];
          const auto count = static_cast<std::int64_t>(kept[r].size());
          EXPECT_EQ(p.count, count) << "rank " << r;
          EXPECT_EQ(p.offset, offset) << "rank " << r;
          EXPECT_EQ(p.total, total) << "rank " << r;
          EXPECT_TRUE(p.complete) << "rank " << r;
          ASSERT_EQ(p.offsets.size(), static_cast<std::size_t>(ranks) + 1) << "rank " << r;
          for (int q = 0; q <= ranks; ++q) {
            std::int64_t before = 0;
            for (int k = 0; k < q; ++k) before += static_cast<std::int64_t>(kept[k].size());
            EXPECT_EQ(p.offsets[q], before) << "rank " << r << ", offsets[" << q << "]";
          }
          std::vector<std::int32_t> expected = kept[r], mine = got[r];
          if (!v.ordered) {
            std::sort(expected.begin(), expected.end());
            std::sort(mine.begin(), mine.end());
          }
          EXPECT_TRUE(mine == expected) << "rank " << r << ": wrong kept elements";
          EXPECT_EQ(tail[r], "") << "rank " << r;
          offset += count;
        }
      }
    }
  });
}

// A compaction refused on every rank writes nothing on any, in every variant:
// a bad argument on one rank, or one rank compacting another element type
// (there every rank's own checks pass, and only the gate, judged on the
// device from the gathered records, keeps the others from writing).
TEST_F(nccl_test, RefusedCompactionWritesNothingInEveryStrategy) {
  enum class fault { null_out, null_flags, other_type };
  const struct {
    fault bad;
    const char* text;
  } cases[] = {
      {fault::null_out, "argument 'out' is a null pointer"},
      {fault::null_flags, "argument 'flags' is a null pointer"},
      {fault::other_type, "made another call"},
  };
  for_each_group([&](group& g) {
    const int odd = std::min(1, g.size() - 1);
    std::int64_t n = 70'000;  // several tiles of every shape
    if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N")) n = std::min<std::int64_t>(n, std::atoll(cap));
    for (const compaction_variant& v : compaction_variants())
      for (const auto& c : cases) {
        if (c.bad == fault::other_type && g.size() < 2) continue;
        SCOPED_TRACE(variant_name(v) + ": " + c.text);
        std::vector<ss::status> got(static_cast<std::size_t>(g.size()));
        std::vector<std::string> written(got.size());
        expect_all_ok(g.run([&](const rank_env& env, auto comm) {
          const bool broken = env.rank == odd;
          device_buffer<std::int32_t> in(n), out(n);
          device_buffer<std::int64_t> in64(n), out64(n);
          device_buffer<std::uint8_t> flags(n);
          STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0, n * sizeof(std::int32_t)));  // every element selected
          STREAMSCAN_TEST_CUDA(cudaMemset(in64.get(), 0, n * sizeof(std::int64_t)));
          STREAMSCAN_TEST_CUDA(cudaMemset(flags.get(), 1, n));
          STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 0x5A, n * sizeof(std::int32_t)));
          STREAMSCAN_TEST_CUDA(cudaMemset(out64.get(), 0x5A, n * sizeof(std::int64_t)));
          STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
          const ss::select_options opt{v.strategy, v.policy.empty() ? nullptr : v.policy.c_str()};
          ss::nccl::rank_placement placement;
          placement.count = -7;
          auto invoke = [&](void* t, std::size_t& b) {
            if (broken && c.bad == fault::other_type)
              return ss::nccl::select_if(t, b, in64.get(), out64.get(), n, n, below64{1}, placement, comm, env.stream,
                                         opt);
            if (c.bad == fault::null_flags)
              return ss::nccl::select_flagged(t, b, in.get(), broken ? nullptr : flags.get(), out.get(), n, n,
                                              placement, comm, env.stream, opt);
            return ss::nccl::select_if(t, b, in.get(), broken && c.bad == fault::null_out ? nullptr : out.get(), n, n,
                                       below{1}, placement, comm, env.stream, opt);
          };
          got[env.rank] = two_phase_on_rank(env, invoke);
          std::vector<std::int32_t> after;
          out.download(after);
          std::vector<std::int64_t> after64;
          out64.download(after64);
          if (after != std::vector<std::int32_t>(n, 0x5A5A5A5A)) written[env.rank] = "output";
          if (after64 != std::vector<std::int64_t>(n, 0x5A5A5A5A5A5A5A5All)) written[env.rank] = "output";
          if (placement.count != -7) written[env.rank] = "placement";
        }));
        for (int r = 0; r < g.size(); ++r) {
          EXPECT_EQ(got[r].code(), ss::errc::invalid_argument) << "rank " << r << ": " << got[r].message();
          EXPECT_NE(got[r].message().find(c.text), std::string::npos) << "rank " << r << ": " << got[r].message();
          if (r != odd && c.bad != fault::other_type)
            EXPECT_NE(got[r].message().find("on rank " + std::to_string(odd)), std::string::npos) << got[r].message();
          EXPECT_EQ(written[r], "") << "rank " << r << " wrote its " << written[r];
        }
      }
  });
}

// rebalance holds in and out to the rule of every call: memory the GPU can
// reach. A host output on one rank is every rank's error; nothing is written.
TEST_F(nccl_test, HostOutputOfRebalanceIsRefusedOnEveryRank) {
  if (gpu_reads_pageable_memory())
    GTEST_SKIP() << "this GPU can read pageable host memory, so host pointers are valid here";
  for_each_group([&](group& g) {
    const int ranks = g.size(), bad = std::min(1, ranks - 1);
    const std::int64_t n = 100;
    std::vector<ss::status> got(static_cast<std::size_t>(ranks));
    std::vector<std::string> written(got.size());
    expect_all_ok(g.run([&](const rank_env& env, auto comm) {
      compacted_on_rank c(n, env, comm);
      std::vector<std::int32_t> host(n, 0x5A5A5A5A);
      std::int64_t count = -7;
      got[env.rank] = ss::nccl::rebalance(c.out.get(), env.rank == bad ? host.data() : c.mine.get(), n, c.p, count,
                                          comm, env.stream);
      STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
      std::vector<std::int32_t> after;
      c.mine.download(after);
      if (after != std::vector<std::int32_t>(n, 0x5A5A5A5A) || host != after) written[env.rank] = "output";
      if (count != -7) written[env.rank] = "count";
    }));
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(got[r].code(), ss::errc::inaccessible_pointer) << "rank " << r << ": " << got[r].message();
      EXPECT_NE(got[r].message().find("'out'"), std::string::npos) << "rank " << r << ": " << got[r].message();
      EXPECT_EQ(written[r], "") << "rank " << r << " wrote its " << written[r];
    }
  });
}

// A placement that the compaction could not have returned, on one rank:
// rebalance refuses on every rank, naming 'placement', and writes nothing.
TEST_F(nccl_test, CorruptedPlacementIsRefusedOnEveryRank) {
  enum class corruption { offsets_missing, first_offset, negative_count, total, offset, count, other_offsets };
  const struct {
    corruption kind;
    const char* text;
  } cases[] = {
      {corruption::offsets_missing, "argument 'placement' has "},
      {corruption::first_offset, "argument 'placement' has offsets[0] = -1, not 0"},
      {corruption::negative_count, "a negative count"},
      {corruption::total, "argument 'placement' has total "},
      {corruption::offset, "argument 'placement' gives this rank"},
      {corruption::count, "argument 'placement' gives this rank"},
      {corruption::other_offsets, "argument 'placement' is not the same on every rank"},
  };
  for_each_group([&](group& g) {
    const int ranks = g.size(), bad = std::min(1, ranks - 1);
    const std::int64_t n = 100;
    for (const auto& c : cases) {
      if (c.kind == corruption::other_offsets && ranks < 2) continue;
      SCOPED_TRACE(c.text);
      std::vector<ss::status> got(static_cast<std::size_t>(ranks));
      std::vector<std::string> written(got.size());
      expect_all_ok(g.run([&](const rank_env& env, auto comm) {
        compacted_on_rank setup(n, env, comm);
        ss::nccl::rank_placement& p = setup.p;
        if (env.rank == bad) {
          std::vector<std::int64_t>& o = p.offsets;
          switch (c.kind) {
            case corruption::offsets_missing: o.pop_back(); break;
            case corruption::first_offset: o[0] = -1; break;
            case corruption::negative_count: o[bad + 1] = o[bad] - 1; break;
            case corruption::total: p.total += 1; break;
            case corruption::offset: p.offset += 1; break;
            case corruption::count: p.count -= 1; break;
            default:  // one element moves from rank 1 to rank 0: consistent here, not with the others
              o[1] += 1;
              p.offset = o[bad];
              p.count = o[bad + 1] - o[bad];
          }
        }
        std::int64_t count = -7;
        got[env.rank] = ss::nccl::rebalance(setup.out.get(), setup.mine.get(), n, p, count, comm, env.stream);
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
        std::vector<std::int32_t> after;
        setup.mine.download(after);
        if (after != std::vector<std::int32_t>(n, 0x5A5A5A5A)) written[env.rank] = "output";
        if (count != -7) written[env.rank] = "count";
      }));
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(got[r].code(), ss::errc::invalid_argument) << "rank " << r << ": " << got[r].message();
        EXPECT_NE(got[r].message().find(c.text), std::string::npos) << "rank " << r << ": " << got[r].message();
        if (r != bad && c.kind != corruption::other_offsets)
          EXPECT_NE(got[r].message().find("on rank " + std::to_string(bad)), std::string::npos) << got[r].message();
        EXPECT_EQ(written[r], "") << "rank " << r << " wrote its " << written[r];
      }
    }
  });
}

// ---- Sizes past 2^31 and 2^32 (STREAMSCAN_TEST_SWEEP=1) ----
// The ranked scan, compaction and rebalance on simulated ranks (one GPU, so
// a check kernel reads every rank's buffers) with shards and totals past
// 2^31 and 2^32 elements. Inputs are hashed from the global index on the
// device and every check runs there (tests/common/sweep.cuh).

namespace sw = streamscan_test::sweep;

// Shard sizes in rank order; rank r's shard holds global indices
// [first(r), first(r) + n[r]).
struct shape {
  std::vector<std::int64_t> n;
  int ranks() const { return static_cast<int>(n.size()); }
  std::int64_t first(int r) const { return std::accumulate(n.begin(), n.begin() + r, std::int64_t{0}); }
  std::int64_t total() const { return first(ranks()); }
  std::string name() const {
    std::string s = std::to_string(ranks()) + " ranks {";
    for (int r = 0; r < ranks(); ++r) s += (r ? ", " : "") + sw::log2_name(n[r]);
    return s + "}";
  }
};

// Room for a case's temp storage on top of its data (the calls ask for a few
// MiB each; their size queries give the exact bytes when carved).
constexpr std::size_t temp_room = std::size_t{1} << 30;

template <class T, class F>
__global__ void fill_from_index(T* p, std::int64_t n, std::int64_t first, F f) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    p[i] = f(static_cast<std::uint64_t>(first + i));
}

// Every rank's temp storage for one call, carved from the arena: `query(comm,
// r, bytes)` is rank r's size query (which makes no exchange), on a group of
// the same size.
template <class Query>
std::vector<void*> carve_temps(sw::arena& arena, int ranks, std::vector<std::size_t>& bytes, Query query) {
  ss::cuda::simulated_ranks sizing(ranks);
  std::vector<void*> temps(static_cast<std::size_t>(ranks));
  bytes.assign(temps.size(), 0);
  for (int r = 0; r < ranks; ++r) {
    ss::throw_if_error(query(sizing.member(r), r, bytes[r]));
    temps[r] = arena.take<unsigned char>(static_cast<std::int64_t>(bytes[r]), false);
    if (temps[r] == nullptr)
      throw std::runtime_error("the arena has no room for rank " + std::to_string(r) + "'s temp storage");
  }
  return temps;
}

// The scan's input: a uint32 hash of the global index.
struct scan_input {
  std::uint64_t salt;
  __host__ __device__ std::uint32_t operator()(std::uint64_t g) const {
    return static_cast<std::uint32_t>(sw::hash64(salt, g));
  }
};

enum scan_counter { wrong_sum, changed_input, scan_counter_count };

// An inclusive sum (wrapping) holds exactly when out[i] == out[i - 1] +
// in(first + i) for every i, with out[-1] the previous non-empty rank's last
// output (*before; 0 before the first rank). `in` (null when scanned in place)
// must be unchanged.
__global__ void check_scan_shard(const std::uint32_t* out, const std::uint32_t* in, std::int64_t n, std::int64_t first,
                                 scan_input f, const std::uint32_t* before, unsigned long long* counts) {
  unsigned long long wrong = 0, changed = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t x = f(static_cast<std::uint64_t>(first + i));
    const std::uint32_t prev = i > 0 ? out[i - 1] : before ? *before : 0u;
    if (out[i] != static_cast<std::uint32_t>(prev + x)) ++wrong;
    if (in && in[i] != x) ++changed;
  }
  if (wrong) atomicAdd(counts + wrong_sum, wrong);
  if (changed) atomicAdd(counts + changed_input, changed);
}

std::size_t scan_bytes(const shape& s, bool in_place) {
  return static_cast<std::size_t>(s.total()) * sizeof(std::uint32_t) * (in_place ? 1 : 2) + temp_room;
}

// An inclusive sum of uint32 across the ranks of `s`, checked on the device.
void check_large_scan(sw::arena& arena, const shape& s, bool in_place, std::uint64_t salt) {
  const std::string name = "nccl inclusive_scan uint32 " + s.name() + (in_place ? " in place" : "");
  SCOPED_TRACE("seed " + std::to_string(global_seed()) + " " + name);
  if (!sw::arena::fits(scan_bytes(s, in_place), arena.capacity()))
    return sw::case_log::skipped(name, scan_bytes(s, in_place), arena.capacity());
  const sw::case_log log(name);
  const int ranks = s.ranks();
  const scan_input f{salt};
  arena.reset();
  std::vector<std::uint32_t*> in(static_cast<std::size_t>(ranks)), out(in.size());
  for (int r = 0; r < ranks; ++r) {
    in[r] = arena.take<std::uint32_t>(s.n[r]);
    out[r] = in_place ? in[r] : arena.take<std::uint32_t>(s.n[r]);
    ASSERT_TRUE(in[r] && out[r]);
    fill_from_index<<<8192, 256>>>(in[r], s.n[r], s.first(r), f);
  }
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  std::vector<std::size_t> bytes;
  const auto temps = carve_temps(arena, ranks, bytes, [&](auto comm, int r, std::size_t& b) {
    return ss::nccl::inclusive_scan(nullptr, b, in[r], out[r], s.n[r], ss::plus{}, comm);
  });
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // the ranks' non-blocking streams do not wait for the fill
  simulated_group g(ranks);
  expect_all_ok(g.run([&](const rank_env& env, auto comm) {
    const int r = env.rank;
    std::size_t b = bytes[r];
    ss::throw_if_error(ss::nccl::inclusive_scan(temps[r], b, in[r], out[r], s.n[r], ss::plus{}, comm, env.stream));
  }));
  sw::counters counts(scan_counter_count);
  const std::uint32_t* before = nullptr;
  for (int r = 0; r < ranks; ++r) {
    if (s.n[r] == 0) continue;
    check_scan_shard<<<sw::grid_for(s.n[r]), 256>>>(out[r], in_place ? nullptr : in[r], s.n[r], s.first(r), f, before,
                                                     counts.get());
    before = out[r] + s.n[r] - 1;
  }
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto got = counts.read();
  EXPECT_EQ(got[wrong_sum], 0u) << "outputs that are not the output before plus the input";
  EXPECT_EQ(got[changed_input], 0u) << "input elements changed by an out-of-place scan";
  for (int r = 0; r < ranks; ++r) EXPECT_TRUE(sw::guard_intact(out[r], s.n[r])) << "bytes after rank " << r << "'s output";
  log.done(!::testing::Test::HasFailure());
}

// The compaction's element of global index g: (g << 8) | byte for uint64 (the
// value names its index), the byte alone for uint8.
template <class V>
struct compaction_input {
  std::uint64_t salt;
  __host__ __device__ std::uint8_t byte(std::uint64_t g) const { return static_cast<std::uint8_t>(sw::hash64(salt, g)); }
  __host__ __device__ V operator()(std::uint64_t g) const {
    if constexpr (sizeof(V) == 8)
      return (g << 8) | byte(g);
    else
      return byte(g);
  }
};

// The predicate: the element's byte below `limit` (of 256).
struct byte_below {
  unsigned limit;
  template <class V>
  __host__ __device__ bool operator()(V v) const {
    return (static_cast<unsigned>(v) & 0xffu) < limit;
  }
};

// counts[0] += how many of global indices [first, first + n) the predicate
// keeps, counts[1] += the sum of their bytes.
template <class V>
__global__ void count_kept(std::int64_t first, std::int64_t n, compaction_input<V> f, byte_below keep,
                           unsigned long long* counts) {
  unsigned long long kept = 0, sum = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint8_t b = f.byte(static_cast<std::uint64_t>(first + i));
    if (keep(b)) ++kept, sum += b;
  }
  if (kept) atomicAdd(counts, kept), atomicAdd(counts + 1, sum);
}

enum compaction_counter { not_kept, kept_bytes, outside_shard, not_an_input, out_of_order, compaction_counter_count };

// One rank's compacted output: every element kept by the predicate, and the
// sum of their bytes. For uint64, each value's index within the rank's shard,
// the value the input of that index, and indices strictly rising: with the
// count, exactly the kept indices in order.
template <class V>
__global__ void check_compacted(const V* out, std::int64_t count, std::int64_t first, std::int64_t n,
                                compaction_input<V> f, byte_below keep, unsigned long long* counts) {
  unsigned long long c[compaction_counter_count] = {};
  for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::int64_t{gridDim.x} * blockDim.x) {
    const V v = out[j];
    if (!keep(v)) ++c[not_kept];
    c[kept_bytes] += static_cast<unsigned>(v) & 0xffu;
    if constexpr (sizeof(V) == 8) {
      const std::uint64_t g = v >> 8;
      if (g < static_cast<std::uint64_t>(first) || g >= static_cast<std::uint64_t>(first + n))
        ++c[outside_shard];
      else if (v != f(g))
        ++c[not_an_input];
      if (j > 0 && (out[j - 1] >> 8) >= g) ++c[out_of_order];
    }
  }
  for (int k = 0; k < compaction_counter_count; ++k)
    if (c[k]) atomicAdd(counts + k, c[k]);
}

constexpr int most_ranks = 4;

// Every rank's compacted output and the global offsets (the placement's).
template <class V>
struct compacted_ranks {
  const V* out[most_ranks];
  std::int64_t offsets[most_ranks + 1];
  int ranks;
};

// *wrong += how many of mine[j] differ from the compacted element of global
// position begin + j, on whichever rank holds it.
template <class V>
__global__ void check_rebalanced(const V* mine, std::int64_t count, std::int64_t begin, compacted_ranks<V> all,
                                 unsigned long long* wrong) {
  unsigned long long w = 0;
  for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t at = begin + j;
    int q = 0;
    while (q + 1 < all.ranks && at >= all.offsets[q + 1]) ++q;
    if (mine[j] != all.out[q][at - all.offsets[q]]) ++w;
  }
  if (w) atomicAdd(wrong, w);
}

// A compaction and rebalance case: keeps the elements whose byte is below
// keep_below (of 256). uint64 values come from a transform iterator (nothing
// stored); uint8 ones are read from memory.
struct compaction_case {
  shape s;
  unsigned keep_below;
  // Bytes it takes for `kept` kept elements: the stored input, the compacted
  // output and the rebalanced one.
  template <class V>
  std::size_t bytes(std::int64_t kept) const {
    return (sizeof(V) == 1 ? static_cast<std::size_t>(s.total()) : 0) + 2 * static_cast<std::size_t>(kept) * sizeof(V) +
           temp_room;
  }
  // The same before counting: the expected share kept, with a margin far
  // beyond a hash's spread.
  template <class V>
  std::size_t estimated_bytes() const {
    return bytes<V>(static_cast<std::int64_t>(static_cast<double>(s.total()) * keep_below / 256 * 1.001) + 4096);
  }
};

template <class V>
void check_large_compaction(sw::arena& arena, const compaction_case& c, std::uint64_t salt) {
  const shape& s = c.s;
  const int ranks = s.ranks();
  const std::string name = std::string("nccl select_if + rebalance ") +
                           (sizeof(V) == 8 ? "uint64 index<<8|byte from an iterator" : "uint8 from memory") +
                           ", keep " + std::to_string(c.keep_below) + "/256, " + s.name();
  SCOPED_TRACE("seed " + std::to_string(global_seed()) + " " + name);
  ASSERT_LE(ranks, most_ranks);
  const compaction_input<V> f{salt};
  const byte_below keep{c.keep_below};
  // What each rank must keep, counted on the device: the placement's offsets.
  sw::counters expected(2 * ranks);
  for (int r = 0; r < ranks; ++r)
    if (s.n[r] > 0) count_kept<<<sw::grid_for(s.n[r]), 256>>>(s.first(r), s.n[r], f, keep, expected.get() + 2 * r);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto want = expected.read();
  std::vector<std::int64_t> kept(static_cast<std::size_t>(ranks)), offsets(kept.size() + 1, 0), share(kept.size());
  for (int r = 0; r < ranks; ++r) offsets[r + 1] = offsets[r] + (kept[r] = static_cast<std::int64_t>(want[2 * r]));
  const std::int64_t total = offsets[ranks];
  if (!sw::arena::fits(c.bytes<V>(total), arena.capacity()))
    return sw::case_log::skipped(name, c.bytes<V>(total), arena.capacity());
  const sw::case_log log(name + ", " + std::to_string(total) + " kept");

  arena.reset();
  std::vector<V*> stored(kept.size(), nullptr), out(kept.size()), mine(kept.size());
  for (int r = 0; r < ranks; ++r) {
    if constexpr (sizeof(V) == 1) {
      stored[r] = arena.take<V>(s.n[r], false);
      ASSERT_NE(stored[r], nullptr);
      fill_from_index<<<8192, 256>>>(stored[r], s.n[r], s.first(r), f);
    }
    // Room for exactly what the rank keeps and for exactly its share: the
    // guard bytes after them catch any write past.
    share[r] = split_begin(total, ranks, r + 1) - split_begin(total, ranks, r);
    out[r] = arena.take<V>(kept[r]);
    mine[r] = arena.take<V>(share[r]);
    ASSERT_TRUE(out[r] && mine[r]);
  }
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto input = [&](int r) {
    if constexpr (sizeof(V) == 1)
      return static_cast<const V*>(stored[r]);
    else
      return ss::transform_iterator(ss::counting_iterator<std::uint64_t>(static_cast<std::uint64_t>(s.first(r))), f);
  };
  std::vector<std::size_t> bytes;
  const auto temps = carve_temps(arena, ranks, bytes, [&](auto comm, int r, std::size_t& b) {
    ss::nccl::rank_placement unused;
    return ss::nccl::select_if(nullptr, b, input(r), out[r], s.n[r], kept[r], keep, unused, comm);
  });
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // the ranks' non-blocking streams do not wait for the fill
  std::vector<ss::nccl::rank_placement> placement(kept.size());
  std::vector<std::int64_t> got(kept.size(), -1);
  simulated_group g(ranks);
  expect_all_ok(g.run([&](const rank_env& env, auto comm) {
    const int r = env.rank;
    std::size_t b = bytes[r];
    ss::throw_if_error(
        ss::nccl::select_if(temps[r], b, input(r), out[r], s.n[r], kept[r], keep, placement[r], comm, env.stream));
    ss::throw_if_error(ss::nccl::rebalance(out[r], mine[r], share[r], placement[r], got[r], comm, env.stream));
  }));

  compacted_ranks<V> all{};
  all.ranks = ranks;
  for (int r = 0; r <= ranks; ++r) all.offsets[r] = offsets[r];
  for (int r = 0; r < ranks; ++r) all.out[r] = out[r];
  for (int r = 0; r < ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const auto& p = placement[r];
    EXPECT_EQ(p.count, kept[r]);
    EXPECT_EQ(p.offset, offsets[r]);
    EXPECT_EQ(p.total, total);
    EXPECT_TRUE(p.complete);
    EXPECT_EQ(p.offsets, offsets);
    EXPECT_EQ(got[r], share[r]) << "not the rank's numpy.array_split share of " << total;
    // Bounded by what the test carved, whatever the library returned.
    sw::counters counts(compaction_counter_count + 1);
    check_compacted<<<sw::grid_for(kept[r]), 256>>>(out[r], kept[r], s.first(r), s.n[r], f, keep, counts.get());
    check_rebalanced<<<sw::grid_for(share[r]), 256>>>(mine[r], share[r], split_begin(total, ranks, r), all,
                                                       counts.get() + compaction_counter_count);
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    const auto seen = counts.read();
    EXPECT_EQ(seen[not_kept], 0u) << "compacted elements the predicate does not keep";
    EXPECT_EQ(seen[kept_bytes], want[2 * r + 1]) << "the compacted bytes' sum is not the kept inputs'";
    EXPECT_EQ(seen[outside_shard], 0u) << "compacted indices outside the rank's shard";
    EXPECT_EQ(seen[not_an_input], 0u) << "compacted values that are not their index's input";
    EXPECT_EQ(seen[out_of_order], 0u) << "compacted indices not strictly rising";
    EXPECT_EQ(seen[compaction_counter_count], 0u) << "rebalanced elements other than the global order's";
    EXPECT_TRUE(sw::guard_intact(out[r], kept[r])) << "bytes after the compacted output written";
    EXPECT_TRUE(sw::guard_intact(mine[r], share[r])) << "bytes after the rebalanced output written";
  }
  log.done(!::testing::Test::HasFailure());
}

// Shards and totals past 2^31 and 2^32: the scan of uint32 on two ranks
// (total past 2^32) and on three (one shard past 2^32, an empty one between,
// in place); the compaction and rebalance of uint64 values that name their
// index (two ranks: more than 2^31 kept; three: a shard past 2^32) and of
// uint8 from memory (three ranks: one keeps more than 2^32, every share passes
// 2^31). Simulated ranks only (every rank's buffers on one GPU). Tens of GiB
// of GPU memory (the largest case ~37 GiB, the cases one at a time), so only
// with STREAMSCAN_TEST_SWEEP=1: the default GPU round stays short.
TEST_F(nccl_test, SizesPastTwoToThe32) {
  if (const char* sweep = std::getenv("STREAMSCAN_TEST_SWEEP"); !sweep || std::string(sweep) != "1")
    GTEST_SKIP() << "sizes past 2^32 need tens of GiB of GPU memory: set STREAMSCAN_TEST_SWEEP=1 to run them";
  const shape two{{(std::int64_t{1} << 31) + 17, (std::int64_t{1} << 31) + 5}};
  const shape three{{(std::int64_t{1} << 32) + 9, 0, (std::int64_t{1} << 31) - 3}};
  const compaction_case indexed_two{two, 144}, indexed_three{three, 32};
  const compaction_case bytes_three{{{5 * (std::int64_t{1} << 30) + 9, 0, (std::int64_t{1} << 31) - 3}}, 240};
  const std::size_t largest = std::max({scan_bytes(two, false), scan_bytes(three, true),
                                        indexed_two.estimated_bytes<std::uint64_t>(),
                                        indexed_three.estimated_bytes<std::uint64_t>(),
                                        bytes_three.estimated_bytes<std::uint8_t>()});
  std::size_t free_bytes = 0, total_bytes = 0;
  STREAMSCAN_TEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double gib = 1 << 30;
  sw::arena arena;  // all the free memory but a reserve
  if (!sw::arena::fits(largest, arena.capacity()))
    GTEST_SKIP() << "the largest case needs " << largest / gib << " GiB of GPU memory; " << free_bytes / gib
                 << " GiB are free (" << arena.capacity() / gib << " GiB in the arena)";
  auto rng = make_rng("nccl.sizes");
  check_large_scan(arena, two, false, rng());
  check_large_scan(arena, three, true, rng());
  check_large_compaction<std::uint64_t>(arena, indexed_two, rng());
  check_large_compaction<std::uint64_t>(arena, indexed_three, rng());
  check_large_compaction<std::uint8_t>(arena, bytes_three, rng());
}

// The sort across ranks past 2^31 keys in all: pairs of a uint32 hash of the
// global index g (the key) and g itself (the value), so that the output is
// right exactly when every pair is an input pair (key == hash(value), value
// below the total), the pairs strictly rise in (key, value) order through all
// ranks' outputs in rank order (sorted, stable, no pair twice), and each rank
// holds its share's count: with the total, a permutation. Checked on the
// device; simulated ranks; STREAMSCAN_TEST_SWEEP=1 only (~70 GiB).
enum sort_counter { not_an_input_pair, not_rising, sort_counter_count };

// The value of global index g: g itself (the totals stay below 2^32).
struct low_word {
  __host__ __device__ std::uint32_t operator()(std::uint64_t g) const { return static_cast<std::uint32_t>(g); }
};

__global__ void check_sorted_share(const std::uint32_t* keys, const std::uint32_t* values, std::int64_t count,
                                   std::int64_t total, scan_input f, const std::uint32_t* before_key,
                                   const std::uint32_t* before_value, unsigned long long* counts) {
  unsigned long long wrong = 0, unordered = 0;
  for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = keys[j], v = values[j];
    if (v >= static_cast<std::uint64_t>(total) || k != f(v)) ++wrong;
    const bool has_prev = j > 0 || before_key != nullptr;
    if (has_prev) {
      const std::uint32_t pk = j > 0 ? keys[j - 1] : *before_key, pv = j > 0 ? values[j - 1] : *before_value;
      if (!(pk < k || (pk == k && pv < v))) ++unordered;
    }
  }
  if (wrong) atomicAdd(counts + not_an_input_pair, wrong);
  if (unordered) atomicAdd(counts + not_rising, unordered);
}

TEST_F(nccl_test, SortSizesPastTwoToThe31) {
  if (const char* sweep = std::getenv("STREAMSCAN_TEST_SWEEP"); !sweep || std::string(sweep) != "1")
    GTEST_SKIP() << "sorts past 2^31 keys need ~70 GiB of GPU memory: set STREAMSCAN_TEST_SWEEP=1 to run them";
  const shape s{{(std::int64_t{1} << 30) + 17, (std::int64_t{1} << 30) + 5}};
  const std::int64_t total = s.total();
  const int ranks = s.ranks();
  // Inputs and outputs (keys and values), and each rank's temp: its sorted
  // shard and the local sort's storage (about 4 arrays of its shard).
  const std::size_t needed = static_cast<std::size_t>(total) * 8 * 4 + temp_room;
  sw::arena arena;
  const std::string name = "nccl sort_pairs uint32/uint32 " + s.name();
  if (!sw::arena::fits(needed, arena.capacity())) {
    sw::case_log::skipped(name, needed, arena.capacity());
    GTEST_SKIP() << name << " needs more GPU memory than this GPU has";
  }
  const sw::case_log log(name);
  const scan_input f{make_rng("nccl.sort_sizes")()};
  std::vector<std::uint32_t*> keys(static_cast<std::size_t>(ranks)), values(keys.size()), keys_out(keys.size()),
      values_out(keys.size());
  std::vector<std::int64_t> share(keys.size());
  for (int r = 0; r < ranks; ++r) {
    share[r] = split_begin(total, ranks, r + 1) - split_begin(total, ranks, r);
    keys[r] = arena.take<std::uint32_t>(s.n[r]);
    values[r] = arena.take<std::uint32_t>(s.n[r]);
    keys_out[r] = arena.take<std::uint32_t>(share[r]);
    values_out[r] = arena.take<std::uint32_t>(share[r]);
    ASSERT_TRUE(keys[r] && values[r] && keys_out[r] && values_out[r]);
    fill_from_index<<<8192, 256>>>(keys[r], s.n[r], s.first(r), f);
    fill_from_index<<<8192, 256>>>(values[r], s.n[r], s.first(r), low_word{});
  }
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  std::vector<std::size_t> bytes;
  const auto temps = carve_temps(arena, ranks, bytes, [&](auto comm, int r, std::size_t& b) {
    std::int64_t count = 0;
    return ss::nccl::sort_pairs(nullptr, b, keys[r], keys_out[r], values[r], values_out[r], s.n[r], share[r], count,
                                comm);
  });
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<std::int64_t> counts(keys.size(), -1);
  simulated_group g(ranks);
  expect_all_ok(g.run([&](const rank_env& env, auto comm) {
    const int r = env.rank;
    std::size_t b = bytes[r];
    ss::throw_if_error(ss::nccl::sort_pairs(temps[r], b, keys[r], keys_out[r], values[r], values_out[r], s.n[r],
                                            share[r], counts[r], comm, env.stream));
  }));
  sw::counters seen(sort_counter_count);
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(counts[r], share[r]) << "rank " << r << "'s count";
    const std::uint32_t* before_key = r > 0 ? keys_out[r - 1] + share[r - 1] - 1 : nullptr;
    const std::uint32_t* before_value = r > 0 ? values_out[r - 1] + share[r - 1] - 1 : nullptr;
    check_sorted_share<<<sw::grid_for(share[r]), 256>>>(keys_out[r], values_out[r], share[r], total, f, before_key,
                                                        before_value, seen.get());
  }
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto got = seen.read();
  EXPECT_EQ(got[not_an_input_pair], 0u) << "output pairs that are no input pair";
  EXPECT_EQ(got[not_rising], 0u) << "output pairs not strictly rising in (key, global index) order";
  for (int r = 0; r < ranks; ++r) {
    EXPECT_TRUE(sw::guard_intact(keys_out[r], share[r])) << "bytes after rank " << r << "'s keys";
    EXPECT_TRUE(sw::guard_intact(values_out[r], share[r])) << "bytes after rank " << r << "'s values";
  }
  log.done(!::testing::Test::HasFailure());
}

}  // namespace
