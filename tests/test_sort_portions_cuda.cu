// The onesweep sort's portions at small sizes. A look-back counts 30 bits, so
// inputs past 2^30 - 1 keys run as portions, one launch each per pass; every
// portion after the first takes its digit starts from the previous portion's
// last tile. Here the portions are a few tiles (the dispatcher's
// portion_limit), so that every pass of many portions runs in milliseconds and
// under the sanitizers; test_cuda_large runs the real limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"
#include "common/sort_oracle.hpp"

namespace {
namespace ss = streamscan;
namespace sd = streamscan::cuda::detail;
namespace st = streamscan_test;

struct portion_case {
  std::int64_t n;
  std::int64_t portion_tiles;
  bool descending;
  bool in_place;
  int begin_bit, end_bit;  // end_bit < 0: every bit
};

std::string describe(const portion_case& c) {
  return "n=" + std::to_string(c.n) + " portion_tiles=" + std::to_string(c.portion_tiles) +
         (c.descending ? " descending" : " ascending") + (c.in_place ? " in place" : " out of place") + " bits [" +
         std::to_string(c.begin_bit) + ", " + std::to_string(c.end_bit) + ")";
}

// Sorts keys (and, for pairs, their input indices as values) through
// onesweep_sort with small portions; compares with the stable oracle.
template <class K, bool Pairs>
void check_portions(const portion_case& c, std::mt19937_64& rng) {
  using V = std::conditional_t<Pairs, std::uint32_t, sd::no_values>;
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + describe(c));
  std::vector<K> keys(static_cast<std::size_t>(c.n));
  for (auto& k : keys) {  // every bit pattern (NaNs too): the oracle orders bits
    const std::uint64_t r = rng();
    std::memcpy(&k, &r, sizeof(K));
  }
  std::vector<std::uint32_t> index(keys.size());
  std::iota(index.begin(), index.end(), 0u);

  st::device_buffer<K> d_keys(keys.size() + 1), d_out(keys.size() + 1);
  st::device_buffer<std::uint32_t> d_values(keys.size() + 1), d_values_out(keys.size() + 1);
  std::vector<K> poisoned_keys(keys.size() + 1);
  st::poison(poisoned_keys);
  d_out.upload(poisoned_keys);
  std::vector<std::uint32_t> poisoned_values(keys.size() + 1);
  st::poison(poisoned_values);
  d_values_out.upload(poisoned_values);
  // One guard element after each output.
  d_keys.upload([&] { auto k = keys; k.push_back(poisoned_keys.back()); return k; }());
  d_values.upload([&] { auto v = index; v.push_back(poisoned_values.back()); return v; }());

  sd::sort_io<K, V> io;
  io.keys_in = d_keys.get();
  io.keys_out = c.in_place ? d_keys.get() : d_out.get();
  if constexpr (Pairs) {
    io.values_in = d_values.get();
    io.values_out = c.in_place ? d_values.get() : d_values_out.get();
  }
  const int end_bit = c.end_bit < 0 ? 8 * int(sizeof(K)) : c.end_bit;
  sd::device_facts facts;
  ASSERT_TRUE(sd::current_device_facts("test", facts).is_ok());
  const std::int64_t tile = sd::onesweep_shapes<K, V>::sort.tile_items();
  const std::int64_t limit = c.portion_tiles * tile;
  std::size_t bytes = 0;
  ASSERT_TRUE((sd::onesweep_sort<K, V>("test", nullptr, bytes, io, c.n, nullptr, c.begin_bit, end_bit, c.descending,
                                       &facts, limit)
                   .is_ok()));
  st::device_buffer<unsigned char> temp(bytes);
  const ss::status s = sd::onesweep_sort<K, V>("test", temp.get(), bytes, io, c.n, nullptr, c.begin_bit, end_bit,
                                               c.descending, &facts, limit);
  ASSERT_TRUE(s.is_ok()) << s.message();
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());

  ss::sort_options opt;
  opt.order = c.descending ? ss::sort_order::descending : ss::sort_order::ascending;
  opt.begin_bit = c.begin_bit;
  opt.end_bit = c.end_bit;
  const auto perm = st::oracle_permutation(keys, opt);
  std::vector<K> got;
  (c.in_place ? d_keys : d_out).download(got);
  const K guard = got.back();
  got.pop_back();
  EXPECT_EQ(std::memcmp(&guard, &poisoned_keys.back(), sizeof(K)), 0) << "the key after the output was written";
  const auto want = st::permuted(keys, perm);
  std::int64_t wrong = 0, first = -1;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(K)) != 0 && wrong++ == 0) first = static_cast<std::int64_t>(i);
  EXPECT_EQ(wrong, 0) << "keys differ from the oracle's, first at " << first;
  if constexpr (Pairs) {
    std::vector<std::uint32_t> values;
    (c.in_place ? d_values : d_values_out).download(values);
    EXPECT_EQ(values.back(), poisoned_values.back()) << "the value after the output was written";
    values.pop_back();
    std::int64_t wrong_values = 0;
    for (std::size_t i = 0; i < values.size(); ++i) wrong_values += values[i] != static_cast<std::uint32_t>(perm[i]);
    EXPECT_EQ(wrong_values, 0) << "values are not the stable permutation";
  }
}

template <class K, bool Pairs>
void sweep_portions() {
  if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  auto rng = st::make_rng(std::string("sort_portions_") + typeid(K).name() + (Pairs ? "_pairs" : ""));
  const std::int64_t tile = sd::onesweep_shapes<K, std::conditional_t<Pairs, std::uint32_t, sd::no_values>>::sort
                                .tile_items();
  const std::int64_t max_n = std::min(std::int64_t{7} * tile + tile / 2, st::test_size_cap());
  const int bits = 8 * int(sizeof(K));
  for (const std::int64_t tiles : {std::int64_t{1}, std::int64_t{3}})
    for (const bool descending : {false, true})
      for (const bool in_place : {false, true}) {
        // A partial last tile, whole portions only, and a size the limit makes one portion.
        const std::int64_t ns[] = {std::min(max_n, 7 * tile + 1 + static_cast<std::int64_t>(rng() % (tile - 1))),
                                   std::min(max_n, 6 * tile), std::min(max_n, tile - 1)};
        for (const std::int64_t n : ns) check_portions<K, Pairs>({n, tiles, descending, in_place, 0, -1}, rng);
      }
  // A partial bit range: the digits of the middle bits only.
  check_portions<K, Pairs>({std::min(max_n, 5 * tile + 17), 1, false, false, bits / 4, bits - bits / 4 + 1}, rng);
}

TEST(sort_cuda_portions, uint32_keys) { sweep_portions<std::uint32_t, false>(); }
TEST(sort_cuda_portions, int64_keys) { sweep_portions<std::int64_t, false>(); }
TEST(sort_cuda_portions, float_keys) { sweep_portions<float, false>(); }
TEST(sort_cuda_portions, int16_keys) { sweep_portions<std::int16_t, false>(); }
TEST(sort_cuda_portions, uint32_pairs) { sweep_portions<std::uint32_t, true>(); }
TEST(sort_cuda_portions, double_pairs) { sweep_portions<double, true>(); }

}  // namespace
