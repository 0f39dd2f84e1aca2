// streamscan/cuda.cuh - everything of the CUDA back end (compile with nvcc).
#pragma once

#include "cuda/device/device_scan.cuh"
#include "cuda/device/device_segmented_reduce.cuh"
#include "cuda/device/device_segmented_scan.cuh"
#include "cuda/device/device_select.cuh"
#include "cuda/device/device_sort.cuh"
#include "cuda/device/device_spmv.cuh"
#include "cuda/device/device_coo_to_csr.cuh"
#include "cuda/device/device_linear_recurrence.cuh"
#include "cuda/device/device_tridiagonal.cuh"
#include "iterators.hpp"
