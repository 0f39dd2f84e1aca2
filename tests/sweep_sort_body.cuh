// tests/sweep_sort_body.cuh - the radix sorts' size sweep, stamped out by
// test_sweep_sort_*_cuda.cu (one key width each, so they compile in parallel).
//
// The radix sorts at 2^30 - 1, 2^30 + 1, 2^31 + 17 and 2^32 + 17 keys
// (sweep::sizes), every key width and kind (unsigned, signed, float), keys
// and pairs, both orders, in place and out of place, a partial bit range, and
// the split strategy; the cases a GPU's memory cannot hold are logged as
// skipped. Inputs are hashed from the index on the device (every bit pattern,
// NaNs included) and everything is checked there:
//   order      consecutive outputs in order by the test's own map of the key
//              bits (not the library's radix_key_traits), on the sorted bits;
//   pairs      values are the input indices: each output key is the key its
//              value names, and equal keys keep rising indices (stability);
//              with the order, a permutation of the input;
//   keys only  the multiset: a histogram of the top 12 key bits (every bit of
//              a 1-byte key) and two sums of hashes of the keys, against the
//              input's;
//   the input unchanged (out of place), guard bytes after every output.
// Every size runs every (type, form, order, in place): 80 cases, and 8 of
// partial bit ranges and the split strategy.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"
#include "common/sweep.cuh"

namespace streamscan_test::sweep_sort {
namespace ss = streamscan;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

template <class K>
using bits_of = std::conditional_t<sizeof(K) == 1, std::uint8_t,
                                   std::conditional_t<sizeof(K) == 2, std::uint16_t,
                                                      std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>>>;

template <class K>
__device__ bits_of<K> raw_bits(K k) {
  bits_of<K> b;
  memcpy(&b, &k, sizeof(K));
  return b;
}

// The test's own order-preserving map of a key's bits (ascending order of
// the result is the sort's ascending order): unsigned as is; signed with the
// sign bit flipped; floating point with every bit flipped when negative, else
// the sign bit set (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
template <class K>
__device__ std::uint64_t ordered_bits(K k) {
  using U = bits_of<K>;
  const U b = raw_bits(k);
  constexpr U sign = static_cast<U>(U(1) << (8 * sizeof(K) - 1));
  if constexpr (std::is_floating_point_v<K>)
    return (b & sign) ? static_cast<U>(~b) : static_cast<U>(b | sign);
  else if constexpr (std::is_signed_v<K>)
    return static_cast<U>(b ^ sign);
  else
    return b;
}

template <class K>
__device__ K key_at(std::uint64_t salt, std::uint64_t i) {
  const std::uint64_t h = sw::hash64(salt, i);
  K k;
  memcpy(&k, &h, sizeof(K));
  return k;
}

template <class K, class V>
__global__ void fill_sort_input(K* keys, V* values, std::int64_t n, std::uint64_t salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    keys[i] = key_at<K>(salt, i);
    if (values) values[i] = static_cast<V>(i);
  }
}

struct key_field {
  int begin, end;
  bool descending;
  __device__ std::uint64_t of(std::uint64_t ordered) const {
    const int width = end - begin;
    const std::uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
    return (ordered >> begin) & mask;
  }
  // Whether a may not come before b.
  __device__ bool out_of_order(std::uint64_t a, std::uint64_t b) const { return descending ? a < b : a > b; }
};

enum counter { bad_order, bad_value, unstable, changed_input, hash_a, hash_b, counter_count };

__device__ inline std::uint64_t mix_a(std::uint64_t x) { return sw::hash64(0x1234567887654321ull, x); }
__device__ inline std::uint64_t mix_b(std::uint64_t x) { return (x * 0xD6E8FEB86659FD93ull) ^ (x >> 17) ^ 0x5555; }

