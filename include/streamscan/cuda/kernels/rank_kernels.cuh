// streamscan/cuda/kernels/rank_kernels.cuh - the small kernels of the
// multi-GPU algorithms (dispatch_ranked.cuh): each rank fills one fixed-size
// record (what it was asked, whether its own checks passed, and its value),
// the ranks all-gather the records, and each rank folds what the lower ranks
// hold into its carry, strictly in rank order (a scan), or opens the gate of
// its local compaction where every rank passed (a compaction).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../util/maybe.cuh"

namespace streamscan::cuda::detail {

// Records are fixed-size, whatever the element type, so that ranks that
// disagree on the type still exchange the same number of bytes (and learn of
// the disagreement instead of hanging).
inline constexpr std::size_t rank_record_bytes = 1024;
inline constexpr std::size_t rank_head_bytes = 256;
inline constexpr std::size_t rank_value_bytes = rank_record_bytes - rank_head_bytes;
inline constexpr std::uint32_t rank_record_magic = 0x5353524bu;  // "SSRK"

struct rank_head {
  std::uint32_t magic = rank_record_magic;
  std::uint32_t code = 0;          // this rank's own checks: an errc (0: passed)
  std::uint64_t signature = 0;     // the call: its kind, element, accumulator and operator types
  std::int64_t n = 0;              // this rank's element count
  std::int64_t capacity = 0;       // compaction: this rank's output capacity
  std::uint32_t has_value = 0;     // the record's value holds this rank's reduction / count
  std::uint32_t reserved = 0;
  char message[rank_head_bytes - 40] = {};  // this rank's error, when code != 0
};
static_assert(sizeof(rank_head) == rank_head_bytes, "rank_head is one fixed-size block");

template <class V>
__host__ __device__ inline V* rank_value(unsigned char* record) {
  return reinterpret_cast<V*>(record + rank_head_bytes);
}
template <class V>
__host__ __device__ inline const V* rank_value(const unsigned char* record) {
  return reinterpret_cast<const V*>(record + rank_head_bytes);
}

// Writes the head of this rank's record (the value is written by the work
// that produces it). A template only so that the header can be included by
// several translation units.
template <class Head = rank_head>
__global__ void write_rank_head_kernel(unsigned char* record, Head head) {
  const auto* from = reinterpret_cast<const std::uint32_t*>(&head);
  auto* to = reinterpret_cast<std::uint32_t*>(record);
  for (unsigned i = threadIdx.x; i < rank_head_bytes / 4; i += blockDim.x) to[i] = from[i];
}

// Whether every rank's record is valid, passed its checks and made the call
// `signature` names (the host's check_ranks says which did not, and why).
__device__ inline bool ranks_agree(const unsigned char* records, int ranks, std::uint64_t signature) {
  for (int r = 0; r < ranks; ++r) {
    const auto* head = reinterpret_cast<const rank_head*>(records + static_cast<std::size_t>(r) * rank_record_bytes);
    if (head->magic != rank_record_magic || head->code != 0 || head->signature != signature) return false;
  }
  return true;
}

// One thread: *carry <- init (+) value of rank 0 (+) ... (+) value of rank
// me-1, skipping ranks with no value, in rank order (so a floating-point
// carry is the same on every run). Left absent where the records disagree or
// report an error (the host reports those instead).
template <class A, class Op>
__global__ void fold_rank_carry_kernel(const unsigned char* records, int ranks, int me, std::uint64_t signature,
                                       maybe<A> init, maybe<A>* carry, Op op) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  if (!ranks_agree(records, ranks, signature)) {
    *carry = maybe<A>{init.value, false};
    return;
  }
  maybe<A> c = init;
  for (int r = 0; r < me; ++r) {
    const unsigned char* record = records + static_cast<std::size_t>(r) * rank_record_bytes;
    if (!reinterpret_cast<const rank_head*>(record)->has_value) continue;
    const A v = *rank_value<A>(record);
    c = {c.present ? op(c.value, v) : v, true};
  }
  *carry = c;
}

// One thread: *gate <- 1 where every rank's record passed (ranks_agree), else
// 0, so that the compaction that follows in the stream writes nothing unless
// every rank may (util/gate.cuh). A template only so that the header can be
// included by several translation units.
template <class Head = rank_head>
__global__ void open_gate_kernel(const unsigned char* records, int ranks, std::uint64_t signature,
                                 std::uint32_t* gate) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  *gate = ranks_agree(records, ranks, signature) ? 1u : 0u;
}

}  // namespace streamscan::cuda::detail
