// sort_shapes: the onesweep radix sort at several tile shapes (threads x keys
// per thread, blocks per SM) against CUB's DeviceRadixSort, on uniform
// random uint32 keys, uint64 keys and uint32/uint32 pairs at 2^20, 2^24 and
// 2^28, plus AND-of-3 (few distinct) and sorted uint32 keys at 2^28. Prints the median ms
// of CUB (the faster of 32- and 64-bit num_items) and of each shape with its
// ratio to CUB; "DIFFERS" marks an output that is not CUB's bit for bit. The
// fastest shape per row becomes tuning/sort.hpp's.
//   build/experiments/sort_shapes [repeat [log2 n [row]]]
// (log2 n 0: 20, 24 and 28; row: uint32, pairs, pairs_and3, uint64, and3 or sorted;
// default all).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_sort.cuh>

namespace {
namespace sd = streamscan::cuda::detail;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// o: the block asks for its own index's tile in L2 before its tile id (the
// library's default); without it the tile is loaded only once the id is known.
template <int Threads, int Items, int MinBlocks, bool Prefetch = true>
struct shape {
  static constexpr streamscan::tuning::onesweep_shape sort{Threads, Items, 8, MinBlocks, Prefetch};
  static constexpr streamscan::tuning::radix_histogram_shape histogram = streamscan::tuning::radix_histogram_shape_for(4);
  static void name(char* out) { std::sprintf(out, "%dx%d/%d%s", Threads, Items, MinBlocks, Prefetch ? "o" : ""); }
};

template <class F>
double median_ms(F&& call, int repeat) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r <= repeat; ++r) {
    cudaEventRecord(a);
    call();
    cudaEventRecord(b);
    check(cudaEventSynchronize(b), "sort");
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (r > 0) t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class K, class V>
struct bench {
  static constexpr bool pairs = !std::is_same_v<V, sd::no_values>;
  std::int64_t n;
  int repeat;
  K *in, *out;
  V *vin = nullptr, *vout = nullptr;
  std::vector<K> want_keys, got_keys;
  std::vector<V> want_values, got_values;
  double cub_ms = 0;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;

  void reserve(std::size_t bytes) {
    if (bytes <= temp_bytes) return;
    cudaFree(temp);
    check(cudaMalloc(&temp, bytes), "cudaMalloc temp");
    temp_bytes = bytes;
  }

  bench(std::int64_t n_, int repeat_, int and_words) : n(n_), repeat(repeat_) {
    check(cudaMalloc(&in, n * sizeof(K)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(K)), "cudaMalloc");
    std::vector<K> h(static_cast<std::size_t>(n));
    std::mt19937_64 rng(7);
    for (auto& k : h) {
      std::uint64_t w = ~std::uint64_t{0};
      for (int j = 0; j < std::max(and_words, 1); ++j) w &= rng();
      k = static_cast<K>(w);
    }
    if (and_words == 0) std::sort(h.begin(), h.end());  // already sorted
    cudaMemcpy(in, h.data(), n * sizeof(K), cudaMemcpyHostToDevice);
    if constexpr (pairs) {
      check(cudaMalloc(&vin, n * sizeof(V)), "cudaMalloc");
      check(cudaMalloc(&vout, n * sizeof(V)), "cudaMalloc");
      std::vector<V> v(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<V>(i);
      cudaMemcpy(vin, v.data(), n * sizeof(V), cudaMemcpyHostToDevice);
    }
    cub_ms = std::min(run_cub<int>(), run_cub<std::int64_t>());
    want_keys.resize(n);
    cudaMemcpy(want_keys.data(), out, n * sizeof(K), cudaMemcpyDeviceToHost);
    if constexpr (pairs) {
      want_values.resize(n);
      cudaMemcpy(want_values.data(), vout, n * sizeof(V), cudaMemcpyDeviceToHost);
    }
  }
  ~bench() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(vin);
    cudaFree(vout);
    cudaFree(temp);
  }

  template <class Offset>
  double run_cub() {
    std::size_t bytes = 0;
    const Offset count = static_cast<Offset>(n);
    if constexpr (pairs)
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, in, out, vin, vout, count);
    else
      cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, count);
    reserve(bytes);
    return median_ms(
        [&] {
          std::size_t b = temp_bytes;
          if constexpr (pairs)
            cub::DeviceRadixSort::SortPairs(temp, b, in, out, vin, vout, count);
          else
            cub::DeviceRadixSort::SortKeys(temp, b, in, out, count);
        },
        repeat);
  }

  template <class Shape>
  void run_shape() {
    sd::sort_io<K, V> io;
    io.keys_in = in;
    io.keys_out = out;
    if constexpr (pairs) {
      io.values_in = vin;
      io.values_out = vout;
    }
    sd::device_facts facts;
    check(cudaMemset(out, 0, n * sizeof(K)), "poison");
    check(sd::current_device_facts("sort_shapes", facts) ? cudaSuccess : cudaErrorUnknown, "device facts");
    std::size_t bytes = 0;
    (void)sd::onesweep_sort<K, V, Shape>("sort_shapes", nullptr, bytes, io, n, nullptr, 0, 8 * sizeof(K), false, &facts);
    reserve(bytes);
    const double ms = median_ms(
        [&] {
          std::size_t b = temp_bytes;
          streamscan::status r =
              sd::onesweep_sort<K, V, Shape>("sort_shapes", temp, b, io, n, nullptr, 0, 8 * sizeof(K), false, &facts);
          if (!r) {
            std::fprintf(stderr, "%s\n", r.message().c_str());
            std::exit(1);
          }
        },
        repeat);
    got_keys.resize(n);
    cudaMemcpy(got_keys.data(), out, n * sizeof(K), cudaMemcpyDeviceToHost);
    bool same = got_keys == want_keys;
    if constexpr (pairs) {
      got_values.resize(n);
      cudaMemcpy(got_values.data(), vout, n * sizeof(V), cudaMemcpyDeviceToHost);
      same = same && got_values == want_values;
    }
    char name[32];
    Shape::name(name);
    std::printf(" | %s %.4f (%.3fx)%s", name, ms, cub_ms / ms, same ? "" : " DIFFERS");
    std::fflush(stdout);
  }
};

