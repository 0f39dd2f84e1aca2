// streamscan/cuda/comm/communicator.cuh - what the multi-GPU algorithms need
// from a group of ranks, and the one point-to-point record they pass.
//
// A communicator C is a small copyable handle with:
//   int rank() const; int size() const;
//   status all_gather(const char* fn, const void* send, void* recv,
//                     std::size_t bytes, cudaStream_t stream);
//     recv[r * bytes, (r + 1) * bytes) <- rank r's send, on every rank; in
//     stream order on both sides.
//   status exchange(const char* fn, const transfer* sends, int send_count,
//                   const transfer* recvs, int recv_count, cudaStream_t stream);
//     point-to-point moves, all posted together (NCCL's group semantics:
//     the k-th send from p to q meets q's k-th receive from p).
// Every rank of the group must make the same sequence of collective calls.
// nccl_communicator.cuh wraps an ncclComm_t; simulated_ranks.cuh runs
// several ranks on one GPU (a stream and a thread each) for tests.
#pragma once

#include <cstddef>

namespace streamscan::cuda {

// One point-to-point move: `bytes` bytes to (send) or from (receive) `peer`.
struct transfer {
  int peer = 0;
  void* data = nullptr;
  std::size_t bytes = 0;
};

}  // namespace streamscan::cuda
