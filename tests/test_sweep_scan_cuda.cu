// The scans' size sweep (sweep::sizes: 2^30 +- 1, 2^31 + 17, 2^32 + 17):
// plain scans by every strategy and the kernels behind them, segmented scans
// by every description and direction, segmented reductions, enumerate and
// distribute. Inputs are hashed from the index on the device; each output is
// checked there by its defining recurrence, which pins every element given
// the one before it:
//   inclusive  out[i] = op(out[i-1], in[i]), out[0] = in[0] (op(init, in[0]))
//   exclusive  out[i] = op(out[i-1], in[i-1]), out[0] = init
// restarting at segment heads (backward: mirrored), so a check costs one
// read of the output, in place included (the input is recomputed). The
// segmented reduction is checked against a naive loop per segment. Guard
// bytes after every output; an out-of-place input must be unchanged.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"
#include "common/sweep.cuh"
#include "common/types.hpp"

namespace {
namespace ss = streamscan;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;
using affine32 = st::affine<std::uint32_t>;

// ---- values and operators ----

template <class T>
__host__ __device__ T value_at(std::uint64_t salt, std::int64_t i) {
  const std::uint64_t h = sw::hash64(salt, static_cast<std::uint64_t>(i));
  if constexpr (std::is_same_v<T, affine32>)
    return affine32{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32)};
  else
    return static_cast<T>(h);
}
__host__ __device__ inline bool same(std::uint32_t a, std::uint32_t b) { return a == b; }
__host__ __device__ inline bool same(const affine32& a, const affine32& b) { return a.a == b.a && a.b == b.b; }

struct add_u32 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a + b; }
};

template <class T>
__global__ void fill_values(T* out, std::int64_t n, std::uint64_t salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = value_at<T>(salt, i);
}

// ---- segments: about one head per `spacing` elements, at hashed places ----

// Segment k >= 1 starts at k * spacing + a hashed offset below spacing
// (inside [0, n)); segment 0 at 0; start(count()) = n. As offsets (count() + 1
// of them), flags or bits.
struct segments_shape {
  std::int64_t n, spacing;
  std::uint64_t salt;
  __host__ __device__ std::int64_t count() const { return (n + spacing - 1) / spacing; }  // segments
  __host__ __device__ std::int64_t start(std::int64_t k) const {
    if (k == 0) return 0;
    if (k >= count()) return n;
    const std::int64_t span = n - k * spacing < spacing ? n - k * spacing : spacing;  // the last block's part
    return k * spacing + static_cast<std::int64_t>(sw::hash64(salt, k) % static_cast<std::uint64_t>(span));
  }
  __host__ __device__ bool head(std::int64_t i) const { return i == 0 || start(i / spacing) == i; }
};

__global__ void fill_segments(segments_shape sh, std::int64_t* offsets, unsigned char* flags, std::uint32_t* words) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t first = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const std::int64_t m = sh.count();
  if (offsets)
    for (std::int64_t k = first; k <= m; k += stride) offsets[k] = sh.start(k);
  if (flags)
    for (std::int64_t i = first; i < sh.n; i += stride) flags[i] = sh.head(i) ? 1 : 0;
  if (words)
    for (std::int64_t w = first; w < (sh.n + 31) / 32; w += stride) {
      std::uint32_t bits = 0;
      for (int b = 0; b < 32 && w * 32 + b < sh.n; ++b) bits |= sh.head(w * 32 + b) ? 1u << b : 0u;
      words[w] = bits;
    }
}

// ---- the recurrence check ----

enum counter { wrong_output, changed_input, counter_count };

struct scan_form {
  bool exclusive = false, backward = false, segmented = false;
};