template <class K, class V, class... Shapes>
void row(const char* what, int log_n, int and_words, int repeat) {
  bench<K, V> b(std::int64_t{1} << log_n, repeat, and_words);
  std::printf("%-14s 2^%d CUB %.4f ms", what, log_n, b.cub_ms);
  (b.template run_shape<Shapes>(), ...);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 10;
  const int only_n = argc > 2 ? std::atoi(argv[2]) : 0;
  const std::string only_row = argc > 3 ? argv[3] : "";
  auto want = [&](const char* r) { return only_row.empty() || only_row == r; };
  using none = sd::no_values;
  for (int log_n : {20, 24, 28}) {
    if (only_n != 0 && log_n != only_n) continue;
    if (want("uint32"))
      row<std::uint32_t, none, shape<512, 20, 2, false>, shape<512, 20, 2>, shape<384, 20, 3>>("uint32", log_n, 1,
                                                                                              repeat);
    if (want("pairs"))
      row<std::uint32_t, std::uint32_t, shape<512, 16, 2>, shape<384, 23, 1>, shape<384, 30, 1>, shape<512, 20, 1>,
          shape<512, 24, 1>, shape<640, 20, 1>>("uint32+uint32", log_n, 1, repeat);
    if (want("pairs_and3"))
      row<std::uint32_t, std::uint32_t, shape<512, 16, 2, false>, shape<512, 16, 2>>("uint32+uint32/and3", log_n, 3,
                                                                                     repeat);
    if (want("uint64"))
      row<std::uint64_t, none, shape<384, 20, 2, false>, shape<384, 20, 2>>("uint64", log_n, 1, repeat);
  }
  if (want("and3") && (only_n == 0 || only_n == 28))
    row<std::uint32_t, none, shape<512, 20, 2, false>, shape<512, 20, 2>>("uint32/and3", 28, 3, repeat);
  if (want("sorted") && (only_n == 0 || only_n == 28))
    row<std::uint32_t, none, shape<512, 20, 2, false>, shape<512, 20, 2>>("uint32/sorted", 28, 0, repeat);
  return 0;
}
