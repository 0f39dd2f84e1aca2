// streamscan/cuda/comm/nccl_communicator.cuh - the communicator interface
// (communicator.cuh) over a caller-created ncclComm_t. Collectives run on the
// caller's stream; bytes travel as ncclUint8.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "../../status.hpp"
#include "communicator.cuh"

namespace streamscan::cuda {

class nccl_communicator {
 public:
  nccl_communicator() = default;

  // Wraps `comm` (not owned), asking NCCL for its rank and size.
  static status wrap(const char* fn, ncclComm_t comm, nccl_communicator& out) {
    if (comm == nullptr) return streamscan::detail::invalid_argument(fn, "argument 'comm' is a null communicator");
    out.comm_ = comm;
    if (status s = check(fn, "ncclCommUserRank", ncclCommUserRank(comm, &out.rank_)); !s) return s;
    return check(fn, "ncclCommCount", ncclCommCount(comm, &out.size_));
  }

  int rank() const { return rank_; }
  int size() const { return size_; }
  ncclComm_t get() const { return comm_; }

  status all_gather(const char* fn, const void* send, void* recv, std::size_t bytes, cudaStream_t stream) const {
    return check(fn, "ncclAllGather", ncclAllGather(send, recv, bytes, ncclUint8, comm_, stream));
  }

  status exchange(const char* fn, const transfer* sends, int send_count, const transfer* recvs, int recv_count,
                  cudaStream_t stream) const {
    if (send_count + recv_count == 0) return status::ok();
    if (status s = check(fn, "ncclGroupStart", ncclGroupStart()); !s) return s;
    status s = status::ok();
    for (int i = 0; i < send_count && s; ++i)
      s = check(fn, "ncclSend", ncclSend(sends[i].data, sends[i].bytes, ncclUint8, sends[i].peer, comm_, stream));
    for (int i = 0; i < recv_count && s; ++i)
      s = check(fn, "ncclRecv", ncclRecv(recvs[i].data, recvs[i].bytes, ncclUint8, recvs[i].peer, comm_, stream));
    const status ended = check(fn, "ncclGroupEnd", ncclGroupEnd());
    return s ? ended : s;
  }

 private:
  static status check(const char* fn, const char* what, ncclResult_t r) {
    if (r == ncclSuccess) return status::ok();
    std::string message = std::string(fn) + ": " + what + " failed: " + ncclGetErrorString(r);
    if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0')
      message += std::string(" (") + last + ")";
    return status(errc::communication_error, message);
  }

  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace streamscan::cuda
