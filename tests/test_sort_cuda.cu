// Radix sort and quicksort on the GPU: the shared bodies (sort_test_body.hpp).
// Sizes past 2^31 are in test_large_cuda.cu.
#include "cuda_backend.cuh"

STREAMSCAN_SORT_TESTS(sort_cuda, streamscan_test::cuda_backend)
