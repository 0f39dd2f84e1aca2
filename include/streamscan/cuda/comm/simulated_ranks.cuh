// streamscan/cuda/comm/simulated_ranks.cuh - several ranks on one GPU, each
// driven by its own host thread and stream, exchanging through device memory.
// It implements the communicator interface (communicator.cuh) with the
// ordering NCCL gives, so the multi-GPU algorithms' rank logic can be tested
// (and tried) without a second GPU:
//
//   streamscan::cuda::simulated_ranks group(4);        // on the current device
//   // in thread r, on the same device, with its own stream:
//   streamscan::nccl::inclusive_scan(in_r, out_r, n_r, op, group.member(r), stream_r);
//
// A collective waits (on the host) until every rank has called it; if some
// rank never comes it fails after `timeout` with a communication_error
// instead of hanging, and the group is then unusable.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../status.hpp"
#include "../util/runtime.cuh"
#include "communicator.cuh"

namespace streamscan::cuda {

class simulated_rank;

class simulated_ranks {
 public:
  explicit simulated_ranks(int size, std::chrono::milliseconds timeout = std::chrono::seconds(60))
      : size_(size), timeout_(timeout), posted_(size > 0 ? size : 0), ready_(posted_.size()), done_(posted_.size()) {
    if (size < 1) throw error(streamscan::detail::invalid_argument("streamscan::cuda::simulated_ranks",
                                                                   "argument 'size' is " + std::to_string(size) +
                                                                       "; a group needs at least one rank"));
    for (int r = 0; r < size; ++r) {
      for (cudaEvent_t* e : {&ready_[r], &done_[r]}) {
        if (const cudaError_t c = cudaEventCreateWithFlags(e, cudaEventDisableTiming); c != cudaSuccess) {
          cudaGetLastError();
          destroy();
          throw error(detail::cuda_status("streamscan::cuda::simulated_ranks", "cudaEventCreateWithFlags", c));
        }
      }
    }
  }
  simulated_ranks(const simulated_ranks&) = delete;
  simulated_ranks& operator=(const simulated_ranks&) = delete;
  ~simulated_ranks() { destroy(); }

  int size() const { return size_; }
  inline simulated_rank member(int rank);

 private:
  friend class simulated_rank;

  struct posting {
    std::vector<transfer> sends;  // all_gather: one send of the whole buffer (peer -1)
  };

  // Waits until every rank has arrived (a generation barrier with a timeout).
  status arrive_and_wait(const char* fn, int rank) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (broken_) return broken(fn, rank);
    const std::uint64_t generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return status::ok();
    }
    if (!cv_.wait_for(lock, timeout_, [&] { return generation_ != generation || broken_; })) broken_ = true;
    if (generation_ != generation) return status::ok();
    cv_.notify_all();
    return broken(fn, rank);
  }

  status broken(const char* fn, int rank) const {
    return status(errc::communication_error, std::string(fn) + ": simulated rank " + std::to_string(rank) + " of " +
                                                 std::to_string(size_) +
                                                 ": not every rank reached the collective in time (the group is "
                                                 "unusable now)");
  }

  void destroy() {
    for (cudaEvent_t e : ready_)
      if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : done_)
      if (e) cudaEventDestroy(e);
    ready_.clear();
    done_.clear();
  }

  int size_;
  std::chrono::milliseconds timeout_;
  std::vector<posting> posted_;
  std::vector<cudaEvent_t> ready_, done_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  bool broken_ = false;
};

// One rank of a simulated group: a copyable handle (the group must outlive it).
class simulated_rank {
 public:
  simulated_rank() = default;
  simulated_rank(simulated_ranks* group, int rank) : group_(group), rank_(rank) {}

  int rank() const { return rank_; }
  int size() const { return group_->size_; }

  status all_gather(const char* fn, const void* send, void* recv, std::size_t bytes, cudaStream_t stream) const {
    group_->posted_[rank_].sends.assign(1, transfer{-1, const_cast<void*>(send), bytes});
    return run(fn, stream, [&](int peer, const std::vector<transfer>& theirs, std::vector<copy>& copies) {
      if (theirs.size() != 1 || theirs[0].bytes != bytes) return false;
      copies.push_back({static_cast<unsigned char*>(recv) + static_cast<std::size_t>(peer) * bytes, theirs[0].data,
                        bytes});
      return true;
    });
  }

