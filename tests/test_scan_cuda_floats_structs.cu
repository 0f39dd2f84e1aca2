// Device-wide scans on the CUDA back end: floating point and 16-byte structs
// (one commutative, one non-commutative operator).
#include "cuda_backend.cuh"

namespace st = streamscan_test;
using float_struct_cases = ::testing::Types<
    st::scan_case<float, float, streamscan::plus>,
    st::scan_case<double, double, streamscan::plus>,
    st::scan_case<st::vec4i, st::vec4i, st::vec4i_plus>,
    st::scan_case<st::mat2u, st::mat2u, st::mat2u_product>>;
STREAMSCAN_SCAN_TESTS(scan_cuda_floats_structs, st::cuda_backend, float_struct_cases)
