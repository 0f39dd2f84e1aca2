// The sort across ranks (streamscan::nccl::sort_keys / sort_pairs) against
// the host oracle (tests/common/sort_oracle.hpp: std::stable_sort over the
// test's own key map) of all shards joined in rank order: rank r must hold
// positions [split_begin(r), split_begin(r + 1)) of that order, and with
// each key's global index as its value the values pin stability across
// ranks exactly. Groups: simulated ranks (1, 2, 3, 5) and NCCL over every GPU
// present (common/ranked_groups.cuh).
#include <gtest/gtest.h>

#include <streamscan/nccl.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"
#include "common/ranked_groups.cuh"
#include "common/sort_oracle.hpp"

namespace {

using namespace streamscan_test;
namespace ss = streamscan;

enum class keys_kind { random, few_distinct, all_equal, sorted, reversed };

const char* name_of(keys_kind k) {
  switch (k) {
    case keys_kind::random: return "random";
    case keys_kind::few_distinct: return "few distinct";
    case keys_kind::all_equal: return "all equal";
    case keys_kind::sorted: return "sorted";
    case keys_kind::reversed: return "reversed";
  }
  return "?";
}

template <class K>
K random_key(std::mt19937_64& rng) {
  const std::uint64_t r = rng();
  if constexpr (std::is_floating_point_v<K>) {
    switch (r % 16) {  // the order's corners among ordinary values
      case 0: return K(-0.0);
      case 1: return K(0.0);
      case 2: return std::numeric_limits<K>::infinity();
      case 3: return -std::numeric_limits<K>::infinity();
      default: return static_cast<K>(std::ldexp(static_cast<double>(static_cast<std::int64_t>(r >> 11)) /
                                                    9007199254740992.0 - 0.5, static_cast<int>(r % 64) - 32));
    }
  } else {
    K k;
    std::memcpy(&k, &r, sizeof k);
    return k;
  }
}

// Every rank's shard: sizes[r] keys of the given kind, joined in rank order
// ("sorted" and "reversed" hold for the joined sequence).
template <class K>
std::vector<std::vector<K>> make_shards(const std::vector<std::int64_t>& sizes, keys_kind kind, std::mt19937_64& rng) {
  std::int64_t total = 0;
  for (const std::int64_t n : sizes) total += n;
  std::vector<K> all(static_cast<std::size_t>(total));
  const K one = random_key<K>(rng);
  std::vector<K> few = {random_key<K>(rng), random_key<K>(rng), random_key<K>(rng)};
  for (K& k : all) k = kind == keys_kind::all_equal ? one : kind == keys_kind::few_distinct ? few[rng() % 3] : random_key<K>(rng);
  if (kind == keys_kind::sorted || kind == keys_kind::reversed) {
    std::stable_sort(all.begin(), all.end(),
                     [](K a, K b) { return key_order_bits(a) < key_order_bits(b); });
    if (kind == keys_kind::reversed) std::reverse(all.begin(), all.end());
  }
  std::vector<std::vector<K>> shards;
  std::int64_t at = 0;
  for (const std::int64_t n : sizes) {
    shards.emplace_back(all.begin() + at, all.begin() + at + n);
    at += n;
  }
  return shards;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Sorts the shards on group g (pairs: each key's global index as its value)
// and checks every rank's share against the oracle, that the poison after
// the share is untouched and that the input is unchanged (out of place).
template <class K>
void check_sort(group& g, const std::vector<std::vector<K>>& shards, ss::sort_options opt, bool pairs, bool in_place,
                const std::string& what) {
  SCOPED_TRACE(what);
  const int ranks = g.size();
  std::vector<K> all;
  std::vector<std::int64_t> first(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) {
    all.insert(all.end(), shards[r].begin(), shards[r].end());
    first[r + 1] = first[r] + static_cast<std::int64_t>(shards[r].size());
  }
  const std::int64_t total = first[ranks];
  const std::vector<std::int64_t> perm = oracle_permutation(all, opt);
  const std::vector<K> sorted = permuted(all, perm);
  constexpr std::int64_t slack = 5;  // poisoned room after each share
  std::vector<std::string> problems(static_cast<std::size_t>(ranks));
  expect_all_ok(g.run([&](const rank_env& env, auto comm) {
    const int r = env.rank;
    const std::int64_t n = static_cast<std::int64_t>(shards[r].size());
    const std::int64_t begin = split_begin(total, ranks, r), share = split_begin(total, ranks, r + 1) - begin;
    const std::int64_t capacity = std::max(share, in_place ? n : 0) + slack;
    device_buffer<K> keys(static_cast<std::size_t>(std::max(n, capacity))), out(static_cast<std::size_t>(capacity));
    device_buffer<std::int64_t> values(static_cast<std::size_t>(std::max(n, capacity))),
        values_out(static_cast<std::size_t>(capacity));
    STREAMSCAN_TEST_CUDA(cudaMemset(keys.get(), 0xA5, keys.size() * sizeof(K)));
    STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 0xA5, out.size() * sizeof(K)));
    STREAMSCAN_TEST_CUDA(cudaMemset(values.get(), 0xA5, values.size() * sizeof(std::int64_t)));
    STREAMSCAN_TEST_CUDA(cudaMemset(values_out.get(), 0xA5, values_out.size() * sizeof(std::int64_t)));
    std::vector<std::int64_t> index(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) index[i] = first[r] + i;
    if (n > 0) {
      STREAMSCAN_TEST_CUDA(cudaMemcpy(keys.get(), shards[r].data(), n * sizeof(K), cudaMemcpyHostToDevice));
      STREAMSCAN_TEST_CUDA(cudaMemcpy(values.get(), index.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice));
    }
    // The fills and copies above may still be landing, and the rank's
    // non-blocking stream would not wait for them.
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    K* kout = in_place ? keys.get() : out.get();
    std::int64_t* vout = in_place ? values.get() : values_out.get();
    std::int64_t count = -1;
    if (pairs)
      count = ss::nccl::sort_pairs(keys.get(), kout, values.get(), vout, n, capacity, comm, env.stream, opt);
    else
      count = ss::nccl::sort_keys(keys.get(), kout, n, capacity, comm, env.stream, opt);
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(env.stream));
    std::string& p = problems[r];
    if (count != share) p += "count " + std::to_string(count) + ", expected " + std::to_string(share) + "; ";
    std::vector<K> got_keys;
    (in_place ? keys : out).download(got_keys);
    const std::vector<K> want(sorted.begin() + begin, sorted.begin() + begin + share);
    if (!same_bits(std::vector<K>(got_keys.begin(), got_keys.begin() + share), want)) {
      std::int64_t i = 0;
      while (i < share && std::memcmp(&got_keys[i], &want[i], sizeof(K)) == 0) ++i;
      p += "keys differ first at " + std::to_string(i) + " of " + std::to_string(share) + ": " + hex_bits(got_keys[i]) +
           " for " + hex_bits(want[i]) + "; ";
    }
    // In place, [share, n) still holds what the input left there; the poison starts after both.
    const std::int64_t guard = std::max(share, in_place ? n : 0);
    for (std::int64_t i = guard; i < guard + slack; ++i) {
      K poison;
      std::memset(&poison, 0xA5, sizeof poison);
      if (std::memcmp(&got_keys[i], &poison, sizeof(K)) != 0) {
        p += "key written past the share at " + std::to_string(i) + "; ";
        break;
      }
    }
    if (pairs) {
      std::vector<std::int64_t> got_values;
      (in_place ? values : values_out).download(got_values);
      for (std::int64_t i = 0; i < share; ++i)
        if (got_values[i] != perm[begin + i]) {
          p += "value " + std::to_string(i) + " is " + std::to_string(got_values[i]) + ", expected " +
               std::to_string(perm[begin + i]) + " (stability); ";
          break;
        }
      for (std::int64_t i = guard; i < guard + slack; ++i)
        if (got_values[i] != static_cast<std::int64_t>(0xA5A5A5A5A5A5A5A5ull)) {
          p += "value written past the share; ";
          break;
        }
    }
    if (!in_place && n > 0) {
      std::vector<K> input;
      keys.download(input);
      if (!same_bits(std::vector<K>(input.begin(), input.begin() + n), shards[r])) p += "input changed; ";
    }
  }));
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(problems[r], "") << "rank " << r << " of " << ranks;
}