// The checks of one output; values null for keys only. Keys only also add
// the two hash sums (subtracting the input's: a permutation leaves 0) and
// the histogram of the top bits (adding the output's, subtracting the
// input's, so that a permutation leaves zeros).
template <class K, class V>
__global__ void check_sorted(const K* keys, const V* values, std::int64_t n, std::uint64_t salt, key_field field,
                             const K* input_keys, const V* input_values, unsigned long long* counts,
                             long long* histogram, int hist_shift) {
  __shared__ int local[1 << 12];  // this block's histogram differences
  const int log2_bins = 8 * int(sizeof(K)) - hist_shift;
  if (!values) {
    for (int b = threadIdx.x; b < (1 << log2_bins); b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  unsigned long long order = 0, value = 0, stability = 0, changed = 0, ha = 0, hb = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const K k = keys[i];
    const std::uint64_t f = field.of(ordered_bits(k));
    if (i > 0) {
      const std::uint64_t before = field.of(ordered_bits(keys[i - 1]));
      if (field.out_of_order(before, f))
        ++order;
      else if (values && before == f && values[i - 1] >= values[i])
        ++stability;
    }
    if (values) {
      const V v = values[i];
      if (static_cast<std::uint64_t>(v) >= static_cast<std::uint64_t>(n) || raw_bits(key_at<K>(salt, v)) != raw_bits(k))
        ++value;
    } else {
      const std::uint64_t out_bits = raw_bits(k), in_bits = raw_bits(key_at<K>(salt, i));
      ha += mix_a(out_bits) - mix_a(in_bits);
      hb += mix_b(out_bits) - mix_b(in_bits);
      atomicAdd(local + (out_bits >> hist_shift), 1);
      atomicSub(local + (in_bits >> hist_shift), 1);
    }
    if (input_keys && raw_bits(input_keys[i]) != raw_bits(key_at<K>(salt, i))) ++changed;
    if (input_values && static_cast<std::uint64_t>(input_values[i]) != static_cast<std::uint64_t>(i)) ++changed;
  }
  if (!values) {
    __syncthreads();
    for (int b = threadIdx.x; b < (1 << log2_bins); b += blockDim.x)
      if (local[b] != 0) atomicAdd(reinterpret_cast<unsigned long long*>(histogram + b), static_cast<unsigned long long>(local[b]));
  }
  if (order) atomicAdd(counts + bad_order, order);
  if (value) atomicAdd(counts + bad_value, value);
  if (stability) atomicAdd(counts + unstable, stability);
  if (changed) atomicAdd(counts + changed_input, changed);
  if (ha) atomicAdd(counts + hash_a, ha);
  if (hb) atomicAdd(counts + hash_b, hb);
}

static __global__ void count_nonzero(const long long* h, int bins, unsigned long long* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < bins; i += gridDim.x * blockDim.x)
    if (h[i] != 0) atomicAdd(out, 1ull);
}

struct sort_case {
  std::int64_t n;
  bool pairs, descending, in_place;
  int begin_bit = 0, end_bit = -1;
  ss::sort_strategy strategy = ss::sort_strategy::automatic;
};

template <class K>
std::string type_name() {
  if constexpr (std::is_floating_point_v<K>) return sizeof(K) == 4 ? "float" : "double";
  return std::string(std::is_signed_v<K> ? "int" : "uint") + std::to_string(8 * sizeof(K));
}