  status exchange(const char* fn, const transfer* sends, int send_count, const transfer* recvs, int recv_count,
                  cudaStream_t stream) const {
    for (int i = 0; i < send_count + recv_count; ++i) {
      const transfer& t = i < send_count ? sends[i] : recvs[i - send_count];
      if (t.peer < 0 || t.peer >= group_->size_)
        return streamscan::detail::invalid_argument(fn, "a transfer names peer " + std::to_string(t.peer) +
                                                            " in a group of " + std::to_string(group_->size_));
    }
    group_->posted_[rank_].sends.assign(sends, sends + send_count);
    return run(fn, stream, [&](int peer, const std::vector<transfer>& theirs, std::vector<copy>& copies) {
      // The k-th receive from `peer` meets peer's k-th send to this rank.
      std::vector<const transfer*> to_us;
      for (const transfer& t : theirs)
        if (t.peer == rank_) to_us.push_back(&t);
      std::size_t k = 0;
      for (int i = 0; i < recv_count; ++i) {
        if (recvs[i].peer != peer) continue;
        if (k == to_us.size() || to_us[k]->bytes != recvs[i].bytes) return false;
        copies.push_back({recvs[i].data, to_us[k++]->data, recvs[i].bytes});
      }
      return k == to_us.size();
    });
  }

 private:
  struct copy {
    void* to;
    const void* from;
    std::size_t bytes;
  };

  // The protocol of every collective: post, barrier, copy what the others
  // posted once their streams have reached the post, barrier, and make our
  // stream wait for everyone's copies before our buffers may change again.
  // `match(peer, peer's postings, copies)` appends the copies to make from
  // `peer`, or returns false where the ranks' calls disagree.
  template <class Match>
  status run(const char* fn, cudaStream_t stream, Match match) const {
    simulated_ranks& g = *group_;
    if (status s = detail::cuda_call(fn, "cudaEventRecord", cudaEventRecord(g.ready_[rank_], stream)); !s) return s;
    if (status s = g.arrive_and_wait(fn, rank_); !s) return s;
    status result = status::ok();
    for (int peer = 0; peer < g.size_ && result; ++peer) {
      std::vector<copy> copies;
      if (!match(peer, g.posted_[peer].sends, copies)) {
        result = status(errc::communication_error, std::string(fn) + ": simulated rank " + std::to_string(rank_) +
                                                        ": the sends of rank " + std::to_string(peer) +
                                                        " do not match this rank's receives");
        break;
      }
      if (copies.empty()) continue;
      result = detail::cuda_call(fn, "cudaStreamWaitEvent", cudaStreamWaitEvent(stream, g.ready_[peer], 0));
      for (const copy& c : copies)
        if (result && c.bytes > 0)
          result = detail::cuda_call(fn, "cudaMemcpyAsync",
                             cudaMemcpyAsync(c.to, c.from, c.bytes, cudaMemcpyDeviceToDevice, stream));
    }
    if (status s = detail::cuda_call(fn, "cudaEventRecord", cudaEventRecord(g.done_[rank_], stream)); !s && result) result = s;
    if (status s = g.arrive_and_wait(fn, rank_); !s) return s;
    for (int peer = 0; peer < g.size_; ++peer) {
      if (status s = detail::cuda_call(fn, "cudaStreamWaitEvent", cudaStreamWaitEvent(stream, g.done_[peer], 0));
          !s && result)
        result = s;
    }
    return result;
  }

  simulated_ranks* group_ = nullptr;
  int rank_ = 0;
};

inline simulated_rank simulated_ranks::member(int rank) {
  if (rank < 0 || rank >= size_)
    throw error(streamscan::detail::invalid_argument(
        "streamscan::cuda::simulated_ranks::member",
        "argument 'rank' is " + std::to_string(rank) + " in a group of " + std::to_string(size_)));
  return simulated_rank(this, rank);
}

}  // namespace streamscan::cuda