template <class K>
void check_kinds(group& g, std::mt19937_64& rng, ss::sort_options opt, std::int64_t largest, const std::string& what) {
  for (const keys_kind kind :
       {keys_kind::random, keys_kind::few_distinct, keys_kind::all_equal, keys_kind::sorted, keys_kind::reversed}) {
    const auto sizes = shard_sizes(g.size(), rng, largest);
    const auto shards = make_shards<K>(sizes, kind, rng);
    for (const bool pairs : {false, true})
      check_sort<K>(g, shards, opt, pairs, false, what + ", " + name_of(kind) + (pairs ? ", pairs" : ", keys"));
  }
}

TEST_F(nccl_test, SortKeysAndPairsOfUnequalShards) {
  auto rng = make_rng("nccl_sort_unequal");
  for_each_group([&](group& g) {
    check_kinds<std::uint32_t>(g, rng, {}, 300000, "uint32");
    check_kinds<std::int64_t>(g, rng, {}, 100000, "int64");
    check_kinds<std::uint8_t>(g, rng, {}, 100000, "uint8");
  });
}

TEST_F(nccl_test, SortFloatsDescendingAndBitRanges) {
  auto rng = make_rng("nccl_sort_orders");
  for_each_group([&](group& g) {
    ss::sort_options desc;
    desc.order = ss::sort_order::descending;
    check_kinds<float>(g, rng, {}, 100000, "float");
    check_kinds<double>(g, rng, desc, 100000, "double descending");
    ss::sort_options bits;
    bits.begin_bit = 4;
    bits.end_bit = 23;
    check_kinds<std::uint32_t>(g, rng, bits, 100000, "uint32 bits [4, 23)");
    bits.begin_bit = 40;
    bits.end_bit = 64;
    bits.order = ss::sort_order::descending;
    check_kinds<std::int64_t>(g, rng, bits, 100000, "int64 bits [40, 64) descending");
    ss::sort_options split;
    split.strategy = ss::sort_strategy::split;
    const auto sizes = shard_sizes(g.size(), rng, 20000);
    check_sort<std::int16_t>(g, make_shards<std::int16_t>(sizes, keys_kind::random, rng), split, true, false,
                             "int16 by the split strategy");
  });
}

