// python/src/typed.hpp - the per-type halves of the calls in calls.hpp. Each
// is defined in an *_impl.hpp and instantiated once per type in a generated
// translation unit of its own (python/CMakeLists.txt), so that a back end's
// many instantiations compile in parallel.
#pragma once

#include <cstddef>

#include "calls.hpp"

namespace streamscan::python {

template <class In>
status scan_typed(const scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

template <class T>
status segmented_scan_typed(const scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

template <class T>
status select_typed(const select_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

template <class K>
status sort_typed(const sort_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

status spmv_untyped(const spmv_args& a, void* temp, std::size_t& temp_bytes, const launch& l);
status tridiagonal_untyped(const tridiagonal_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

}  // namespace streamscan::python
