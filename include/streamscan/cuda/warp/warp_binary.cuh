// streamscan/cuda/warp/warp_binary.cuh - binary (predicate) prefix operations
// of a warp by ballot and population count ([BinaryPrefix]): no shuffles, no
// shared memory, a few instructions each.
//
//   warp_binary w(member_mask);             // the lanes taking part (default: all 32)
//   int all   = w.count(pred);              // true predicates in the warp
//   int below = w.prefix_count(pred, binary_scan::exclusive_forward);
//   int seg   = w.segmented_prefix_count(pred, head, binary_scan::inclusive_forward);
//
// Every lane named in member_mask must make the same call; partial warps pass
// the mask of their lanes (lanes outside it count as false). Prefix counts
// take one of four lane masks: inclusive/exclusive, forward (lanes below) or
// reverse (lanes above). The segmented form restarts at lanes whose `head` is
// true (forward: a head starts a segment; reverse: a head ends one at its
// left, [ScanPrimitives]' convention), finding the segment's start with clz/ffs.
#pragma once

namespace streamscan::cuda {

enum class binary_scan { inclusive_forward, exclusive_forward, inclusive_reverse, exclusive_reverse };

class warp_binary {
 public:
  __device__ explicit warp_binary(unsigned member_mask = 0xffffffffu) : mask_(member_mask) {}

  __device__ static unsigned lane() {
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
  }
  // Lanes whose bits a prefix of this lane includes.
  __device__ static unsigned lanes_of(binary_scan kind) {
    const unsigned l = lane();
    const unsigned below = (1u << l) - 1u;  // lanes < l
    switch (kind) {
      case binary_scan::inclusive_forward: return below | (1u << l);
      case binary_scan::exclusive_forward: return below;
      case binary_scan::inclusive_reverse: return ~below;
      default: return ~below & ~(1u << l);
    }
  }

  __device__ int count(bool pred) const { return __popc(__ballot_sync(mask_, pred)); }

  __device__ int prefix_count(bool pred, binary_scan kind) const {
    return __popc(__ballot_sync(mask_, pred) & lanes_of(kind));
  }

  // Counts only within the lane's segment. Forward: a segment runs from a
  // head lane up to the lane before the next head (lane 0 always starts
  // one). Reverse: the same segments, counted from their right end.
  __device__ int segmented_prefix_count(bool pred, bool head, binary_scan kind) const {
    const unsigned preds = __ballot_sync(mask_, pred);
    const unsigned heads = __ballot_sync(mask_, head) | 1u;
    const unsigned l = lane();
    const unsigned upto_me = (l == 31) ? 0xffffffffu : (2u << l) - 1u;  // lanes <= l
    unsigned segment;
    if (kind == binary_scan::inclusive_forward || kind == binary_scan::exclusive_forward) {
      const unsigned start = 31u - __clz(heads & upto_me);  // nearest head at or below l
      segment = upto_me & ~((1u << start) - 1u);                // lanes [start, l]
    } else {
      // The segment ends just before the next head above l (or at lane 31).
      const unsigned above = heads & ~upto_me;
      const unsigned end = above ? static_cast<unsigned>(__ffs(above)) - 1u : 32u;  // first lane of the next segment
      const unsigned before_end = end == 32u ? 0xffffffffu : (1u << end) - 1u;
      segment = before_end & ~((1u << l) - 1u);                   // lanes [l, end)
    }
    if (kind == binary_scan::exclusive_forward || kind == binary_scan::exclusive_reverse) segment &= ~(1u << l);
    return __popc(preds & segment & mask_);
  }

 private:
  unsigned mask_;
};

}  // namespace streamscan::cuda
