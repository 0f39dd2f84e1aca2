// One program, compiled against both back ends: every convenience form of the
// CUDA back end exists in the CPU back end with the same name and argument
// order (the stream and the options left at their defaults), so code can fall
// back to the host by changing one namespace.
//
// The including file defines STREAMSCAN_SAME_PROGRAM_API (streamscan::cpu or
// streamscan::cuda) and a Memory with alloc<T>(n) (memory both the back end
// and the host can read: host memory, or CUDA managed memory), release(p) and
// wait() (the back end's work done), then calls run_same_program<Memory>().
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <streamscan/config.hpp>
#include <streamscan/operators.hpp>
#include <streamscan/segmented.hpp>
#include <streamscan/spmv.hpp>
#include <streamscan/tridiagonal.hpp>

namespace streamscan_test::same_program {

struct is_odd {
  STREAMSCAN_HOST_DEVICE bool operator()(std::int32_t x) const { return (x & 1) != 0; }
};

// Arrays that free themselves.
template <class Memory>
struct arena {
  std::vector<void*> owned;
  template <class T>
  T* make(std::int64_t n) {
    T* p = Memory::template alloc<T>(static_cast<std::size_t>(n));
    owned.push_back(p);
    return p;
  }
  ~arena() {
    for (void* p : owned) Memory::release(p);
  }
};

template <class Memory>
void run_same_program() {
  namespace api = STREAMSCAN_SAME_PROGRAM_API;
  namespace ss = streamscan;
  constexpr std::int64_t n = 10000;  // segments of 10, so every count below is exact
  arena<Memory> mem;
  auto* ones = mem.template make<std::int32_t>(n);
  auto* iota = mem.template make<std::int32_t>(n);
  auto* odd_flags = mem.template make<std::int32_t>(n);
  auto* out = mem.template make<std::int32_t>(n);
  auto* heads = mem.template make<unsigned char>(n);
  auto* every_third = mem.template make<unsigned char>(n);
  auto* odd_bytes = mem.template make<unsigned char>(n);
  auto* heads_out = mem.template make<unsigned char>(n);
  for (std::int64_t i = 0; i < n; ++i) {
    ones[i] = 1;
    iota[i] = static_cast<std::int32_t>(i);
    odd_flags[i] = static_cast<std::int32_t>(i % 2);
    heads[i] = i % 10 == 0;
    every_third[i] = i % 3 == 0;
    odd_bytes[i] = static_cast<unsigned char>(i % 2);
  }
  auto expect_out = [&](const char* call, auto want, std::int64_t count = -1) {  // out[0, count), all by default
    if (count < 0) count = n;
    Memory::wait();
    for (std::int64_t i = 0; i < count; ++i)
      if (out[i] != static_cast<std::int32_t>(want(i))) {
        ADD_FAILURE() << call << ": out[" << i << "] = " << out[i] << ", expected " << want(i);
        return;
      }
  };

  api::inclusive_scan(ones, out, n);
  expect_out("inclusive_scan", [](std::int64_t i) { return i + 1; });
  api::inclusive_scan_init(ones, out, n, ss::plus{}, 2);
  expect_out("inclusive_scan_init", [](std::int64_t i) { return i + 3; });
  api::exclusive_scan(ones, out, n, 5);
  expect_out("exclusive_scan", [](std::int64_t i) { return i + 5; });
  api::segmented_inclusive_scan(ones, out, n, ss::head_flags(heads));
  expect_out("segmented_inclusive_scan", [](std::int64_t i) { return i % 10 + 1; });
  api::segmented_exclusive_scan(ones, out, n, ss::head_flags(heads), 0);
  expect_out("segmented_exclusive_scan", [](std::int64_t i) { return i % 10; });
  api::enumerate(odd_flags, out, n);
  expect_out("enumerate", [](std::int64_t i) { return i / 2; });
  api::distribute(iota, out, n, ss::head_flags(heads));
  expect_out("distribute", [](std::int64_t i) { return i - i % 10; });
  api::segmented_reduce(ones, out, n, ss::head_flags(heads), 0);
  expect_out("segmented_reduce", [](std::int64_t) { return 10; }, n / 10);

  EXPECT_EQ(api::select_if(iota, out, n, n, is_odd{}), n / 2);
  expect_out("select_if", [](std::int64_t i) { return 2 * i + 1; }, n / 2);
  EXPECT_EQ(api::select_flagged(iota, every_third, out, n, n), (n + 2) / 3);
  expect_out("select_flagged", [](std::int64_t i) { return 3 * i; }, (n + 2) / 3);
  EXPECT_EQ(api::stable_partition(iota, out, n, is_odd{}), n / 2);
  expect_out("stable_partition", [](std::int64_t i) { return i < n / 2 ? 2 * i + 1 : 2 * (i - n / 2); });
  EXPECT_EQ(api::partition(iota, out, n, is_odd{}), n / 2);
  expect_out("partition", [](std::int64_t i) { return i < n / 2 ? 2 * i + 1 : 2 * (n - 1 - i); });
  EXPECT_EQ(api::split(iota, odd_bytes, out, n), n / 2);
  expect_out("split", [](std::int64_t i) { return i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1; });
  api::split_and_segment(iota, odd_bytes, ss::head_flags(heads), out, heads_out, n);
  expect_out("split_and_segment", [](std::int64_t i) {
    const std::int64_t s = i - i % 10, k = i % 10;
    return k < 5 ? s + 2 * k : s + 2 * (k - 5) + 1;
  });
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(heads_out[i] != 0, i % 5 == 0) << "split_and_segment heads " << i;

  auto* keys = mem.template make<std::uint32_t>(n);
  auto* keys_out = mem.template make<std::uint32_t>(n);
  auto* values_out = mem.template make<std::int32_t>(n);
  for (std::int64_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(n - 1 - i);
  api::radix_sort_keys(keys, keys_out, n);
  Memory::wait();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(keys_out[i], static_cast<std::uint32_t>(i)) << "radix_sort_keys";
  api::radix_sort_pairs(keys, keys_out, iota, values_out, n);
  Memory::wait();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(values_out[i], n - 1 - i) << "radix_sort_pairs";
  api::quicksort(keys, keys_out, n);
  Memory::wait();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(keys_out[i], static_cast<std::uint32_t>(i)) << "quicksort";

  // A diagonal matrix of 2s, from COO triplets given twice each (duplicates add).
  auto* coo_rows = mem.template make<std::int32_t>(2 * n);
  auto* coo_values = mem.template make<float>(2 * n);
  auto* offsets = mem.template make<std::int32_t>(n + 1);
  auto* columns = mem.template make<std::int32_t>(2 * n);
  auto* values = mem.template make<float>(2 * n);
  auto* x = mem.template make<float>(n);
  auto* y = mem.template make<float>(n);
  for (std::int64_t k = 0; k < 2 * n; ++k) {
    coo_rows[k] = static_cast<std::int32_t>(k % n);
    coo_values[k] = 1.0f;
  }
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  EXPECT_EQ(api::coo_to_csr(n, n, 2 * n, coo_rows, coo_rows, coo_values, offsets, columns, values), n);
  api::spmv(ss::make_csr_view(n, n, n, static_cast<const std::int32_t*>(offsets),
                              static_cast<const std::int32_t*>(columns), static_cast<const float*>(values)),
            static_cast<const float*>(x), y, 1.0f, 0.0f);
  Memory::wait();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * static_cast<float>(i)) << "coo_to_csr, spmv";

  // The same diagonal as n one-row systems: x = b / 2.
  auto* zeros = mem.template make<float>(n);
  auto* twos = mem.template make<float>(n);
  for (std::int64_t i = 0; i < n; ++i) {
    zeros[i] = 0.0f;
    twos[i] = 2.0f;
  }
  api::tridiagonal_solve(ss::make_tridiagonal_view<float>(1, n, zeros, twos, zeros), static_cast<const float*>(x), y);
  Memory::wait();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], static_cast<float>(i) / 2.0f) << "tridiagonal_solve";
}

}  // namespace streamscan_test::same_program
