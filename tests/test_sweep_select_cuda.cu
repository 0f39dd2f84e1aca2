// Compaction, partition and split, and the quicksort, in the size sweep
// (sweep::sizes). Each input element is its own index (uint32 below 2^32
// elements, so that the 4-byte kernels run; uint64 past it) and the
// predicate or flag is a hash of it, so a device check can prove an output
// exact: the selected part must hold indices that rise strictly, each
// selected, as many as the predicate holds for (so: every selected element,
// once, in input order); partition's rejected part falls strictly (reverse
// input order), stable_partition's and split's rise. The unordered
// compaction strategies (hybrid, warp_atomic) are checked as sets through a
// bitmap. Guard bytes after every output; the input unchanged.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"
#include "common/sweep.cuh"

namespace {
namespace ss = streamscan;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

// About a quarter of the elements: a hash of the index, so that runs of
// selected and rejected elements have every length.
struct hashed_pick {
  std::uint64_t salt;
  __host__ __device__ bool operator()(std::uint64_t index) const { return (sw::hash64(salt, index) & 255u) < 64u; }
};

template <class T>
__global__ void fill_indices(T* out, unsigned char* flags, std::int64_t n, hashed_pick pick) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<T>(i);
    if (flags) flags[i] = pick(static_cast<std::uint64_t>(i)) ? 1 : 0;
  }
}

enum counter { wrong_part, wrong_order, changed_input, picked, repeated, counter_count };

__global__ void count_picked(std::int64_t n, hashed_pick pick, unsigned long long* counts) {
  unsigned long long c = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    c += pick(static_cast<std::uint64_t>(i));
  if (c) atomicAdd(counts + picked, c);
}

// out[begin, end): every element picked == want_picked, indices in [0, n),
// rising strictly (falling if `falling`).
template <class T>
__global__ void check_part(const T* out, std::int64_t begin, std::int64_t end, std::int64_t n, hashed_pick pick,
                           bool want_picked, bool falling, unsigned long long* counts) {
  unsigned long long part = 0, order = 0;
  for (std::int64_t j = begin + blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < end;
       j += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t v = out[j];
    if (v >= static_cast<std::uint64_t>(n) || pick(v) != want_picked) ++part;
    if (j > begin) {
      const std::uint64_t u = out[j - 1];
      if (falling ? !(u > v) : !(u < v)) ++order;
    }
  }
  if (part) atomicAdd(counts + wrong_part, part);
  if (order) atomicAdd(counts + wrong_order, order);
}

// The unordered strategies: each output marks its index in a bitmap; a
// second mark, an unpicked or out-of-range index count as errors.
template <class T>
__global__ void mark_set(const T* out, std::int64_t k, std::int64_t n, hashed_pick pick, unsigned* bitmap,
                         unsigned long long* counts) {
  for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < k;
       j += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t v = out[j];
    if (v >= static_cast<std::uint64_t>(n) || !pick(v)) {
      atomicAdd(counts + wrong_part, 1ull);
      continue;
    }
    const unsigned bit = 1u << (v % 32);
    if (atomicOr(bitmap + v / 32, bit) & bit) atomicAdd(counts + repeated, 1ull);
  }
}

template <class T>
__global__ void check_indices_unchanged(const T* in, std::int64_t n, unsigned long long* counts) {
  unsigned long long c = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    c += static_cast<std::uint64_t>(in[i]) != static_cast<std::uint64_t>(i);
  if (c) atomicAdd(counts + changed_input, c);
}

enum class call_kind { select_if, select_flagged, select_indices, partition, stable_partition, split };
const char* to_string(call_kind k) {
  switch (k) {
    case call_kind::select_if: return "select_if";
    case call_kind::select_flagged: return "select_flagged";
    case call_kind::select_indices: return "select_indices";
    case call_kind::partition: return "partition";
    case call_kind::stable_partition: return "stable_partition";
    default: return "split";
  }
}

struct select_case {
  call_kind kind;
  ss::select_options opt;
};