// out[i] against its neighbour (forward: i - 1, backward: i + 1); `init`
// where a segment restarts (inclusive: combined with the element).
template <class T, class Op>
__global__ void check_recurrence(const T* out, const T* in_or_null, std::int64_t n, std::uint64_t salt, T init,
                                 bool has_init, Op op, scan_form form, segments_shape sh,
                                 unsigned long long* counts) {
  unsigned long long wrong = 0, changed = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t prev = form.backward ? i + 1 : i - 1;  // the neighbour the scan came from
    // Restart: the first element, else (segmented) a head forward / before a head backward.
    const bool restart = prev < 0 || prev >= n || (form.segmented && (form.backward ? sh.head(i + 1) : sh.head(i)));
    T want;
    if (form.exclusive)
      want = restart ? init : op(out[prev], value_at<T>(salt, prev));
    else if (restart)
      want = has_init ? op(init, value_at<T>(salt, i)) : value_at<T>(salt, i);
    else
      want = op(out[prev], value_at<T>(salt, i));
    if (!same(out[i], want)) ++wrong;
    if (in_or_null && !same(in_or_null[i], value_at<T>(salt, i))) ++changed;
  }
  if (wrong) atomicAdd(counts + wrong_output, wrong);
  if (changed) atomicAdd(counts + changed_input, changed);
}

template <class T>
std::string type_name() {
  return std::is_same_v<T, affine32> ? "affine32" : "uint32";
}

// What a case runs: a two-phase call given (temp, bytes, in, out).
template <class T, class Op, class Call>
void run_scan_case(sw::arena& arena, const std::string& name, std::int64_t n, bool in_place, scan_form form,
                   T init, bool has_init, Op op, segments_shape sh, Call call, std::uint64_t salt,
                   bool reset = true) {
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
  if (reset) arena.reset();  // else the caller's buffers stay before ours
  T* in = arena.take<T>(n);
  T* out = in_place ? in : arena.take<T>(n);
  if (in == nullptr || out == nullptr) return sw::case_log::skipped(name);
  const sw::case_log log(name);
  fill_values<T><<<8192, 256>>>(in, n, salt);
  if (!in_place) STREAMSCAN_TEST_CUDA(cudaMemset(out, st::poison_byte, static_cast<std::size_t>(n) * sizeof(T)));
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  if (!sw::run_two_phase(arena, [&](void* temp, std::size_t& bytes) {
        return call(temp, bytes, static_cast<const T*>(in), out);
      }))
    return sw::case_log::skipped(name);
  sw::counters counts(counter_count);
  check_recurrence<T, Op><<<sw::grid_for(n), 256>>>(out, in_place ? nullptr : in, n, salt, init, has_init, op, form,
                                                     sh, counts.get());
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto got = counts.read();
  EXPECT_EQ(got[wrong_output], 0u) << "outputs that break the recurrence";
  EXPECT_EQ(got[changed_input], 0u) << "input elements changed by an out-of-place call";
  EXPECT_TRUE(sw::guard_intact(out, n)) << "bytes after the output written";
  if (!in_place) EXPECT_TRUE(sw::guard_intact(in, n)) << "bytes after the input written";
  log.done(!::testing::Test::HasFailure());
}

class sweep_scan : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  }
};

struct strategy_case {
  ss::scan_strategy strategy;
  const char* policy;  // null: the strategy's default
};

// Every strategy, and the one-tile and pipelined kernels of the look-back and
// the seed's own chain by name; inclusive (with and without init) and
// exclusive; in place and out of place by turns.
template <class T, class Op>
void plain_scans(std::mt19937_64& rng, T init, Op op) {
  sw::arena arena;
  const strategy_case strategies[] = {{ss::scan_strategy::automatic, nullptr},
                                      {ss::scan_strategy::decoupled_lookback, "t256x8"},
                                      {ss::scan_strategy::decoupled_lookback, "p256x8s6"},
                                      {ss::scan_strategy::chained, nullptr},
                                      {ss::scan_strategy::chained, "c512r8s8"},
                                      {ss::scan_strategy::reduce_then_scan, nullptr},
                                      {ss::scan_strategy::scan_then_add, nullptr}};
  int turn = 0;
  for (const std::int64_t n : sw::sizes())
    for (const strategy_case& sc : strategies)
      for (int kind = 0; kind < 3; ++kind) {  // inclusive, inclusive with init, exclusive
        const bool in_place = (turn++ % 2) == 1;
        const ss::scan_options opt{sc.strategy, sc.policy};
        const std::string name = type_name<T>() + " " + (kind == 2 ? "exclusive" : kind == 1 ? "inclusive_init" : "inclusive") +
                                 " n=" + sw::log2_name(n) + " " + ss::to_string(sc.strategy) +
                                 (sc.policy ? std::string(" ") + sc.policy : std::string()) +
                                 (in_place ? " in-place" : " out-of-place");
        run_scan_case<T>(arena, name, n, in_place, scan_form{kind == 2, false, false}, init, kind == 1, op,
                         segments_shape{n, 1, 0},
                         [&](void* temp, std::size_t& bytes, const T* in, T* out) {
                           if (kind == 2) return ss::cuda::exclusive_scan(temp, bytes, in, out, n, init, op, nullptr, opt);
                           if (kind == 1)
                             return ss::cuda::inclusive_scan_init(temp, bytes, in, out, n, op, init, nullptr, opt);
                           return ss::cuda::inclusive_scan(temp, bytes, in, out, n, op, nullptr, opt);
                         },
                         rng());
      }
}

