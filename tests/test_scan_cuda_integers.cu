// Device-wide scans on the CUDA back end: integer cases (one of three TUs,
// split so that CI compiles them in parallel).
#include "cuda_backend.cuh"

namespace st = streamscan_test;
using integer_cases = ::testing::Types<
    st::scan_case<std::int8_t, std::int64_t, streamscan::plus>,
    st::scan_case<std::uint8_t, std::uint64_t, streamscan::plus>,
    st::scan_case<std::int32_t, std::int32_t, streamscan::plus>,
    st::scan_case<std::uint32_t, std::uint32_t, streamscan::plus>,
    st::scan_case<std::int64_t, std::int64_t, streamscan::plus>>;
STREAMSCAN_SCAN_TESTS(scan_cuda_integers, st::cuda_backend, integer_cases)