template <class K, class V>
void run_case(sw::arena& arena, const sort_case& c, std::uint64_t salt) {
  constexpr bool keys_only = std::is_same_v<V, void>;
  using VV = std::conditional_t<keys_only, std::uint32_t, V>;  // a type for the unused pointers
  const int bits = 8 * int(sizeof(K));
  const int end_bit = c.end_bit < 0 ? bits : c.end_bit;
  const std::string name = type_name<K>() + (keys_only ? " keys" : " pairs") + " n=" + sw::log2_name(c.n) +
                           (c.descending ? " desc" : " asc") + (c.in_place ? " in-place" : " out-of-place") +
                           (c.begin_bit != 0 || c.end_bit >= 0
                                ? " bits[" + std::to_string(c.begin_bit) + "," + std::to_string(end_bit) + ")"
                                : "") +
                           (c.strategy == ss::sort_strategy::split ? " split" : "");
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
  ss::sort_options opt;
  opt.order = c.descending ? ss::sort_order::descending : ss::sort_order::ascending;
  opt.begin_bit = c.begin_bit;
  opt.end_bit = c.end_bit;
  opt.strategy = c.strategy;
  std::size_t temp_bytes = 0;
  if constexpr (keys_only)
    ASSERT_TRUE(ss::cuda::radix_sort_keys<K>(nullptr, temp_bytes, nullptr, nullptr, c.n, nullptr, opt).is_ok());
  else
    ASSERT_TRUE((ss::cuda::radix_sort_pairs<K, V>(nullptr, temp_bytes, nullptr, nullptr, nullptr, nullptr, c.n,
                                                  nullptr, opt)
                     .is_ok()));
  const int hist_bits = bits < 12 ? bits : 12;
  const std::size_t per_array = static_cast<std::size_t>(c.n) * (sizeof(K) + (keys_only ? 0 : sizeof(VV)));
  const std::size_t need = per_array * (c.in_place ? 1 : 2) + temp_bytes + (sizeof(long long) << hist_bits) + 4096;
  if (!sw::arena::fits(need, arena.capacity())) return sw::case_log::skipped(name, need, arena.capacity());
  const sw::case_log log(name);
  arena.reset();
  K* keys_in = arena.take<K>(c.n);
  K* keys_out = c.in_place ? keys_in : arena.take<K>(c.n);
  VV* values_in = keys_only ? nullptr : arena.take<VV>(c.n);
  VV* values_out = keys_only || c.in_place ? values_in : arena.take<VV>(c.n);
  void* temp = arena.take<unsigned char>(static_cast<std::int64_t>(temp_bytes), false);
  auto* histogram = arena.take<long long>(std::int64_t{1} << hist_bits, false);
  ASSERT_NE(histogram, nullptr);
  STREAMSCAN_TEST_CUDA(cudaMemset(histogram, 0, sizeof(long long) << hist_bits));
  fill_sort_input<K, VV><<<8192, 256>>>(keys_in, values_in, c.n, salt);
  if (!c.in_place) {
    STREAMSCAN_TEST_CUDA(cudaMemset(keys_out, st::poison_byte, static_cast<std::size_t>(c.n) * sizeof(K)));
    if (!keys_only)
      STREAMSCAN_TEST_CUDA(cudaMemset(values_out, st::poison_byte, static_cast<std::size_t>(c.n) * sizeof(VV)));
  }
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  ss::status s;
  if constexpr (keys_only)
    s = ss::cuda::radix_sort_keys<K>(temp, temp_bytes, keys_in, keys_out, c.n, nullptr, opt);
  else
    s = ss::cuda::radix_sort_pairs<K, V>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, c.n, nullptr,
                                         opt);
  ASSERT_TRUE(s.is_ok()) << s.message();
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());

  sw::counters counts(counter_count + 1);
  const bool check_input = !c.in_place;
  check_sorted<K, VV><<<sw::grid_for(c.n), 256>>>(
      keys_out, values_out, c.n, salt, key_field{c.begin_bit, end_bit, c.descending}, check_input ? keys_in : nullptr,
      check_input ? values_in : nullptr, counts.get(), histogram, bits - hist_bits);
  count_nonzero<<<64, 256>>>(histogram, 1 << hist_bits, counts.get() + counter_count);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto got = counts.read();
  EXPECT_EQ(got[bad_order], 0u) << "outputs out of order";
  EXPECT_EQ(got[bad_value], 0u) << "values that do not name an input of their key";
  EXPECT_EQ(got[unstable], 0u) << "equal keys out of input order";
  EXPECT_EQ(got[changed_input], 0u) << "input elements changed by an out-of-place sort";
  EXPECT_EQ(got[hash_a], 0u) << "the output's keys are not the input's (hash sum a)";
  EXPECT_EQ(got[hash_b], 0u) << "the output's keys are not the input's (hash sum b)";
  EXPECT_EQ(got[counter_count], 0u) << "histogram bins of the top key bits differ from the input's";
  EXPECT_TRUE(sw::guard_intact(keys_out, c.n)) << "bytes after the keys' output written";
  if (!keys_only) EXPECT_TRUE(sw::guard_intact(values_out, c.n)) << "bytes after the values' output written";
  if (!c.in_place) {
    EXPECT_TRUE(sw::guard_intact(keys_in, c.n)) << "bytes after the keys' input written";
    if (!keys_only) EXPECT_TRUE(sw::guard_intact(values_in, c.n)) << "bytes after the values' input written";
  }
  log.done(!::testing::Test::HasFailure());
}

// Every (form, order, in place) at every size. Pairs' values are the input
// indices: 32 bits below 2^32 keys, else 64.
template <class K>
void run_sizes(sw::arena& arena, std::mt19937_64& rng) {
  for (const std::int64_t n : sw::sizes())
    for (const bool pairs : {false, true})
      for (const bool descending : {false, true})
        for (const bool in_place : {false, true}) {
          const sort_case c{n, pairs, descending, in_place};
          if (!pairs)
            run_case<K, void>(arena, c, rng());
          else if (n < (std::int64_t{1} << 32))
            run_case<K, std::uint32_t>(arena, c, rng());
          else
            run_case<K, std::uint64_t>(arena, c, rng());
        }
}

// A partial bit range (from a quarter of the bits to all but the top eighth)
// and the split strategy, keys and pairs, at every size.
template <class K>
void run_partial_and_split(sw::arena& arena, std::mt19937_64& rng) {
  const int bits = 8 * int(sizeof(K));
  const auto sizes = sw::sizes();
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::int64_t n = sizes[si];
    for (const bool split : {false, true}) {
      sort_case c{n, false, (si & 1) != 0, (si & 2) != 0};
      if (split)
        c.strategy = ss::sort_strategy::split;
      else
        c.begin_bit = bits / 4, c.end_bit = bits - bits / 8;
      run_case<K, void>(arena, c, rng());
      c.pairs = true;
      c.descending = !c.descending;
      if (n < (std::int64_t{1} << 32))
        run_case<K, std::uint32_t>(arena, c, rng());
      else
        run_case<K, std::uint64_t>(arena, c, rng());
    }
  }
}

class sweep_sort : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  }
};

}  // namespace streamscan_test::sweep_sort
