// `streamscan bench --primitives sort` on the GPU: radix_sort_keys /
// radix_sort_pairs (onesweep, split, the double-buffer form) and quicksort
// against memcpy, CUB DeviceRadixSort (32- and 64-bit num_items) and
// thrust::sort, in one process on the same keys, for every size, key type and
// key distribution. Every output must equal CUB's bit for bit (the values too:
// both sorts are stable).
//
// A group ("uint32/and3") is a key type and a distribution: uniform random
// keys; andK, each key the AND of K uniform words (the entropy reduction of
// the radix-sort literature: fewer distinct keys, longer runs of equal
// digits); sorted, uniform keys already in order. Pairs ("uint32+uint32") carry
// each key's input position as its value.
//
// GB/s counts the bytes a call must move per key, for K key and V value bytes:
//   memcpy                           2(K + V): one read and one write;
//   radix sorts with P = bits/8      (2P + 1)K + 2PV: one histogram read of
//   digit passes (CUB, thrust::sort,   the keys, then each pass reads and
//   onesweep, double_buffer)           writes every key and value;
//   split, one split per key bit     2B(K + V) for B key bits;
//   quicksort, std::sort             2K, the least any sort moves (their
//                                      passes depend on the data).
// Before each timed run, untimed: the outputs are poisoned, what an in-place
// call sorted is restored, and the L2 is flushed, so that every run starts
// from the same state and no size is timed out of the cache.
//
// --seed-table adds [ScanPrimitives]' sort table (4M keys there): uniform
// uint32 keys at 2^22 and 2^28, global split radix sort, quicksort and the
// host's std::sort (one run), with onesweep and CUB for scale.
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/cuda/device/device_sort.cuh>

#include "gpu_buffers.cuh"
#include "tool.hpp"

namespace streamscan_tool {
namespace {

struct keys_only {};  // the value type of a keys-only sort

constexpr int digit_bits = 8;  // the digit of the radix byte count above

// Word j of key i: splitmix64's finalizer of (i, j).
__device__ std::uint64_t key_word(std::int64_t i, int j, std::uint64_t seed) {
  std::uint64_t h = static_cast<std::uint64_t>(i) * 4 + static_cast<std::uint64_t>(j) + 1;
  h = h * 0x9E3779B97F4A7C15ull ^ seed;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

// keys[i] = the AND of `words` (1..4) uniform words. Float keys take the same
// bits with NaN and infinity made finite (the exponent's low bit cleared) and
// -0.0 made +0.0: CUB sorts -0.0 as equal to +0.0 and streamscan before it
// (sort.hpp), and NaN has no order under quicksort's `<`.
template <class K>
__global__ void fill_keys_kernel(K* keys, std::int64_t n, int words, std::uint64_t seed) {
  using U = typename streamscan::radix_key_traits<K>::bits_type;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t w = ~std::uint64_t{0};
    for (int j = 0; j < words; ++j) w &= key_word(i, j, seed);
    U u = static_cast<U>(w >> (64 - 8 * sizeof(U)));
    if constexpr (std::is_same_v<K, float>) {
      if ((u & 0x7f800000u) == 0x7f800000u) u &= ~0x00800000u;
      if (u == 0x80000000u) u = 0;
      keys[i] = __uint_as_float(u);
    } else {
      keys[i] = static_cast<K>(u);
    }
  }
}

template <class V>
__global__ void positions_kernel(V* values, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    values[i] = static_cast<V>(i);
}

__global__ void l2_flush_kernel(const int4* p, std::int64_t n, int* sink) {
  int acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 1) *sink = acc;  // never (the buffer is zero); keeps the loads
}

// Reads four times the L2's size: afterwards nothing a timed call uses is in
// L2, and no dirty line of the last call waits there to be written back.
class l2_flush {
 public:
  l2_flush() : words_(l2_bytes() * 4 / sizeof(int4)), buffer_(words_), sink_(1) {
    cuda_check(cudaMemset(buffer_.p, 0, words_ * sizeof(int4)), "cudaMemset (L2 flush buffer)");
  }
  void operator()() const {
    l2_flush_kernel<<<1024, 256>>>(buffer_.p, static_cast<std::int64_t>(words_), sink_.p);
    cuda_check(cudaGetLastError(), "l2_flush_kernel");
  }

