// The linear recurrence and its gradient on the GPU, half values (one type a
// translation unit: test_cuda_linear_recurrence compiles them in parallel).
#include "linear_recurrence_cuda_backend.cuh"

STREAMSCAN_RECURRENCE_TESTS(linear_recurrence_cuda_half, streamscan_test::cuda_recurrence_backend, streamscan::float16)
