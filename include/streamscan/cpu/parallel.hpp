// streamscan/cpu/parallel.hpp - the CPU back end's only parallel construct.
//
// parallel_for over chunk indices [0, count). With oneTBB (define
// STREAMSCAN_HAS_TBB and link TBB::tbb; the CMake target streamscan::cpu does
// both) the work is spread by TBB's scheduler; without it, by std::thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(STREAMSCAN_HAS_TBB)
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#endif

namespace streamscan::cpu::detail {

template <class Body>
void parallel_for(std::int64_t count, Body body) {
  if (count <= 0) return;
  if (count == 1) {
    body(std::int64_t{0});
    return;
  }
#if defined(STREAMSCAN_HAS_TBB)
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, count, 1),
                    [&](const tbb::blocked_range<std::int64_t>& r) {
                      for (std::int64_t i = r.begin(); i != r.end(); ++i) body(i);
                    });
#else
  const std::int64_t workers =
      std::min<std::int64_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto run = [&](std::int64_t w) {
    try {
      for (std::int64_t i = w; i < count; i += workers) body(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::int64_t w = 1; w < workers; ++w) threads.emplace_back(run, w);
  run(0);
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
#endif
}

}  // namespace streamscan::cpu::detail