 private:
  static std::size_t l2_bytes() {
    int device = 0, bytes = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device), "L2 cache size");
    return bytes > 0 ? static_cast<std::size_t>(bytes) : std::size_t{64} << 20;
  }
  std::size_t words_;
  device_array<int4> buffer_;
  device_array<int> sink_;
};

// One group of rows: a key type, a distribution, a size.
struct group {
  std::string keys;  // uint32, uint64, float, uint32+uint32 (pairs)
  std::string distribution;
  int log2n = 0;
  bool pairs = false;
  bool seed = false;  // the seed table's group (its own type name, its own algorithms)
  std::string type() const { return keys + "/" + (seed ? "seed003" : distribution); }
};

constexpr int slow_log2n = 24;  // split and quicksort above this only when named

// The rows a group runs, in order. Split and quicksort (one pass per key bit;
// many rounds) stop at 2^24 unless named; quicksort sorts keys only.
std::vector<std::string> plan(const bench_options& o, const group& g) {
  const bool int32_fits = (std::int64_t{1} << g.log2n) <= INT_MAX;
  if (g.seed) {
    std::vector<std::string> rows{"memcpy"};
    if (int32_fits) rows.push_back("cub int32");
    for (const char* a : {"cub int64", "onesweep", "split", "quicksort first", "quicksort middle", "std::sort"})
      rows.push_back(a);
    return rows;
  }
  auto slow_ok = [&](const char* a) { return g.log2n <= slow_log2n || (o.algorithms_given && wants(o, a)); };
  std::vector<std::string> rows;
  if (wants(o, "memcpy")) rows.push_back("memcpy");
  if (wants(o, "cub")) {
    if (int32_fits) rows.push_back("cub int32");
    rows.push_back("cub int64");
  }
  for (const char* a : {"thrust", "onesweep", "double_buffer"})
    if (wants(o, a)) rows.push_back(a);
  if (wants(o, "split") && slow_ok("split")) rows.push_back("split");
  if (wants(o, "quicksort") && !g.pairs && slow_ok("quicksort")) {
    rows.push_back("quicksort first");
    rows.push_back("quicksort middle");
  }
  return rows;
}

// Calls f(type_tag<K>, type_tag<V>) for a --key-types name (V = keys_only: keys only).
template <class F>
void visit_key_type(const std::string& name, F&& f) {
  if (name == "uint32") f(type_tag<std::uint32_t>{}, type_tag<keys_only>{});
  else if (name == "uint64") f(type_tag<std::uint64_t>{}, type_tag<keys_only>{});
  else if (name == "float") f(type_tag<float>{}, type_tag<keys_only>{});
  else if (name == "pairs") f(type_tag<std::uint32_t>{}, type_tag<std::uint32_t>{});
  else throw std::invalid_argument("unknown key type '" + name + "'");
}

std::string key_label(const std::string& name) { return name == "pairs" ? "uint32+uint32" : name; }

int and_words(const std::string& distribution) {
  if (distribution == "and2") return 2;
  if (distribution == "and3") return 3;
  if (distribution == "and4") return 4;
  return 1;  // uniform, sorted
}