TEST_F(sweep_scan, uint32_sums) {
  auto rng = st::make_rng("sweep_scan_u32");
  plain_scans<std::uint32_t>(rng, 7u, add_u32{});
}
TEST_F(sweep_scan, affine_maps_not_commutative) {
  auto rng = st::make_rng("sweep_scan_affine");
  plain_scans<affine32>(rng, affine32{3u, 5u}, st::affine_compose{});
}

// Segmented scans of uint32 sums: head flags, head bits and offsets; forward
// and backward; inclusive (with init) and exclusive; the default path (the
// pipelined kernel), the one-tile kernel and reduce_then_scan.
TEST_F(sweep_scan, segmented) {
  auto rng = st::make_rng("sweep_scan_segmented");
  sw::arena arena;
  const strategy_case strategies[] = {{ss::scan_strategy::automatic, nullptr},
                                      {ss::scan_strategy::decoupled_lookback, "s256x8"},
                                      {ss::scan_strategy::reduce_then_scan, nullptr}};
  const std::uint32_t init = 11;
  int turn = 0;
  for (const std::int64_t n : sw::sizes()) {
    const segments_shape sh{n, 3001, rng()};
    for (int desc = 0; desc < 3; ++desc)
      for (const bool backward : {false, true})
        for (const strategy_case& sc : strategies)
          for (const bool exclusive : {false, true}) {
            const bool in_place = (turn++ % 2) == 1;
            const ss::segmented_options opt{backward ? ss::scan_direction::backward : ss::scan_direction::forward,
                                            {sc.strategy, sc.policy}};
            const char* desc_name[] = {"flags", "bits", "offsets"};
            const std::string name = std::string("segmented ") + desc_name[desc] + (backward ? " backward" : " forward") +
                                     (exclusive ? " exclusive" : " inclusive_init") + " n=" + sw::log2_name(n) + " " +
                                     ss::to_string(sc.strategy) + (sc.policy ? std::string(" ") + sc.policy : "") +
                                     (in_place ? " in-place" : " out-of-place");
            auto call = [&](void* temp, std::size_t& bytes, const std::uint32_t* in, std::uint32_t* out,
                            auto segments) {
              if (exclusive)
                return ss::cuda::segmented_exclusive_scan(temp, bytes, in, out, n, segments, init, add_u32{}, nullptr,
                                                          opt);
              return ss::cuda::segmented_inclusive_scan_init(temp, bytes, in, out, n, segments, add_u32{}, init,
                                                             nullptr, opt);
            };
            const scan_form form{exclusive, backward, true};
            // The description comes first in the arena, made anew per case
            // (run_scan_case takes its buffers after it).
            arena.reset();
            auto* flags = arena.take<unsigned char>(desc == 0 ? n : 0, false);
            auto* words = arena.take<std::uint32_t>(desc == 1 ? (n + 31) / 32 : 0, false);
            auto* offsets = arena.take<std::int64_t>(desc == 2 ? sh.count() + 1 : 0, false);
            if (!flags || !words || !offsets) {
              sw::case_log::skipped(name);
              continue;
            }
            fill_segments<<<8192, 256>>>(sh, desc == 2 ? offsets : nullptr, desc == 0 ? flags : nullptr,
                                         desc == 1 ? words : nullptr);
            STREAMSCAN_TEST_CUDA(cudaGetLastError());
            auto run = [&](auto segments) {
              run_scan_case<std::uint32_t>(
                  arena, name, n, in_place, form, init, true, add_u32{}, sh,
                  [&](void* t, std::size_t& b, const std::uint32_t* in, std::uint32_t* out) {
                    return call(t, b, in, out, segments);
                  },
                  rng(), /*reset=*/false);
            };
            if (desc == 0) run(ss::head_flags(static_cast<const unsigned char*>(flags)));
            if (desc == 1) run(ss::head_bits(static_cast<const std::uint32_t*>(words)));
            if (desc == 2) run(ss::segment_offsets{static_cast<const std::int64_t*>(offsets), sh.count()});
          }
  }
}

