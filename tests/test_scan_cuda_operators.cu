// Device-wide scans on the CUDA back end: min, max and a non-commutative scalar operator.
#include "cuda_backend.cuh"

namespace st = streamscan_test;
using operator_cases = ::testing::Types<
    st::scan_case<std::int32_t, std::int32_t, streamscan::maximum>,
    st::scan_case<std::int32_t, std::int32_t, streamscan::minimum>,
    st::scan_case<std::int32_t, std::int32_t, st::take_right>>;
STREAMSCAN_SCAN_TESTS(scan_cuda_operators, st::cuda_backend, operator_cases)
