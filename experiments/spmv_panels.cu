// spmv_panels: whether cutting a matrix into column panels, so that each
// panel's slice of x fits in L2, makes SpMV faster where x does not fit
// (issue 27's short rows: 16M rows of 1-3 random columns, x of 64 MB in
// float). y = sum over panels p of A_p x_p, each panel one call of the
// library's spmv (row_groups; the first panel with beta = 0, the others
// adding with beta = 1), so a panel costs its offsets and a pass over y on
// top of its share of the matrix, and buys gathers that hit L2. Panels are
// built on the host here (a library form would build them once on the device
// and keep them, as cuSPARSE's preprocess does, for the many products of an
// iterative solver).
//
// Prints, per matrix and value type, the median ms of 20 for cuSPARSE
// CSR_ALG1 (after cusparseSpMV_preprocess), the library's default on the whole
// matrix, and 2, 4 and 8 panels, with x cuSPARSE. Outputs are checked against
// a double host product within 64 (len + 2) eps |A||x| a row.
//   build/experiments/spmv_panels
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cuda/device/device_spmv.cuh>

#include "../tools/cuda_timing.cuh"
#include "spmv_experiment.cuh"

namespace {

const auto check = streamscan_tool::cuda_check;

struct csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<int> offsets{0}, columns;
};

csr make(const std::string& name) {
  std::mt19937_64 rng(1);
  csr m;
  const bool uniform = name == "uniform16";
  m.rows = m.cols = uniform ? (1 << 22) : (1 << 24);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const int len = uniform ? 16 : 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < len; ++k) m.columns.push_back(static_cast<int>(rng() % m.cols));
    m.offsets.push_back(static_cast<int>(m.columns.size()));
  }
  return m;
}

// The entries of columns [p w, (p + 1) w) of every row, columns made relative
// to the panel; `order[k]` is the whole matrix's index of panel entry k.
struct panel {
  csr part;
  std::vector<std::int64_t> order;
};

std::vector<panel> cut(const csr& m, int panels) {
  const std::int64_t width = (m.cols + panels - 1) / panels;
  std::vector<panel> out(panels);
  for (int p = 0; p < panels; ++p) {
    out[p].part.rows = m.rows;
    out[p].part.cols = std::min<std::int64_t>(width, m.cols - p * width);
  }
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (int k = m.offsets[r]; k < m.offsets[r + 1]; ++k) {
      panel& q = out[m.columns[k] / width];
      q.part.columns.push_back(static_cast<int>(m.columns[k] % width));
      q.order.push_back(k);
    }
    for (panel& q : out) q.part.offsets.push_back(static_cast<int>(q.part.columns.size()));
  }
  return out;
}

template <class V>
void measure(const std::string& name, const csr& m) {
  using spmv_experiment::upload;
  const std::int64_t nnz = static_cast<std::int64_t>(m.columns.size());
  // Panels add a row's sums in another order: 8 panels' worth of slack.
  const spmv_experiment::problem<V> pb(m.offsets, m.columns, m.cols, 64.0);
  const std::vector<V>& values = pb.values;
  int* d_offsets = upload(m.offsets);
  int* d_columns = upload(m.columns);
  V* d_values = upload(values);
  V* d_x = upload(pb.x);
  V* d_y = nullptr;
  check(cudaMalloc(&d_y, m.rows * sizeof(V)), "cudaMalloc");
  auto verdict = [&] { return pb.verdict(d_y); };
  auto poison = [&] { check(cudaMemset(d_y, 0xA7, m.rows * sizeof(V)), "cudaMemset"); };
  const int repeat = 20;
  const char* type = sizeof(V) == 4 ? "float" : "double";

  poison();
  const double t_cusparse = spmv_experiment::cusparse_alg1_ms(m.rows, m.cols, nnz, d_offsets, d_columns, d_values,
                                                              d_x, d_y, repeat);
  std::printf("%-10s %-6s cusparse ALG1 %.4f ms %s", name.c_str(), type, t_cusparse, verdict());

  // The library's default on the whole matrix.
  const auto whole = streamscan::make_csr_view(m.rows, m.cols, nnz, static_cast<const int*>(d_offsets),
                                               static_cast<const int*>(d_columns), static_cast<const V*>(d_values));
  std::size_t temp_bytes = 0;
  streamscan::throw_if_error(streamscan::cuda::spmv(nullptr, temp_bytes, whole, d_x, d_y, V(1), V(0)));
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes + 1), "cudaMalloc");
  poison();
  const double t_default = streamscan_tool::median_ms(repeat, [&](int) {
                             streamscan::throw_if_error(
                                 streamscan::cuda::spmv(temp, temp_bytes, whole, d_x, d_y, V(1), V(0)));
                           }).median_ms;
  std::printf(" | default %.4f (%.2fx) %s", t_default, t_cusparse / t_default, verdict());

  // Column panels, each a row_groups call; panel p's x is x + p * width.
  for (const int panels : {2, 4, 8}) {
    const std::vector<panel> parts = cut(m, panels);
    const std::int64_t width = (m.cols + panels - 1) / panels;
    std::vector<streamscan::csr_view<V, int, int>> views;
    std::vector<void*> owned;
    std::size_t most = 0;
    streamscan::spmv_options opt;
    opt.strategy = streamscan::spmv_strategy::row_groups;
    for (const panel& q : parts) {
      std::vector<V> panel_values(q.order.size());
      for (std::size_t k = 0; k < q.order.size(); ++k) panel_values[k] = values[q.order[k]];
      int* o = upload(q.part.offsets);
      int* c = upload(q.part.columns);
      V* v = upload(panel_values);
      owned.insert(owned.end(), {o, c, v});
      views.push_back(streamscan::make_csr_view(q.part.rows, q.part.cols, static_cast<std::int64_t>(q.order.size()),
                                                static_cast<const int*>(o), static_cast<const int*>(c),
                                                static_cast<const V*>(v)));
      std::size_t bytes = 0;
      streamscan::throw_if_error(
          streamscan::cuda::spmv(nullptr, bytes, views.back(), d_x, d_y, V(1), V(0), nullptr, opt));
      most = std::max(most, bytes);
    }
    void* panel_temp = nullptr;
    check(cudaMalloc(&panel_temp, most + 1), "cudaMalloc");
    poison();
    const double ms = streamscan_tool::median_ms(repeat, [&](int) {
                        for (int p = 0; p < panels; ++p) {
                          std::size_t bytes = most;
                          streamscan::throw_if_error(streamscan::cuda::spmv(panel_temp, bytes, views[p],
                                                                            d_x + p * width, d_y, V(1),
                                                                            p == 0 ? V(0) : V(1), nullptr, opt));
                        }
                      }).median_ms;
    std::printf(" | %d panels %.4f (%.2fx) %s", panels, ms, t_cusparse / ms, verdict());
    for (void* p : owned) cudaFree(p);
    cudaFree(panel_temp);
  }
  std::printf("\n");

  for (void* p : {static_cast<void*>(d_offsets), static_cast<void*>(d_columns), static_cast<void*>(d_values),
                  static_cast<void*>(d_x), static_cast<void*>(d_y), temp})
    cudaFree(p);
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("# %s, %d SMs, L2 %d MB; x cuSPARSE CSR_ALG1 in parentheses\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  for (const char* name : {"short", "uniform16"}) {
    const csr m = make(name);
    measure<float>(name, m);
    measure<double>(name, m);
  }
  return 0;
}
