// streamscan/config.hpp - version and the host/device annotation macro.
#pragma once

#define STREAMSCAN_VERSION_MAJOR 0
#define STREAMSCAN_VERSION_MINOR 1
#define STREAMSCAN_VERSION_PATCH 0
#define STREAMSCAN_VERSION_STRING "0.1.0"

// Functors and value types shared by the CPU and CUDA back ends are callable on
// both sides when compiled by nvcc and are plain C++17 otherwise.
#if defined(__CUDACC__)
#define STREAMSCAN_HOST_DEVICE __host__ __device__
#else
#define STREAMSCAN_HOST_DEVICE
#endif
