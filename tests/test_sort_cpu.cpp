// Radix sort and quicksort on the CPU back end.
#include "cpu_backend.hpp"

STREAMSCAN_SORT_TESTS(sort_cpu, streamscan_test::cpu_backend)
