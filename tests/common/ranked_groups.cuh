// tests/common/ranked_groups.cuh - the groups of ranks the multi-GPU tests
// run on: simulated ranks on one GPU (1, 2, 3 and 5 of them) and one NCCL rank
// per GPU present, each rank a thread with its own stream; and the shard
// sizes and split rule those tests share.
#pragma once

#include <gtest/gtest.h>

#include <streamscan/nccl.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda_helpers.cuh"

namespace streamscan_test {

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
inline std::vector<std::unique_ptr<group>> simulated_groups() {
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
inline std::vector<std::int64_t> shard_sizes(int ranks, std::mt19937_64& rng, std::int64_t largest) {
  if (const char* cap = std::getenv("STREAMSCAN_TEST_MAX_N")) largest = std::min<std::int64_t>(largest, std::atoll(cap));
  const std::int64_t picks[] = {0, 1, 2, 4095, 4096, 4097, 65537};
  std::vector<std::int64_t> n(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto k = rng() % 10;
    n[r] = k < 7 ? picks[k] : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(largest + 1));
  }
  return n;
}

// A two-phase call on one rank, as a caller makes it: the size query, then
// the call with temp storage of that size, then waits for the rank's stream.
template <class Invoke>
ss::status two_phase_on_rank(const rank_env& env, Invoke invoke) {
  std::size_t bytes = 0;
  ss::status s = invoke(nullptr, bytes);
  if (!s) return s;
  device_buffer<unsigned char> temp(bytes);
  s = invoke(temp.get(), bytes);
  STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
  return s;
}

inline void expect_all_ok(const std::vector<std::string>& errors) {
  for (std::size_t r = 0; r < errors.size(); ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

// Rank r's first global position after rebalancing `total` elements over
// `ranks`: numpy.array_split's (and torch.tensor_split's) split, the first
// total % ranks ranks holding one element more. The tests' own statement of
// the rule, pinned to numpy's bounds by SplitIsNumpyArraySplit.
inline std::int64_t split_begin(std::int64_t total, int ranks, int r) {
  return total / ranks * r + std::min<std::int64_t>(r, total % ranks);
}

}  // namespace streamscan_test
