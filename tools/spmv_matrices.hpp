// tools/spmv_matrices.hpp - the SpMV bench's matrices, generated from a fixed
// seed (no downloads), int32 offsets and indices; the bench and the SpMV
// experiments share them. Host code, no CUDA.
//
// Matrices:
//   uniform16   4M rows, 16 non-zeros a row, random columns (square)
//   powerlaw    2M rows, row lengths ~ Pareto (shape 1.5, from 8.7; at most 200000): ~52M
//   short       16M rows of 1-3 non-zeros, random columns
//   poisson2d   5-point Laplacian on a 2048 x 2048 grid
//   poisson3d   7-point Laplacian on a 160^3 grid
//   rmat        R-MAT graph (a, b, c = 0.57, 0.19, 0.19), 2^21 vertices, 16 edges each
//               (rows sorted, duplicate edges kept: they add)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace streamscan_tool {

struct host_matrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int32_t> offsets{0}, columns;
};

inline host_matrix make_matrix(const std::string& name) {
  std::mt19937_64 rng(20261125);
  host_matrix m;
  m.name = name;
  auto close_row = [&m] { m.offsets.push_back(static_cast<std::int32_t>(m.columns.size())); };
  if (name == "uniform16" || name == "short") {
    m.rows = m.cols = name == "short" ? (std::int64_t{1} << 24) : (std::int64_t{1} << 22);
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const int len = name == "short" ? 1 + static_cast<int>(rng() % 3) : 16;
      for (int k = 0; k < len; ++k) m.columns.push_back(static_cast<std::int32_t>(rng() % m.cols));
      close_row();
    }
  } else if (name == "powerlaw") {
    m.rows = m.cols = std::int64_t{1} << 21;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const double len = std::min(200000.0, std::floor(8.7 * std::pow(1.0 - u(rng), -1.0 / 1.5)));
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(len); ++k)
        m.columns.push_back(static_cast<std::int32_t>(rng() % m.cols));
      close_row();
    }
  } else if (name == "poisson2d" || name == "poisson3d") {
    const bool three = name == "poisson3d";
    const std::int64_t g = three ? 160 : 2048;
    m.rows = m.cols = three ? g * g * g : g * g;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const std::int64_t i = r % g, j = (r / g) % g, k = three ? r / (g * g) : 0;
      auto add = [&](std::int64_t c) { m.columns.push_back(static_cast<std::int32_t>(c)); };
      if (three && k > 0) add(r - g * g);
      if (j > 0) add(r - g);
      if (i > 0) add(r - 1);
      add(r);
      if (i + 1 < g) add(r + 1);
      if (j + 1 < g) add(r + g);
      if (three && k + 1 < g) add(r + g * g);
      close_row();
    }
  } else {  // rmat
    const int scale = 21;
    m.rows = m.cols = std::int64_t{1} << scale;
    const std::int64_t edges = m.rows * 16;
    std::vector<std::uint64_t> e(static_cast<std::size_t>(edges));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (auto& edge : e) {
      std::uint64_t r = 0, c = 0;
      for (int b = 0; b < scale; ++b) {
        const double p = u(rng);
        const int quadrant = p < 0.57 ? 0 : p < 0.76 ? 1 : p < 0.95 ? 2 : 3;
        r = (r << 1) | (quadrant >> 1);
        c = (c << 1) | (quadrant & 1);
      }
      edge = (r << 32) | c;
    }
    std::sort(e.begin(), e.end());
    std::int64_t row = 0;
    for (const std::uint64_t edge : e) {
      while (static_cast<std::int64_t>(edge >> 32) > row) {
        close_row();
        ++row;
      }
      m.columns.push_back(static_cast<std::int32_t>(edge & 0xffffffffu));
    }
    for (; row < m.rows; ++row) close_row();
  }
  return m;
}

}  // namespace streamscan_tool
