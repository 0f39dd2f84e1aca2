// Segmented and backward scans, enumerate and distribute on the GPU.
#include "cuda_backend.cuh"

STREAMSCAN_SEGMENTED_TESTS(segmented_cuda, streamscan_test::cuda_backend)
