// Device-wide scans on the CPU back end.
#include "cpu_backend.hpp"

STREAMSCAN_SCAN_TESTS(scan_cpu, streamscan_test::cpu_backend, streamscan_test::all_scan_cases)
