// spmv_shapes: the merge-path SpMV kernel at several tile shapes (threads x
// merge items per thread), on three generated matrices (uniform 16 a row,
// 4M rows; 1-3 a row, 16M rows; 7-point 3D Poisson, 160^3), float and
// double. Prints the median ms per shape; the fastest over all rows becomes
// tuning/spmv.hpp's. "DIFFERS" marks an output whose bits differ from the
// default shape's: expected for floats, since a shape moves the points where a
// row's sum is split between threads and tiles (the tests check the values).
//   build/experiments/spmv_shapes [repeat]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_spmv.cuh>

namespace {
namespace sd = streamscan::cuda::detail;

void check(cudaError_t e) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

struct matrix {
  std::string name;
  std::int64_t rows;
  std::vector<int> offsets{0}, columns;
};

matrix make(const std::string& name) {
  std::mt19937_64 rng(1);
  matrix m{name, 0, {0}, {}};
  if (name == "poisson3d") {
    const int g = 160;
    m.rows = std::int64_t{g} * g * g;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const std::int64_t i = r % g, j = (r / g) % g, k = r / (g * g);
      for (std::int64_t c : {r - g * g, r - g, r - 1, r, r + 1, r + g, r + g * g}) {
        const bool ok = (c == r - g * g && k > 0) || (c == r - g && j > 0) || (c == r - 1 && i > 0) || c == r ||
                        (c == r + 1 && i + 1 < g) || (c == r + g && j + 1 < g) || (c == r + g * g && k + 1 < g);
        if (ok) m.columns.push_back(static_cast<int>(c));
      }
      m.offsets.push_back(static_cast<int>(m.columns.size()));
    }
    return m;
  }
  m.rows = name == "short" ? (1 << 24) : (1 << 22);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const int len = name == "short" ? 1 + static_cast<int>(rng() % 3) : 16;
    for (int k = 0; k < len; ++k) m.columns.push_back(static_cast<int>(rng() % m.rows));
    m.offsets.push_back(static_cast<int>(m.columns.size()));
  }
  return m;
}

template <int Threads, int Items, class V>
double run(const matrix& m, const int* offsets, const int* columns, const V* values, const V* x, V* y, int repeat) {
  constexpr int tile = Threads * Items;
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  const std::int64_t tiles = (m.rows + nnz + tile - 1) / tile;
  sd::merge_coordinate* starts = nullptr;
  sd::merge_carry<V>* carries = nullptr;
  check(cudaMalloc(&starts, (tiles + 1) * sizeof(*starts)));
  check(cudaMalloc(&carries, tiles * sizeof(*carries)));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> times;
  for (int r = 0; r <= repeat; ++r) {
    cudaEventRecord(a);
    sd::merge_path_tiles_kernel<int><<<(tiles + 256) / 256, 256>>>(offsets, m.rows, nnz, tile, tiles, starts);
    sd::merge_path_spmv_kernel<Threads, Items, V, int, int>
        <<<tiles, Threads>>>(offsets, columns, values, x, y, m.rows, nnz, V(1), V(0), starts, carries);
    sd::merge_path_fixup_kernel<V><<<(tiles + 255) / 256, 256>>>(carries, tiles, m.rows, V(1), y);
    cudaEventRecord(b);
    check(cudaEventSynchronize(b));
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (r > 0) times.push_back(ms);
  }
  check(cudaGetLastError());
  cudaFree(starts);
  cudaFree(carries);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <class V>
void measure(const matrix& m, int repeat) {
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  int *offsets, *columns;
  V *values, *x, *y, *reference;
  check(cudaMalloc(&offsets, m.offsets.size() * sizeof(int)));
  check(cudaMalloc(&columns, nnz * sizeof(int)));
  check(cudaMalloc(&values, nnz * sizeof(V)));
  check(cudaMalloc(&x, m.rows * sizeof(V)));
  check(cudaMalloc(&y, m.rows * sizeof(V)));
  check(cudaMalloc(&reference, m.rows * sizeof(V)));
  cudaMemcpy(offsets, m.offsets.data(), m.offsets.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(columns, m.columns.data(), nnz * sizeof(int), cudaMemcpyHostToDevice);
  std::vector<V> h(static_cast<std::size_t>(std::max<std::int64_t>(nnz, m.rows)));
  std::mt19937_64 rng(2);
  for (auto& v : h) v = static_cast<V>(static_cast<double>(rng() % 2001) / 1000.0 - 1.0);
  cudaMemcpy(values, h.data(), nnz * sizeof(V), cudaMemcpyHostToDevice);
  cudaMemcpy(x, h.data(), m.rows * sizeof(V), cudaMemcpyHostToDevice);
  const double base = run<128, 8>(m, offsets, columns, values, x, reference, repeat);
  std::vector<V> want(m.rows), got(m.rows);
  cudaMemcpy(want.data(), reference, m.rows * sizeof(V), cudaMemcpyDeviceToHost);
  std::printf("%-10s %-6s t128x8 %.4f ms", m.name.c_str(), sizeof(V) == 4 ? "float" : "double", base);
  auto show = [&](const char* name, double ms) {
    cudaMemcpy(got.data(), y, m.rows * sizeof(V), cudaMemcpyDeviceToHost);
    std::printf(" | %s %.4f (%.3fx)%s", name, ms, base / ms, got == want ? "" : " DIFFERS");
  };
  show("t64x8", run<64, 8>(m, offsets, columns, values, x, y, repeat));
  show("t128x4", run<128, 4>(m, offsets, columns, values, x, y, repeat));
  show("t128x6", run<128, 6>(m, offsets, columns, values, x, y, repeat));
  show("t128x12", run<128, 12>(m, offsets, columns, values, x, y, repeat));
  show("t256x4", run<256, 4>(m, offsets, columns, values, x, y, repeat));
  show("t256x8", run<256, 8>(m, offsets, columns, values, x, y, repeat));
  std::printf("\n");
  for (void* p : {static_cast<void*>(offsets), static_cast<void*>(columns), static_cast<void*>(values),
                  static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(reference)})
    cudaFree(p);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
  for (const char* name : {"uniform16", "short", "poisson3d"}) {
    const matrix m = make(name);
    measure<float>(m, repeat);
    measure<double>(m, repeat);
  }
  return 0;
}
