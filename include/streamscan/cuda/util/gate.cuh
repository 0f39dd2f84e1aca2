// streamscan/cuda/util/gate.cuh - a go/no-go word in device memory that a
// kernel reads before it writes anything. The compaction across ranks
// (dispatch_ranked.cuh) decides on the device, once the ranks' checks have
// arrived, whether its local compaction may write, so that the host need not
// wait for that exchange before launching it.
#pragma once

#include <cstdint>

namespace streamscan::cuda::detail {

// Whether a kernel given `gate` must return at once: a gate given and shut
// (0). Null: no gate, the kernel runs. Every thread of a block reads the same
// word, so a block returns as a whole (before any barrier).
__device__ inline bool gate_shut(const std::uint32_t* gate) { return gate != nullptr && *gate == 0u; }

}  // namespace streamscan::cuda::detail