// ---- segmented reduction, enumerate, distribute ----

__global__ void naive_segment_sums(segments_shape sh, std::uint64_t salt, std::uint32_t init, const std::uint32_t* got,
                                   unsigned long long* counts) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < sh.count();
       k += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint32_t sum = init;
    for (std::int64_t i = sh.start(k); i < sh.start(k + 1); ++i) sum += value_at<std::uint32_t>(salt, i);
    if (got[k] != sum) atomicAdd(counts + wrong_output, 1ull);
  }
}

TEST_F(sweep_scan, segmented_reduce) {
  auto rng = st::make_rng("sweep_scan_reduce");
  sw::arena arena;
  const std::uint32_t init = 5;
  for (const std::int64_t n : sw::sizes()) {
    const segments_shape sh{n, 3001, rng()};
    const std::int64_t m = sh.count();
    for (int desc = 0; desc < 3; ++desc) {
      const char* desc_name[] = {"flags", "bits", "offsets"};
      const std::string name = std::string("segmented_reduce ") + desc_name[desc] + " n=" + sw::log2_name(n);
      SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
      arena.reset();
      const std::uint64_t salt = rng();
      auto* in = arena.take<std::uint32_t>(n);
      auto* out = arena.take<std::uint32_t>(m);
      auto* flags = arena.take<unsigned char>(desc == 0 ? n : 0, false);
      auto* words = arena.take<std::uint32_t>(desc == 1 ? (n + 31) / 32 : 0, false);
      auto* offsets = arena.take<std::int64_t>(desc == 2 ? m + 1 : 0, false);
      auto* num = arena.take<std::int64_t>(1, false);
      if (!in || !out || !flags || !words || !offsets || !num) {
        sw::case_log::skipped(name);
        continue;
      }
      const sw::case_log log(name);
      fill_values<std::uint32_t><<<8192, 256>>>(in, n, salt);
      fill_segments<<<8192, 256>>>(sh, desc == 2 ? offsets : nullptr, desc == 0 ? flags : nullptr,
                                   desc == 1 ? words : nullptr);
      STREAMSCAN_TEST_CUDA(cudaMemset(out, st::poison_byte, static_cast<std::size_t>(m) * 4));
      auto call = [&](auto segments) {
        return sw::run_two_phase(arena, [&](void* t, std::size_t& b) {
          return ss::cuda::segmented_reduce(t, b, static_cast<const std::uint32_t*>(in), out, n, segments, init,
                                            add_u32{}, nullptr, num);
        });
      };
      const bool ran = desc == 0   ? call(ss::head_flags(static_cast<const unsigned char*>(flags)))
                       : desc == 1 ? call(ss::head_bits(static_cast<const std::uint32_t*>(words)))
                                   : call(ss::segment_offsets{static_cast<const std::int64_t*>(offsets), m});
      if (!ran) {
        sw::case_log::skipped(name);
        continue;
      }
      std::int64_t reported = 0;
      STREAMSCAN_TEST_CUDA(cudaMemcpy(&reported, num, sizeof reported, cudaMemcpyDeviceToHost));
      EXPECT_EQ(reported, m) << "num_segments";
      sw::counters counts(counter_count);
      naive_segment_sums<<<sw::grid_for(m), 256>>>(sh, salt, init, out, counts.get());
      STREAMSCAN_TEST_CUDA(cudaGetLastError());
      EXPECT_EQ(counts.read()[wrong_output], 0u) << "segments whose sum differs from the naive loop's";
      EXPECT_TRUE(sw::guard_intact(out, m)) << "bytes after the output written";
      log.done(!::testing::Test::HasFailure());
    }
  }
}

