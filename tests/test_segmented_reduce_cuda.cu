// Segmented reduction and the iterators of streamscan/iterators.hpp on the GPU.
#include "cuda_backend.cuh"

STREAMSCAN_SEGMENTED_REDUCE_TESTS(segmented_reduce_cuda, streamscan_test::cuda_backend)