template <class T>
void run_select_case(sw::arena& arena, std::int64_t n, const select_case& c, std::uint64_t salt) {
  const bool unordered =
      c.opt.strategy == ss::select_strategy::hybrid || c.opt.strategy == ss::select_strategy::warp_atomic;
  const std::string name = std::string(to_string(c.kind)) + " " + (sizeof(T) == 4 ? "uint32" : "uint64") +
                           " n=" + sw::log2_name(n) + " " + ss::to_string(c.opt.strategy) +
                           (c.opt.policy ? std::string(" ") + c.opt.policy : "");
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
  const bool flagged =
      c.kind == call_kind::select_flagged || c.kind == call_kind::select_indices || c.kind == call_kind::split;
  const hashed_pick pick{salt};
  arena.reset();
  T* in = arena.take<T>(n);
  T* out = arena.take<T>(n);
  unsigned char* flags = flagged ? arena.take<unsigned char>(n) : nullptr;
  auto* num = arena.take<std::int64_t>(1, false);
  unsigned* bitmap = unordered ? arena.take<unsigned>((n + 31) / 32, false) : nullptr;
  if (!in || !out || (flagged && !flags) || !num || (unordered && !bitmap)) return sw::case_log::skipped(name);
  const sw::case_log log(name);
  fill_indices<T><<<8192, 256>>>(in, flags, n, pick);
  STREAMSCAN_TEST_CUDA(cudaMemset(out, st::poison_byte, static_cast<std::size_t>(n) * sizeof(T)));
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const T* src = in;
  const unsigned char* f = flags;
  const bool ran = sw::run_two_phase(arena, [&](void* t, std::size_t& b) {
    switch (c.kind) {
      case call_kind::select_if: return ss::cuda::select_if(t, b, src, out, n, n, num, pick, nullptr, c.opt);
      case call_kind::select_flagged: return ss::cuda::select_flagged(t, b, src, f, out, n, n, num, nullptr, c.opt);
      case call_kind::select_indices: return ss::cuda::select_indices(t, b, f, out, n, n, num, nullptr, c.opt);
      case call_kind::partition: return ss::cuda::partition(t, b, src, out, n, num, pick, nullptr, c.opt);
      case call_kind::stable_partition:
        return ss::cuda::stable_partition(t, b, src, out, n, num, pick, nullptr, c.opt);
      default: return ss::cuda::split(t, b, src, f, out, n, num, nullptr, c.opt);
    }
  });
  if (!ran) return sw::case_log::skipped(name);
  std::int64_t k = 0;
  STREAMSCAN_TEST_CUDA(cudaMemcpy(&k, num, sizeof k, cudaMemcpyDeviceToHost));
  sw::counters counts(counter_count);
  count_picked<<<8192, 256>>>(n, pick, counts.get());
  const std::int64_t want = static_cast<std::int64_t>(counts.read()[picked]);
  const bool is_split = c.kind == call_kind::split;
  EXPECT_EQ(k, is_split ? n - want : want) << (is_split ? "num_false" : "num_selected");
  const int grid = sw::grid_for(n);
  if (unordered) {
    STREAMSCAN_TEST_CUDA(cudaMemset(bitmap, 0, static_cast<std::size_t>((n + 31) / 32) * 4));
    mark_set<T><<<grid, 256>>>(out, k, n, pick, bitmap, counts.get());
  } else if (is_split) {  // the false elements first, then the true ones, both in input order
    check_part<T><<<grid, 256>>>(out, 0, k, n, pick, false, false, counts.get());
    check_part<T><<<grid, 256>>>(out, k, n, n, pick, true, false, counts.get());
  } else {
    check_part<T><<<grid, 256>>>(out, 0, k, n, pick, true, false, counts.get());
    if (c.kind == call_kind::partition || c.kind == call_kind::stable_partition)
      check_part<T><<<grid, 256>>>(out, k, n, n, pick, false, c.kind == call_kind::partition, counts.get());
  }
  check_indices_unchanged<T><<<grid, 256>>>(in, n, counts.get());
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto got = counts.read();
  EXPECT_EQ(got[wrong_part], 0u) << "elements in the wrong part (or not indices)";
  EXPECT_EQ(got[wrong_order], 0u) << "neighbours out of input order";
  EXPECT_EQ(got[repeated], 0u) << "elements written twice";
  EXPECT_EQ(got[changed_input], 0u) << "input elements changed";
  const bool whole = c.kind == call_kind::partition || c.kind == call_kind::stable_partition || is_split;
  if (!whole && k < n) {  // compaction writes k elements: the one after them keeps its poison
    T after{};
    STREAMSCAN_TEST_CUDA(cudaMemcpy(&after, out + k, sizeof(T), cudaMemcpyDeviceToHost));
    T poison;
    std::memset(&poison, st::poison_byte, sizeof poison);
    EXPECT_EQ(after, poison) << "written past the selected";
  }
  EXPECT_TRUE(sw::guard_intact(out, n)) << "bytes after the output written";
  EXPECT_TRUE(sw::guard_intact(in, n)) << "bytes after the input written";
  log.done(!::testing::Test::HasFailure());
}

class sweep_select : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
  }
};

