// spmv_split: the non-zero split SpMV (kernels/spmv_kernels.cuh) at several
// tile shapes and load policies, beside cuSPARSE CSR_ALG1 and the library's
// merge_path and row_groups, on the bench's six matrices (tools/spmv_matrices.hpp),
// float and double. Picks tuning/spmv.hpp's nonzero-split shape and loads,
// and whether the default should take it. Prints, per matrix and type, the
// median ms of each and cuSPARSE's time over it; every output is checked
// against a double-precision host product.
//   build/experiments/spmv_split [repeat] [matrix ...]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_spmv.cuh>

#include "../tools/spmv_matrices.hpp"
#include "spmv_experiment.cuh"

namespace {
namespace ss = streamscan;
namespace sd = streamscan::cuda::detail;
namespace st = streamscan::tuning;
using streamscan_tool::cuda_check;

void check_status(const ss::status& s) {
  if (!s) {
    std::fprintf(stderr, "spmv: %s\n", s.message().c_str());
    std::exit(1);
  }
}

// The library's launches (dispatch_spmv.cuh) with another shape and loads.
template <int Threads, int Items, int MinBlocks, int Loads, class V>
void run_split(const int* offsets, const int* columns, const V* values, const V* x, V* y, std::int64_t rows,
               std::int64_t nnz, std::int64_t* first_rows, sd::merge_carry<V>* carries,
               unsigned long long* excess_count, std::int64_t capacity, sd::row_range* excess) {
  constexpr std::int64_t tile = Threads * Items;
  const std::int64_t tiles = nnz > 0 ? (nnz + tile - 1) / tile : 1;
  sd::nonzero_split_rows_kernel<int>
      <<<(tiles + 1 + 255) / 256, 256>>>(offsets, rows, tile, tiles, first_rows, excess_count);
  sd::nonzero_split_spmv_kernel<Threads, Items, MinBlocks, Loads, V, int, int><<<tiles, Threads>>>(
      offsets, columns, values, x, y, rows, nnz, V(1), V(0), first_rows, carries, true, excess_count, capacity,
      excess);
  sd::nonzero_split_fixup_kernel<V, int, int><<<std::max<std::int64_t>((tiles + 255) / 256, 264), 256>>>(
      carries, tiles, rows, V(1), V(0), y, offsets, columns, values, x, excess_count, capacity, excess);
}

template <int N>
using int_c = std::integral_constant<int, N>;
constexpr int both = st::spmv_stream_matrix | st::spmv_plain_x;

// The shapes measured: the first round found the matrix streaming evict-first
// worth 0-9% and plain x gathers worth nothing, 512 x 4 best in float and
// 256 x 8 in double; the second bounded their registers and moved around
// them (the library's nonzero_split is 512 x 4 / 4 and 256 x 7 / 5); the
// third (below) tries cuSPARSE's 512 threads in double and more items in float.
template <class V, class F>
void measured_shapes(F& variant) {
  if constexpr (sizeof(V) == 4) {
    // Float: the library's 512 x 4 / 4 and more items at 40 registers.
    variant(int_c<512>{}, int_c<4>{}, int_c<4>{}, int_c<both>{});
    variant(int_c<512>{}, int_c<8>{}, int_c<3>{}, int_c<both>{});
    variant(int_c<512>{}, int_c<6>{}, int_c<3>{}, int_c<both>{});
    variant(int_c<512>{}, int_c<5>{}, int_c<3>{}, int_c<both>{});
  } else {
    // Double around the library's 256 x 7 / 5 (48 registers): cuSPARSE's
    // 512 threads of 7 at 40 registers, and tiles between.
    variant(int_c<256>{}, int_c<7>{}, int_c<5>{}, int_c<both>{});
    variant(int_c<512>{}, int_c<7>{}, int_c<3>{}, int_c<both>{});
    variant(int_c<384>{}, int_c<7>{}, int_c<4>{}, int_c<both>{});
    variant(int_c<512>{}, int_c<6>{}, int_c<3>{}, int_c<both>{});
    variant(int_c<256>{}, int_c<6>{}, int_c<6>{}, int_c<both>{});
    variant(int_c<512>{}, int_c<5>{}, int_c<4>{}, int_c<both>{});
    variant(int_c<256>{}, int_c<9>{}, int_c<4>{}, int_c<both>{});
  }
}

template <class V>
void measure(const streamscan_tool::host_matrix& m, int repeat) {
  using spmv_experiment::upload;
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  const spmv_experiment::problem<V> pb(m.offsets, m.columns, m.cols, 8.0);
  int* offsets = upload(m.offsets);
  int* columns = upload(m.columns);
  V* values = upload(pb.values);
  V* x = upload(pb.x);
  V* y = nullptr;
  cuda_check(cudaMalloc(&y, m.rows * sizeof(V)), "cudaMalloc");
  std::int64_t* first_rows = nullptr;
  sd::merge_carry<V>* carries = nullptr;
  unsigned long long* excess_count = nullptr;
  sd::row_range* excess = nullptr;
  const std::int64_t most_tiles = nnz / 1024 + 2;
  cuda_check(cudaMalloc(&first_rows, (most_tiles + 1) * sizeof(std::int64_t)), "cudaMalloc");
  cuda_check(cudaMalloc(&carries, most_tiles * sizeof(sd::merge_carry<V>)), "cudaMalloc");
  cuda_check(cudaMalloc(&excess_count, sizeof(*excess_count)), "cudaMalloc");
  // Pieces of at least 8 tiles' worth of rows (the smallest tile, 1024 non-zeros).
  const std::int64_t capacity = most_tiles + m.rows / (st::spmv_split_own_rows * 1024) + 1;
  cuda_check(cudaMalloc(&excess, capacity * sizeof(sd::row_range)), "cudaMalloc");

  const double t_cusparse =
      spmv_experiment::cusparse_alg1_ms(m.rows, m.cols, nnz, offsets, columns, values, x, y, repeat);
  std::printf("%-10s %-6s nnz %9lld  cusparse ALG1 %.4f ms %s", m.name.c_str(), sizeof(V) == 4 ? "float" : "double",
              static_cast<long long>(nnz), t_cusparse, pb.verdict(y));
  auto report = [&](const char* name, double ms) {
    std::printf(" | %s %.4f (%.2fx) %s", name, ms, t_cusparse / ms, pb.verdict(y));
    std::fflush(stdout);
  };

  const ss::csr_view<V, int, int> view{m.rows, m.cols, nnz, offsets, columns, values};
  for (const auto strategy :
       {ss::spmv_strategy::merge_path, ss::spmv_strategy::row_groups, ss::spmv_strategy::nonzero_split}) {
    ss::spmv_options opt;
    opt.strategy = strategy;
    std::size_t bytes = 0;
    check_status(ss::cuda::spmv(nullptr, bytes, view, static_cast<const V*>(x), y, V(1), V(0), nullptr, opt));
    void* temp = nullptr;
    cuda_check(cudaMalloc(&temp, bytes), "cudaMalloc");
    cuda_check(cudaMemset(y, 0xff, m.rows * sizeof(V)), "cudaMemset");
    const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                        check_status(
                            ss::cuda::spmv(temp, bytes, view, static_cast<const V*>(x), y, V(1), V(0), nullptr, opt));
                      }).median_ms;
    report(ss::to_string(strategy), ms);
    cudaFree(temp);
  }

  // A variant: threads, items, the least blocks a multiprocessor (bounds the
  // registers), loads (tuning::spmv_loads' flags).
  auto variant = [&](auto threads, auto items, auto blocks, auto loads) {
    constexpr int T = decltype(threads)::value, I = decltype(items)::value, B = decltype(blocks)::value,
                  L = decltype(loads)::value;
    cuda_check(cudaMemset(y, 0xff, m.rows * sizeof(V)), "cudaMemset");
    const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                        run_split<T, I, B, L, V>(offsets, columns, values, x, y, m.rows, nnz, first_rows, carries,
                                                 excess_count, capacity, excess);
                      }).median_ms;
    cuda_check(cudaGetLastError(), "launch");
    const std::string name = "split" + std::to_string(T) + "x" + std::to_string(I) + "/" + std::to_string(B) + "/" +
                             ((L & st::spmv_stream_matrix) ? "cs" : "ldg") + "+" +
                             ((L & st::spmv_plain_x) ? "ld" : "ldg");
    report(name.c_str(), ms);
  };
  using std::integral_constant;
  measured_shapes<V>(variant);
  std::printf("\n");
  for (void* p : {static_cast<void*>(offsets), static_cast<void*>(columns), static_cast<void*>(values),
                  static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(first_rows), static_cast<void*>(carries),
                  static_cast<void*>(excess_count), static_cast<void*>(excess)})
    cudaFree(p);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
  std::vector<std::string> names;
  for (int i = 2; i < argc; ++i) names.emplace_back(argv[i]);
  if (names.empty()) names = {"uniform16", "powerlaw", "rmat", "short", "poisson2d", "poisson3d"};
  cudaDeviceProp prop;
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("# %s, %d SMs, L2 %d MB; repeat %d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              repeat);
  for (const std::string& name : names) {
    const streamscan_tool::host_matrix m = streamscan_tool::make_matrix(name);
    measure<float>(m, repeat);
    measure<double>(m, repeat);
  }
  return 0;
}