TEST_F(nccl_test, SortInPlace) {
  auto rng = make_rng("nccl_sort_in_place");
  for_each_group([&](group& g) {
    const auto sizes = shard_sizes(g.size(), rng, 200000);
    const auto shards = make_shards<std::uint64_t>(sizes, keys_kind::random, rng);
    check_sort<std::uint64_t>(g, shards, {}, true, true, "uint64 pairs in place");
    check_sort<std::uint64_t>(g, shards, {}, false, true, "uint64 keys in place");
  });
}

// Every rank empty, and one rank holding everything.
TEST_F(nccl_test, SortEmptyAndLopsidedShards) {
  auto rng = make_rng("nccl_sort_lopsided");
  for_each_group([&](group& g) {
    std::vector<std::int64_t> none(static_cast<std::size_t>(g.size()), 0);
    check_sort<std::uint32_t>(g, make_shards<std::uint32_t>(none, keys_kind::random, rng), {}, true, false, "empty");
    std::vector<std::int64_t> last = none;
    last.back() = 100003;
    check_sort<std::uint32_t>(g, make_shards<std::uint32_t>(last, keys_kind::random, rng), {}, true, false,
                              "all on the last rank");
    std::vector<std::int64_t> tiny = none;
    tiny[0] = 1;
    check_sort<std::uint32_t>(g, make_shards<std::uint32_t>(tiny, keys_kind::random, rng), {}, false, false,
                              "one key in all");
  });
}

// A bad argument on one rank (or a capacity short of its share) is every
// rank's error, and no rank writes its output.
TEST_F(nccl_test, SortBadArgumentOnOneRankIsEveryRanksError) {
  enum class fault { short_capacity, null_out, negative_n, other_order, other_type };
  const struct {
    fault bad;
    const char* text;
  } cases[] = {{fault::short_capacity, "argument 'capacity' is"},
               {fault::null_out, "argument 'keys_out' is a null pointer"},
               {fault::negative_n, "argument 'n' is negative"},
               {fault::other_order, "made another call"},
               {fault::other_type, "made another call"}};
  for_each_group([&](group& g) {
    const int ranks = g.size(), bad = ranks - 1;
    if (ranks == 1) return;
    const std::int64_t n = 1000;
    for (const auto& c : cases) {
      SCOPED_TRACE(c.text);
      std::vector<ss::status> got(static_cast<std::size_t>(ranks));
      std::vector<std::string> written(got.size());
      expect_all_ok(g.run([&](const rank_env& env, auto comm) {
        const bool broken = env.rank == bad;
        device_buffer<std::uint32_t> in(n), out(n);
        STREAMSCAN_TEST_CUDA(cudaMemset(in.get(), 0x11, n * sizeof(std::uint32_t)));
        STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 0x5A, n * sizeof(std::uint32_t)));
        ss::sort_options opt;
        if (broken && c.bad == fault::other_order) opt.order = ss::sort_order::descending;
        const std::int64_t my_n = broken && c.bad == fault::negative_n ? -3 : n;
        const std::int64_t capacity = broken && c.bad == fault::short_capacity ? 2 : n;
        std::uint32_t* pout = broken && c.bad == fault::null_out ? nullptr : out.get();
        std::int64_t count = -7;
        auto invoke = [&](void* t, std::size_t& b) {
          if (broken && c.bad == fault::other_type)
            return ss::nccl::sort_keys(t, b, reinterpret_cast<const std::int32_t*>(in.get()),
                                       reinterpret_cast<std::int32_t*>(out.get()), my_n, capacity, count, comm,
                                       env.stream, opt);
          return ss::nccl::sort_keys(t, b, static_cast<const std::uint32_t*>(in.get()), pout, my_n, capacity, count,
                                     comm, env.stream, opt);
        };
        got[env.rank] = two_phase_on_rank(env, invoke);
        std::vector<std::uint32_t> after;
        out.download(after);
        if (after != std::vector<std::uint32_t>(n, 0x5A5A5A5Au)) written[env.rank] = "output";
        if (count != -7) written[env.rank] = "count";
      }));
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(got[r].code(), ss::errc::invalid_argument) << "rank " << r << ": " << got[r].message();
        EXPECT_NE(got[r].message().find(c.text), std::string::npos) << "rank " << r << ": " << got[r].message();
        EXPECT_EQ(written[r], "") << "rank " << r << " wrote its " << written[r];
      }
    }
  });
}

}  // namespace
