// streamscan/cpu.hpp - everything of the CPU back end (plain C++17).
#pragma once

#include "cpu/scan.hpp"
#include "cpu/segmented_reduce.hpp"
#include "cpu/segmented_scan.hpp"
#include "cpu/select.hpp"
#include "cpu/coo_to_csr.hpp"
#include "cpu/linear_recurrence.hpp"
#include "cpu/sort.hpp"
#include "cpu/spmv.hpp"
#include "cpu/tridiagonal.hpp"
#include "iterators.hpp"