// enumerate (uint64 ranks of the true flags) and distribute (each segment's
// head value), unsegmented and by head flags.
__global__ void check_enumerate(const std::uint64_t* out, const unsigned char* flags, std::int64_t n,
                                segments_shape sh, bool segmented, unsigned long long* counts) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const bool restart = i == 0 || (segmented && sh.head(i));
    const std::uint64_t want = restart ? 0 : out[i - 1] + (flags[i - 1] != 0);
    if (out[i] != want) atomicAdd(counts + wrong_output, 1ull);
  }
}
__global__ void check_distribute(const std::uint32_t* out, std::int64_t n, std::uint64_t salt, segments_shape sh,
                                 unsigned long long* counts) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t want = sh.head(i) ? value_at<std::uint32_t>(salt, i) : out[i - 1];
    if (out[i] != want) atomicAdd(counts + wrong_output, 1ull);
  }
}
__global__ void fill_flags(unsigned char* flags, std::int64_t n, std::uint64_t salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    flags[i] = sw::hash64(salt, i) % 3 == 0;
}

TEST_F(sweep_scan, enumerate_and_distribute) {
  auto rng = st::make_rng("sweep_scan_enumerate");
  sw::arena arena;
  for (const std::int64_t n : sw::sizes())
    for (const bool segmented : {false, true}) {
      const segments_shape sh{n, 3001, rng()};
      const std::uint64_t salt = rng();
      {
        const std::string name = std::string("enumerate ") + (segmented ? "by head flags" : "whole") +
                                 " n=" + sw::log2_name(n);
        SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
        arena.reset();
        auto* flags = arena.take<unsigned char>(n);
        auto* heads = arena.take<unsigned char>(n);
        auto* out = arena.take<std::uint64_t>(n);
        if (!flags || !heads || !out) {
          sw::case_log::skipped(name);
        } else {
          const sw::case_log log(name);
          fill_flags<<<8192, 256>>>(flags, n, salt);
          fill_segments<<<8192, 256>>>(sh, nullptr, heads, nullptr);
          const bool ran = sw::run_two_phase(arena, [&](void* t, std::size_t& b) {
            const auto* f = static_cast<const unsigned char*>(flags);
            return segmented ? ss::cuda::enumerate(t, b, f, out, n, ss::head_flags(static_cast<const unsigned char*>(heads)))
                             : ss::cuda::enumerate(t, b, f, out, n, ss::no_segments{});
          });
          if (ran) {
            sw::counters counts(counter_count);
            check_enumerate<<<sw::grid_for(n), 256>>>(out, flags, n, sh, segmented, counts.get());
            EXPECT_EQ(counts.read()[wrong_output], 0u) << "wrong ranks";
            EXPECT_TRUE(sw::guard_intact(out, n)) << "bytes after the output written";
            log.done(!::testing::Test::HasFailure());
          } else {
            sw::case_log::skipped(name);
          }
        }
      }
      if (!segmented) continue;
      const std::string name = "distribute by head flags n=" + sw::log2_name(n);
      SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
      arena.reset();
      auto* heads = arena.take<unsigned char>(n);
      auto* in = arena.take<std::uint32_t>(n);
      auto* out = arena.take<std::uint32_t>(n);
      if (!heads || !in || !out) {
        sw::case_log::skipped(name);
        continue;
      }
      const sw::case_log log(name);
      fill_segments<<<8192, 256>>>(sh, nullptr, heads, nullptr);
      fill_values<std::uint32_t><<<8192, 256>>>(in, n, salt);
      if (!sw::run_two_phase(arena, [&](void* t, std::size_t& b) {
            return ss::cuda::distribute(t, b, static_cast<const std::uint32_t*>(in), out, n,
                                        ss::head_flags(static_cast<const unsigned char*>(heads)));
          })) {
        sw::case_log::skipped(name);
        continue;
      }
      sw::counters counts(counter_count);
      check_distribute<<<sw::grid_for(n), 256>>>(out, n, salt, sh, counts.get());
      EXPECT_EQ(counts.read()[wrong_output], 0u) << "elements that are not their segment's head value";
      EXPECT_TRUE(sw::guard_intact(out, n)) << "bytes after the output written";
      log.done(!::testing::Test::HasFailure());
    }
}

}  // namespace
