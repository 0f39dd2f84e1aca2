// Compaction, partition and split on the GPU (split_and_segment: CPU only so far).
#include "cuda_backend.cuh"

STREAMSCAN_SELECT_TESTS(select_cuda, streamscan_test::cuda_backend)