// Elements are uint32 indices below 2^32, uint64 past it.
template <class F>
void at_every_size(F run) {
  for (const std::int64_t n : sw::sizes()) {
    if (n < (std::int64_t{1} << 32))
      run(std::uint32_t{}, n);
    else
      run(std::uint64_t{}, n);
  }
}

TEST_F(sweep_select, compaction_strategies) {
  auto rng = st::make_rng("sweep_select_compaction");
  sw::arena arena;
  using S = ss::select_strategy;
  const ss::select_options options[] = {{S::automatic, nullptr}, {S::stable, "t512x8"}, {S::multi_level, nullptr},
                                        {S::hybrid, nullptr},    {S::warp_atomic, nullptr}};
  at_every_size([&](auto t, std::int64_t n) {
    for (const auto& opt : options) run_select_case<decltype(t)>(arena, n, {call_kind::select_if, opt}, rng());
  });
}

TEST_F(sweep_select, flagged_partition_and_split) {
  auto rng = st::make_rng("sweep_select_partition");
  sw::arena arena;
  const call_kind kinds[] = {call_kind::select_flagged, call_kind::select_indices, call_kind::partition,
                             call_kind::stable_partition, call_kind::split};
  at_every_size([&](auto t, std::int64_t n) {
    for (const call_kind k : kinds) run_select_case<decltype(t)>(arena, n, {k, {}}, rng());
  });
}

// ---- quicksort: (key, index) records ordered by the key alone ----

template <class I>
struct record {
  std::uint32_t key;
  I index;
};
struct key_less {
  template <class R>
  __host__ __device__ bool operator()(const R& a, const R& b) const {
    return a.key < b.key;
  }
};

template <class I>
__global__ void fill_records(record<I>* out, std::int64_t n, std::uint64_t salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = record<I>{static_cast<std::uint32_t>(sw::hash64(salt, i)), static_cast<I>(i)};
}

// Keys rise, equal keys keep rising indices (stable), each key is its
// index's: with n records, the input permuted.
template <class I>
__global__ void check_records(const record<I>* out, std::int64_t n, std::uint64_t salt, unsigned long long* counts) {
  unsigned long long part = 0, order = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const record<I> r = out[i];
    if (static_cast<std::uint64_t>(r.index) >= static_cast<std::uint64_t>(n) ||
        r.key != static_cast<std::uint32_t>(sw::hash64(salt, r.index)))
      ++part;
    if (i > 0) {
      const record<I> q = out[i - 1];
      if (q.key > r.key || (q.key == r.key && !(q.index < r.index))) ++order;
    }
  }
  if (part) atomicAdd(counts + wrong_part, part);
  if (order) atomicAdd(counts + wrong_order, order);
}

template <class I>
void run_quicksort_case(sw::arena& arena, std::int64_t n, bool in_place, std::uint64_t salt) {
  using R = record<I>;
  const std::string name = std::string("quicksort (uint32 key, ") + (sizeof(I) == 4 ? "uint32" : "uint64") +
                           " index) n=" + sw::log2_name(n) + (in_place ? " in-place" : " out-of-place");
  SCOPED_TRACE("seed " + std::to_string(st::global_seed()) + " " + name);
  arena.reset();
  R* in = arena.take<R>(n);
  R* out = in_place ? in : arena.take<R>(n);
  if (!in || !out) return sw::case_log::skipped(name);
  const sw::case_log log(name);
  fill_records<I><<<8192, 256>>>(in, n, salt);
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  if (!sw::run_two_phase(arena, [&](void* t, std::size_t& b) {
        return ss::cuda::quicksort(t, b, static_cast<const R*>(in), out, n, nullptr, {}, key_less{});
      }))
    return sw::case_log::skipped(name);
  sw::counters counts(counter_count);
  check_records<I><<<sw::grid_for(n), 256>>>(out, n, salt, counts.get());
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  const auto got = counts.read();
  EXPECT_EQ(got[wrong_part], 0u) << "records that are not the input's";
  EXPECT_EQ(got[wrong_order], 0u) << "records out of (stable) order";
  EXPECT_TRUE(sw::guard_intact(out, n)) << "bytes after the output written";
  log.done(!::testing::Test::HasFailure());
}

TEST_F(sweep_select, quicksort) {
  auto rng = st::make_rng("sweep_quicksort");
  sw::arena arena;
  bool in_place = false;
  for (const std::int64_t n : sw::sizes()) {
    if (n < (std::int64_t{1} << 32))
      run_quicksort_case<std::uint32_t>(arena, n, in_place, rng());
    else
      run_quicksort_case<std::uint64_t>(arena, n, in_place, rng());
    in_place = !in_place;
  }
}

}  // namespace
