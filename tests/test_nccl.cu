// The multi-GPU scan and compaction (streamscan/nccl.cuh) against the naive
// host oracle applied to all shards joined in rank order. Every test runs on
// groups of simulated ranks (one GPU, a thread and a stream per rank) and on
// an NCCL communicator over every GPU present (one rank on a one-GPU machine).
#include <gtest/gtest.h>

#include <streamscan/nccl.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/cuda_helpers.cuh"
#include "common/oracle.hpp"
#include "common/random.hpp"
#include "common/types.hpp"

namespace {

using namespace streamscan_test;
namespace ss = streamscan;

// One rank's view while a group runs: its rank, device and stream.
struct rank_env {
  int rank = 0;
  int device = 0;
  cudaStream_t stream = nullptr;
};

// A group of ranks that runs `body(env, comm)` on every rank at once, a
// thread each; each rank's exception (if any) is kept for the test to check.
class group {
 public:
  virtual ~group() = default;
  virtual int size() const = 0;
  virtual std::string name() const = 0;
  // body is called as body(env, comm) with comm a simulated_rank or ncclComm_t.
  template <class Body>
  std::vector<std::string> run(Body body) {
    std::vector<std::string> errors(static_cast<std::size_t>(size()));
    std::vector<std::thread> threads;
    for (int r = 0; r < size(); ++r) {
      threads.emplace_back([&, r] {
        try {
          rank_env env;
          env.rank = r;
          env.device = device_of(r);
          STREAMSCAN_TEST_CUDA(cudaSetDevice(env.device));
          STREAMSCAN_TEST_CUDA(cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking));
          call(r, [&](auto comm) { body(env, comm); });
          STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
          STREAMSCAN_TEST_CUDA(cudaStreamDestroy(env.stream));
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    return errors;
  }

 protected:
  virtual int device_of(int rank) const = 0;
  // Calls f(comm) with this rank's communicator.
  virtual void call(int rank, const std::function<void(ss::cuda::simulated_rank)>& sim,
                    const std::function<void(ncclComm_t)>& nccl) = 0;
  template <class F>
  void call(int rank, F f) {
    call(rank, [&](ss::cuda::simulated_rank c) { f(c); }, [&](ncclComm_t c) { f(c); });
  }
};

class simulated_group : public group {
 public:
  explicit simulated_group(int size, std::chrono::milliseconds timeout = std::chrono::seconds(60))
      : ranks_(size, timeout) {}
  int size() const override { return ranks_.size(); }
  std::string name() const override { return std::to_string(size()) + " simulated ranks"; }

 protected:
  int device_of(int) const override { return 0; }
  void call(int rank, const std::function<void(ss::cuda::simulated_rank)>& sim,
            const std::function<void(ncclComm_t)>&) override {
    sim(ranks_.member(rank));
  }

 private:
  ss::cuda::simulated_ranks ranks_;
};

// One NCCL rank per GPU of this machine, made once for the whole run.
class nccl_group : public group {
 public:
  static nccl_group& get() {
    static nccl_group g;
    return g;
  }
  int size() const override { return static_cast<int>(comms_.size()); }
  std::string name() const override { return std::to_string(size()) + " NCCL rank(s), one a GPU"; }

 protected:
  int device_of(int rank) const override { return rank; }
  void call(int rank, const std::function<void(ss::cuda::simulated_rank)>&,
            const std::function<void(ncclComm_t)>& nccl) override {
    nccl(comms_[rank]);
  }

 private:
  nccl_group() {
    int devices = 0;
    STREAMSCAN_TEST_CUDA(cudaGetDeviceCount(&devices));
    comms_.resize(static_cast<std::size_t>(devices));
    if (ncclCommInitAll(comms_.data(), devices, nullptr) != ncclSuccess)
      throw std::runtime_error("ncclCommInitAll failed");
  }
  std::vector<ncclComm_t> comms_;
};

// Every group a test runs on: simulated groups of 1, 2, 3 and 5 ranks, and NCCL.
std::vector<std::unique_ptr<group>> simulated_groups() {
  std::vector<std::unique_ptr<group>> g;
  for (int p : {1, 2, 3, 5}) g.push_back(std::make_unique<simulated_group>(p));
  return g;
}

// STREAMSCAN_TEST_NCCL=0 leaves NCCL out (for runs under compute-sanitizer,
// which would check NCCL's own kernels too).
template <class F>
void for_each_group(F f) {
  for (auto& g : simulated_groups()) {
    SCOPED_TRACE(g->name());
    f(*g);
  }
  if (const char* use = std::getenv("STREAMSCAN_TEST_NCCL"); use && std::string(use) == "0") return;
  SCOPED_TRACE(nccl_group::get().name());
  f(nccl_group::get());
}

class nccl_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_present()) GTEST_SKIP() << "no GPU";
  }
};

// Shard sizes for `ranks`: edge sizes and empty shards among random ones.
// STREAMSCAN_TEST_MAX_N caps the random ones (for runs under compute-sanitizer).
std::vector<std::int64_t> shard_sizes(int ranks, std::mt19937_64& rng, std::int64_t largest) {
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N")) largest = std::min<std::int64_t>(largest, std::atoll(cap));
  const std::int64_t picks[] = {0, 1, 2, 4095, 4096, 4097, 65537};
  std::vector<std::int64_t> n(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto k = rng() % 10;
    n[r] = k < 7 ? picks[k] : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(largest + 1));
  }
  return n;
}

void expect_all_ok(const std::vector<std::string>& errors) {
  for (std::size_t r = 0; r < errors.size(); ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
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
    p = ss::nccl::select_if(in.get(), out.get(), n, n, below{1}, comm, env.stream);
  }
  device_buffer<std::int32_t> in, out, mine;
  ss::nccl::rank_placement p;
};

// Compaction across ranks: local order, global offsets and total; then
// rebalancing gives every rank its equal slice of the global order.
TEST_F(nccl_test, CompactionPlacementAndRebalance) {
  auto rng = make_rng("nccl.compaction");
  for_each_group([&](group& g) {
    const int ranks = g.size();
    for (int round = 0; round < 2; ++round) {
      const auto sizes = shard_sizes(ranks, rng, 1'500'000);
      const below pred{round == 0 ? -50 : 40};
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
            round == 0 ? ss::nccl::select_if(in.get(), out.get(), n, n, pred, comm, env.stream)
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
        const std::int64_t begin = total / ranks * r + std::min<std::int64_t>(r, total % ranks);
        const std::int64_t end = total / ranks * (r + 1) + std::min<std::int64_t>(r + 1, total % ranks);
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
        std::size_t bytes = 0;
        ss::status s = invoke(nullptr, bytes);
        if (s) {
          device_buffer<unsigned char> temp(bytes);
          s = invoke(temp.get(), bytes);
          STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
        }
        got[env.rank] = s;
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

}  // namespace
