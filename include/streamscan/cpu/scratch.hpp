// streamscan/cpu/scratch.hpp - how the CPU back end's convenience forms run
// their two-phase form: size query, temp on the heap, errors thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "../status.hpp"

namespace streamscan::cpu::detail {

// two_phase(temp, temp_bytes) -> status, called twice.
template <class TwoPhase>
void with_heap_scratch(TwoPhase two_phase) {
  std::size_t bytes = 0;
  throw_if_error(two_phase(nullptr, bytes));
  std::unique_ptr<unsigned char[]> temp(new unsigned char[bytes > 0 ? bytes : 1]);
  throw_if_error(two_phase(temp.get(), bytes));
}

// The same for calls that count: two_phase(temp, temp_bytes, count*) -> status;
// returns the count.
template <class TwoPhase>
std::int64_t with_heap_count(TwoPhase two_phase) {
  std::int64_t count = 0;
  with_heap_scratch([&](void* temp, std::size_t& bytes) { return two_phase(temp, bytes, &count); });
  return count;
}

}  // namespace streamscan::cpu::detail
