// Does compute-sanitizer racecheck follow mbarrier arrive/wait? One thread
// writes shared memory and arrives (release); another warp waits on the
// barrier (acquire) and reads. Correctly synchronised by the PTX memory
// model; a hazard report here is the tool not modelling mbarriers.
//
//   scripts/gpu build racecheck_mbarrier
//   for v in 0 1 2 3 4; do compute-sanitizer --tool racecheck build-gpu/experiments/racecheck_mbarrier $v; done
#include <cstdint>
#include <cstdio>

#include <streamscan/cuda/util/bulk_copy.cuh>

namespace sd = streamscan::cuda::detail;

// variant 0: the writer arrives. 1: another lane of the writer's warp
// arrives after __syncwarp. 2: the writer arrives, a middle warp waits and
// arrives on a second barrier, the reader waits on that one. 3 (write after
// read): two warps read, then arrive on a barrier of count 2; the writer
// waits for it and writes. 4: as 0, but the phase completes when a bulk copy
// lands (arrive.expect_tx), as the pipelined kernel's producer does.
__global__ void handoff(int* out, int variant, const int* src) {
  __shared__ std::uint64_t bar, bar2;
  __shared__ int value;
  __shared__ alignas(16) int staged[4];
  if (threadIdx.x == 0) {
    sd::mbarrier_init(&bar, variant == 3 ? 2 : 1);
    sd::mbarrier_init(&bar2, 1);
    sd::mbarrier_init_fence();
    value = 0;
  }
  __syncthreads();
  if (variant == 3) {
    if (threadIdx.x == 32 || threadIdx.x == 64) {
      out[threadIdx.x / 32] = value;
      sd::mbarrier_arrive(&bar);
    } else if (threadIdx.x == 0) {
      sd::mbarrier_wait(&bar, 0);
      value = 42;
    }
    return;
  }
  if (variant == 4) {
    if (threadIdx.x == 0) {
      value = 42;
      sd::mbarrier_arrive_expect_tx(&bar, 16);
      sd::bulk_copy_to_shared(staged, src, 16, &bar);
    } else if (threadIdx.x == 64) {
      sd::mbarrier_wait(&bar, 0);
      *out = value + staged[0];
    }
    return;
  }
  if (threadIdx.x < 32) {
    if (threadIdx.x == (variant == 1 ? 5 : 0)) value = 42;
    __syncwarp();
    if (threadIdx.x == 0) sd::mbarrier_arrive(&bar);
  } else if (threadIdx.x == 32 && variant == 2) {
    sd::mbarrier_wait(&bar, 0);
    sd::mbarrier_arrive(&bar2);
  } else if (threadIdx.x == 64) {
    sd::mbarrier_wait(variant == 2 ? &bar2 : &bar, 0);
    *out = value;
  }
}

int main(int argc, char** argv) {
  const int variant = argc > 1 ? argv[1][0] - '0' : 0;
  int *out, *src;
  cudaMalloc(&out, 4 * sizeof(int));
  cudaMalloc(&src, 4 * sizeof(int));
  cudaMemset(src, 0, 4 * sizeof(int));
  handoff<<<1, 96>>>(out, variant, src);
  int h = 0;
  cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("variant %d read %d (%s)\n", variant, h, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
