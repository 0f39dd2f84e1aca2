// Segmented and backward scans, enumerate and distribute on the CPU back end.
#include "cpu_backend.hpp"

STREAMSCAN_SEGMENTED_TESTS(segmented_cpu, streamscan_test::cpu_backend)