template <class K, class V>
void bench_group(const bench_options& o, const group& g, const l2_flush& flush, bench_report& rep, progress& bar) {
  constexpr bool pairs = !std::is_same_v<V, keys_only>;
  using U = typename streamscan::radix_key_traits<K>::bits_type;
  const std::int64_t n = std::int64_t{1} << g.log2n;
  const std::string type = g.type();
  const std::string where = type + " 2^" + std::to_string(g.log2n) + " ";
  const std::vector<std::string> rows = plan(o, g);
  auto has = [&](const char* a) { return std::find(rows.begin(), rows.end(), a) != rows.end(); };

  // Keys and values: input, reference, output, alternate (double_buffer);
  // then one temp at a time: a radix sort's about a copy of the keys and
  // values (thrust's two), quicksort's about 36 bytes and a key per key.
  const double kb = sizeof(K), vb = pairs ? sizeof(V) : 0;
  const std::size_t key_bytes = static_cast<std::size_t>(n) * sizeof(K);
  [[maybe_unused]] const std::size_t value_bytes = pairs ? static_cast<std::size_t>(n) * sizeof(V) : 0;
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const bool runs_quicksort = has("quicksort first") || has("quicksort middle");
  const double temp_per_key = std::max(2 * (kb + vb), runs_quicksort ? 36 + kb : 0);
  const double need = static_cast<double>(n) * (4 * (kb + vb) + temp_per_key) + double(std::size_t{512} << 20);
  if (need > static_cast<double>(free_b)) {
    const long long need_gib = static_cast<long long>(need / (1 << 30)) + 1;
    rep.skipped.push_back(type + " 2^" + std::to_string(g.log2n) + ": needs " + std::to_string(need_gib) + " GiB, " +
                          std::to_string(free_b >> 30) + " GiB free");
    for (const auto& a : rows) bar.step(where + a + " skipped");
    return;
  }
  const std::int64_t value_count = pairs ? n : 0;
  device_array<K> keys_in(n), keys_ref(n), keys_out(n), keys_alt(n);
  device_array<V> values_in(value_count), values_ref(value_count), values_out(value_count), values_alt(value_count);
  const K* kin = keys_in.p;
  const V* vin = values_in.p;

  // The input; for "sorted", uniform keys put in order (CUB).
  fill_keys_kernel<<<1024, 256>>>(keys_in.p, n, and_words(g.distribution), bench_seed);
  cuda_check(cudaGetLastError(), "fill_keys_kernel");
  if constexpr (pairs) {
    positions_kernel<<<1024, 256>>>(values_in.p, n);
    cuda_check(cudaGetLastError(), "positions_kernel");
  }
  if (g.distribution == "sorted") {
    std::size_t bytes = 0;
    cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, kin, keys_ref.p, n), "cub query");
    device_array<unsigned char> temp(bytes);
    cuda_check(cub::DeviceRadixSort::SortKeys(temp.p, bytes, kin, keys_ref.p, n), "sorting the input");
    cuda_check(cudaMemcpy(keys_in.p, keys_ref.p, key_bytes, cudaMemcpyDeviceToDevice), "copy");
  }

  // CUB, num_items of 32 or 64 bits (its type picks CUB's offset type); the
  // 64-bit call's output is the reference.
  auto cub_sort = [&](void* t, std::size_t& b, auto num_items, K* kout, V* vout) {
    if constexpr (pairs) return cub::DeviceRadixSort::SortPairs(t, b, kin, kout, vin, vout, num_items);
    else return cub::DeviceRadixSort::SortKeys(t, b, kin, kout, num_items);
  };
  {
    std::size_t bytes = 0;
    cuda_check(cub_sort(nullptr, bytes, n, keys_ref.p, values_ref.p), "cub query");
    device_array<unsigned char> temp(bytes);
    cuda_check(cub_sort(temp.p, bytes, n, keys_ref.p, values_ref.p), "cub reference");
    cuda_check(cudaDeviceSynchronize(), "cub reference");
  }
  // Keys compare as bits (float too), values exactly.
  auto matches = [&](const K* keys, const V* values) {
    bool ok = device_equal(reinterpret_cast<const U*>(keys), reinterpret_cast<const U*>(keys_ref.p), n);
    if constexpr (pairs) ok = ok && device_equal(values, static_cast<const V*>(values_ref.p), n);
    return ok;
  };

  auto poison = [&](K* keys, V* values) {
    cuda_check(cudaMemsetAsync(keys, 0xA7, key_bytes), "cudaMemsetAsync (poison)");
    if constexpr (pairs) cuda_check(cudaMemsetAsync(values, 0xA7, value_bytes), "cudaMemsetAsync (poison)");
  };
  auto copy_input_to = [&](K* keys, V* values) {
    cuda_check(cudaMemcpyAsync(keys, kin, key_bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync (input)");
    if constexpr (pairs)
      cuda_check(cudaMemcpyAsync(values, vin, value_bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync (input)");
  };
  // The timing of run(); before each run, untimed: the outputs poisoned,
  // then prepare() (restores what the last run overwrote), then the L2 flush.
  auto timed = [&](const std::string& what, auto prepare, auto run) {
    bar.step(where + what);
    return median_ms(o.repeat, [&](int) { run(); }, nullptr, [&](int) {
      poison(keys_out.p, values_out.p);
      prepare();
      flush();
    });
  };
  auto nothing = [] {};
  auto add = [&](const std::string& algorithm, const std::string& policy, double bytes, const timing& ms, bool ok) {
    rep.rows.push_back({type, g.log2n, n, algorithm, policy, ms, bytes, ok, 0, 0});
  };

  const int key_bits = 8 * static_cast<int>(sizeof(K));
  const int digit_passes = (key_bits + digit_bits - 1) / digit_bits;
  const double nd = static_cast<double>(n);
  const double copy_bytes = nd * 2 * (kb + vb);
  const double radix_bytes = nd * ((2.0 * digit_passes + 1) * kb + 2.0 * digit_passes * vb);
  const double split_bytes = nd * 2 * key_bits * (kb + vb);
  const double least_bytes = nd * 2 * kb;

  if (has("memcpy")) {
    const timing ms = timed("memcpy", nothing, [&] { copy_input_to(keys_out.p, values_out.p); });
    add("memcpy", "-", copy_bytes, ms, true);
  }

  const std::string cub_name = pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys";
  const std::size_t first_cub = rep.rows.size();
  auto cub_row = [&](auto num_items, const char* what) {
    std::size_t bytes = 0;
    cuda_check(cub_sort(nullptr, bytes, num_items, keys_out.p, values_out.p), "cub query");
    device_array<unsigned char> temp(bytes);
    const timing ms = timed(std::string("cub ") + what, nothing, [&] {
      cuda_check(cub_sort(temp.p, bytes, num_items, keys_out.p, values_out.p), "cub");
    });
    add(cub_name, std::string(what) + " num_items", radix_bytes, ms, matches(keys_out.p, values_out.p));
  };
  if (has("cub int32")) cub_row(static_cast<int>(n), "int32");
  if (has("cub int64")) cub_row(n, "int64");
  if (rep.rows.size() == first_cub + 2) {  // mark the faster: the speedups compare with it
    bench_row& a = rep.rows[first_cub];
    bench_row& b = rep.rows[first_cub + 1];
    (a.ms() <= b.ms() ? a : b).policy += " (faster)";
  }

  if (has("thrust")) {
    const timing ms = timed("thrust", [&] { copy_input_to(keys_out.p, values_out.p); }, [&] {
      if constexpr (pairs) thrust::sort_by_key(thrust::device, keys_out.p, keys_out.p + n, values_out.p);
      else thrust::sort(thrust::device, keys_out.p, keys_out.p + n);
    });
    add(pairs ? "thrust::sort_by_key" : "thrust::sort", "-", radix_bytes, ms, matches(keys_out.p, values_out.p));
  }

  const std::string ours = pairs ? "radix_sort_pairs" : "radix_sort_keys";
  auto radix_row = [&](streamscan::sort_strategy strategy, double bytes) {
    const streamscan::sort_options opt{strategy};
    auto call = [&](void* t, std::size_t& b) {
      if constexpr (pairs)
        return streamscan::cuda::radix_sort_pairs(t, b, kin, keys_out.p, vin, values_out.p, n, nullptr, opt);
      else return streamscan::cuda::radix_sort_keys(t, b, kin, keys_out.p, n, nullptr, opt);
    };
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(call(nullptr, temp_bytes));
    device_array<unsigned char> temp(temp_bytes);
    const std::string name = ours + " " + streamscan::to_string(strategy);
    const timing ms = timed(name, nothing, [&] { streamscan::throw_if_error(call(temp.p, temp_bytes)); });
    add(name, "-", bytes, ms, matches(keys_out.p, values_out.p));
  };
  if (has("onesweep")) radix_row(streamscan::sort_strategy::onesweep, radix_bytes);

  if (has("double_buffer")) {
    // The default strategy between the caller's two buffers: no copy of the
    // keys in temp. Each run starts from the input in buffer 0.
    streamscan::double_buffer<K> dkeys(keys_out.p, keys_alt.p);
    streamscan::double_buffer<V> dvalues(values_out.p, values_alt.p);
    auto call = [&](void* t, std::size_t& b) {
      if constexpr (pairs) return streamscan::cuda::radix_sort_pairs(t, b, dkeys, dvalues, n, nullptr);
      else return streamscan::cuda::radix_sort_keys(t, b, dkeys, n, nullptr);
    };
    std::size_t temp_bytes = 0;
    streamscan::throw_if_error(call(nullptr, temp_bytes));
    device_array<unsigned char> temp(temp_bytes);
    const std::string name = ours + " double_buffer";
    const timing ms = timed(name, [&] {
      dkeys.selector = dvalues.selector = 0;
      copy_input_to(keys_out.p, values_out.p);
      poison(keys_alt.p, values_alt.p);
    }, [&] { streamscan::throw_if_error(call(temp.p, temp_bytes)); });
    add(name, "-", radix_bytes, ms, matches(dkeys.current(), dvalues.current()));
  }

  if (has("split")) radix_row(streamscan::sort_strategy::split, split_bytes);

  if constexpr (!pairs) {
    auto quicksort_row = [&](streamscan::pivot_rule pivot, const char* rule) {
      const streamscan::quicksort_options opt{pivot};
      std::size_t temp_bytes = 0;
      streamscan::throw_if_error(streamscan::cuda::quicksort(nullptr, temp_bytes, kin, keys_out.p, n, nullptr, opt));
      device_array<unsigned char> temp(temp_bytes);
      const std::string name = std::string("quicksort ") + rule;
      const timing ms = timed(name, nothing, [&] {
        streamscan::throw_if_error(streamscan::cuda::quicksort(temp.p, temp_bytes, kin, keys_out.p, n, nullptr, opt));
      });
      add(name, "-", least_bytes, ms, matches(keys_out.p, values_out.p));
    };
    if (has("quicksort first")) quicksort_row(streamscan::pivot_rule::first, "first");
    if (has("quicksort middle")) quicksort_row(streamscan::pivot_rule::middle, "middle");

    if (has("std::sort")) {  // on the host, one run
      bar.step(where + "std::sort");
      std::vector<K> keys(static_cast<std::size_t>(n)), expect(static_cast<std::size_t>(n));
      cuda_check(cudaMemcpy(keys.data(), kin, key_bytes, cudaMemcpyDeviceToHost), "copy to host");
      cuda_check(cudaMemcpy(expect.data(), keys_ref.p, key_bytes, cudaMemcpyDeviceToHost), "copy to host");
      const auto start = std::chrono::steady_clock::now();
      std::sort(keys.begin(), keys.end());
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      add("std::sort (host, one run)", "-", least_bytes, timing::once(ms), keys == expect);
    }
  }
  cuda_check(cudaDeviceSynchronize(), "sort bench");
}

template <class F>
void for_each_group(const bench_options& o, F&& f) {
  for (const auto& keys : o.key_types)
    for (const auto& distribution : o.distributions)
      for (const int e : o.log2_sizes) f(group{key_label(keys), distribution, e, keys == "pairs", false}, keys);
  if (o.seed_table)
    for (const int e : {22, 28}) f(group{"uint32", "uniform", e, false, true}, std::string("uint32"));
}

// Bits of entropy of a key of `bits` bits, each the AND of `words` uniform bits.
double entropy_bits(int bits, int words) {
  const double p = std::ldexp(1.0, -words);
  return bits * (-p * std::log2(p) - (1 - p) * std::log2(1 - p));
}

void add_notes(bench_report& rep) {
  char line[256];
  rep.notes.push_back("sort groups are KEYS/DISTRIBUTION. uniform: uniform random keys; andK: each key the AND of K");
  std::snprintf(line, sizeof line,
                "  uniform words (and2, and3, and4: %.2f, %.2f, %.2f bits of entropy per 32-bit key; %.2f,",
                entropy_bits(32, 2), entropy_bits(32, 3), entropy_bits(32, 4), entropy_bits(64, 2));
  rep.notes.push_back(line);
  std::snprintf(line, sizeof line,
                "  %.2f, %.2f per 64-bit); sorted: uniform keys in order. uint32+uint32: pairs, each value its",
                entropy_bits(64, 3), entropy_bits(64, 4));
  rep.notes.push_back(line);
  for (const char* text : {
           "  key's input position. float keys: random bits as float, NaN and inf made finite, -0.0 made +0.0.",
           "sort GB/s counts per key, for K key and V value bytes: memcpy 2(K+V); radix sorts with P = key",
           "  bits / 8 digit passes (CUB, thrust, onesweep, double_buffer) (2P+1)K + 2PV; split, a split per",
           "  key bit (B bits), 2B(K+V); quicksort and std::sort 2K, the least any sort moves. Gelem/s: keys/s.",
           "sort timing: before each run, untimed, the outputs are poisoned, thrust's and double_buffer's",
           "  input restored and the L2 flushed. verified: keys equal CUB's bit for bit, values too.",
       })
    rep.notes.push_back(text);
  std::snprintf(line, sizeof line,
                "  onesweep is the default strategy (automatic); split and quicksort run up to 2^%d unless named",
                slow_log2n);
  rep.notes.push_back(line);
  rep.notes.push_back("  in --algorithms; quicksort sorts keys only, with the first or the middle key as pivot.");
}

// [ScanPrimitives]' table (section 4.1, "Sort") on this GPU, from the seed rows.
void add_seed_table(bench_report& rep) {
  struct entry {
    const char* algorithm;  // the row's
    const char* label;
    const char* short_label;
  };
  const entry entries[] = {
      {"radix_sort_keys split", "GPU global split radix sort", "split radix"},
      {"quicksort first", "GPU quicksort (segmented scans), first-key pivot", "quicksort first"},
      {"quicksort middle", "GPU quicksort (segmented scans), middle-key pivot", "quicksort middle"},
      {"std::sort (host, one run)", "CPU std::sort (one run)", "std::sort"},
      {"radix_sort_keys onesweep", "streamscan's default radix sort (onesweep)", "onesweep"},
      {"cub::DeviceRadixSort::SortKeys", "CUB DeviceRadixSort::SortKeys (the faster)", "CUB"},
  };
  auto ms_of = [&](const std::string& algorithm, int log2n) {  // 0: not measured
    double best = 0;
    for (const auto& r : rep.rows)
      if (r.type == "uint32/seed003" && r.log2n == log2n && r.algorithm == algorithm && (best == 0 || r.ms() < best))
        best = r.ms();
    return best;
  };
  auto cell = [](double ms) {
    char text[32] = "-";
    if (ms > 0) std::snprintf(text, sizeof text, "%.3f", ms);
    return std::string(text);
  };
  rep.notes.push_back("");
  rep.notes.push_back("seed 003's sort table ('Scan Primitives for GPU Computing': 4M 32-bit keys) on this machine,");
  rep.notes.push_back("uniform uint32 keys (the rows uint32/seed003 above), median ms:");
  char line[256];
  std::snprintf(line, sizeof line, "  %-50s %12s %12s", "algorithm", "2^22 (4M)", "2^28");
  rep.notes.push_back(line);
  for (const entry& e : entries) {
    std::snprintf(line, sizeof line, "  %-50s %12s %12s", e.label, cell(ms_of(e.algorithm, 22)).c_str(),
                  cell(ms_of(e.algorithm, 28)).c_str());
    rep.notes.push_back(line);
  }
  for (const int log2n : {22, 28}) {
    std::vector<std::pair<double, std::string>> order;
    for (const entry& e : entries)
      if (const double ms = ms_of(e.algorithm, log2n); ms > 0) order.emplace_back(ms, e.short_label);
    std::sort(order.begin(), order.end());
    std::string text = "  fastest first at 2^" + std::to_string(log2n) + ":";
    for (std::size_t i = 0; i < order.size(); ++i) text += (i ? " < " : " ") + order[i].second;
    rep.notes.push_back(text);
  }
  rep.notes.push_back("  the paper's order: GPU global radix < GPU radix/merge < CPU STL sort < CPU quicksort <");
  rep.notes.push_back("  GPU quicksort/merge (its per-block sorts with a merge are not built here; C's qsort not run)");
}

}  // namespace

int gpu_bench_sort(const bench_options& o, bench_report& rep) {
  warm_up_gpu();
  rep.repeat = o.repeat;
  const l2_flush flush;
  int steps = 0;
  for_each_group(o, [&](const group& g, const std::string&) { steps += static_cast<int>(plan(o, g).size()); });
  progress bar(o.progress, steps);
  for_each_group(o, [&](const group& g, const std::string& keys) {
    visit_key_type(keys, [&](auto k, auto v) {
      bench_group<typename decltype(k)::type, typename decltype(v)::type>(o, g, flush, rep, bar);
    });
  });
  bar.done();
  add_notes(rep);
  if (o.seed_table) add_seed_table(rep);
  return all_verified(rep) ? 0 : 1;
}

}  // namespace streamscan_tool
