// Shallow water by Kass and Miller's method ("Rapid, stable fluid dynamics for
// computer graphics", SIGGRAPH 1990), as [ScanPrimitives] 4.3 runs it on a
// tridiagonal solver: the water surface is a grid of heights h; each step is
// implicit, and split by the alternating direction method into a tridiagonal
// system for every row, then one for every column.
//
// In one dimension, with depth d = h (flat ground at 0) and
// e[i+1/2] = g dt^2 (d[i] + d[i+1]) / (2 dx^2):
//   -e[i-1/2] h'[i-1] + (1 + e[i-1/2] + e[i+1/2]) h'[i] - e[i+1/2] h'[i+1]
//       = h[i] + (1 - tau) (h[i] - h_before[i])
// with no flow through the walls (e = 0 outside the grid). The rows of the
// grid are strided systems, its columns interleaved ones: both layouts of
// streamscan::cuda::tridiagonal_solve, with no transposition.
//
//   shallow_water [--cpu] [--grid N] [--steps S] [--every K] [--out DIR]
//                 [--bench-sizes 64,128,...|none]
// writes DIR/frame_NNN.png every K steps and DIR/shallow_water.gif, then
// prints steps a second (compute only) for each benchmark size. Without a GPU
// (or with --cpu) it runs streamscan::cpu::tridiagonal_solve.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cpu/tridiagonal.hpp>
#include <streamscan/cuda/device/device_tridiagonal.cuh>

#include "image_io.hpp"

namespace {

struct physics {
  float g = 9.8f, dt = 0.12f, dx = 1.0f, tau = 0.002f;
};

// The coefficients of cell (x, y) of a width x height grid, for the row pass
// (along x) and the column pass (along y), and the right-hand side.
__host__ __device__ inline void cell_terms(const float* h, const float* before, int width, int height, int x, int y,
                                           const physics& p, float* row_lower, float* row_diagonal, float* row_upper,
                                           float* column_lower, float* column_diagonal, float* column_upper,
                                           float* rhs) {
  const int at = y * width + x;
  const float k = p.g * p.dt * p.dt / (2 * p.dx * p.dx);
  const float d = fmaxf(h[at], 0.0f);
  const float west = x > 0 ? k * (d + fmaxf(h[at - 1], 0.0f)) : 0.0f;
  const float east = x + 1 < width ? k * (d + fmaxf(h[at + 1], 0.0f)) : 0.0f;
  const float north = y > 0 ? k * (d + fmaxf(h[at - width], 0.0f)) : 0.0f;
  const float south = y + 1 < height ? k * (d + fmaxf(h[at + width], 0.0f)) : 0.0f;
  row_lower[at] = -west;
  row_diagonal[at] = 1 + west + east;
  row_upper[at] = -east;
  column_lower[at] = -north;
  column_diagonal[at] = 1 + north + south;
  column_upper[at] = -south;
  rhs[at] = h[at] + (1 - p.tau) * (h[at] - before[at]);
}

__global__ void terms_kernel(const float* h, const float* before, int width, int height, physics p, float* rl,
                             float* rd, float* ru, float* cl, float* cd, float* cu, float* rhs) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width) cell_terms(h, before, width, height, x, y, p, rl, rd, ru, cl, cd, cu, rhs);
}

// One simulation's state; `gpu` picks where it lives and runs.
class simulation {
 public:
  simulation(int width, int height, bool gpu) : w_(width), h_(height), gpu_(gpu) {
    const std::size_t cells = std::size_t(width) * height;
    for (auto* a : arrays()) *a = allocate(cells);
    std::vector<float> flat(cells, 1.0f);
    upload(height_, flat);
    upload(before_, flat);
  }
  ~simulation() {
    for (auto* a : arrays()) gpu_ ? (void)cudaFree(*a) : std::free(*a);
    if (temp_ != nullptr) cudaFree(temp_);
  }
  simulation(const simulation&) = delete;
  simulation& operator=(const simulation&) = delete;

  // A raised bump of water, as a drop lands (in both time levels: no kick).
  void drop(float cx, float cy, float radius, float amount) {
    std::vector<float> now = heights(), then = download(before_);
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) {
        const float r2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (radius * radius);
        const float bump = amount * std::exp(-r2);
        now[std::size_t(y) * w_ + x] += bump;
        then[std::size_t(y) * w_ + x] += bump;
      }
    upload(height_, now);
    upload(before_, then);
  }

  void step() {
    namespace ss = streamscan;
    if (gpu_) {
      terms_kernel<<<dim3((w_ + 127) / 128, h_), 128>>>(height_, before_, w_, h_, physics_, rl_, rd_, ru_, cl_, cd_, cu_,
                                                        rhs_);
    } else {
      for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x)
          cell_terms(height_, before_, w_, h_, x, y, physics_, rl_, rd_, ru_, cl_, cd_, cu_, rhs_);
    }
    // Rows: h_ systems of w_ unknowns, each row contiguous (strided).
    const auto rows = ss::make_tridiagonal_view<float>(w_, h_, rl_, rd_, ru_);
    // Columns: w_ systems of h_ unknowns, element i of column s at i * w_ + s (interleaved).
    const auto columns = ss::make_tridiagonal_view<float>(h_, w_, cl_, cd_, cu_, ss::tridiagonal_layout::interleaved);
    // The new heights go where the heights of two steps ago were.
    if (gpu_) {
      solve_gpu(rows, rhs_, half_);
      solve_gpu(columns, half_, before_);
    } else {
      ss::cpu::tridiagonal_solve(rows, rhs_, half_);
      ss::cpu::tridiagonal_solve(columns, half_, before_);
    }
    std::swap(before_, height_);
  }

  void finish() const {
    if (gpu_) check(cudaDeviceSynchronize(), "a step");
  }

  std::vector<float> heights() const { return download(height_); }

 private:
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
      std::fprintf(stderr, "shallow_water: %s failed: %s\n", what, cudaGetErrorString(e));
      std::exit(1);
    }
  }
  void solve_gpu(const streamscan::tridiagonal_view<float>& a, const float* b, float* x) {
    std::size_t bytes = 0;
    streamscan::throw_if_error(streamscan::cuda::tridiagonal_solve<float>(nullptr, bytes, a, b, x));
    if (bytes > temp_bytes_) {
      check(cudaFree(temp_), "cudaFree");
      check(cudaMalloc(&temp_, bytes), "cudaMalloc");
      temp_bytes_ = bytes;
    }
    streamscan::throw_if_error(streamscan::cuda::tridiagonal_solve<float>(temp_, temp_bytes_, a, b, x));
  }
  std::vector<float**> arrays() {
    return {&height_, &before_, &half_, &rhs_, &rl_, &rd_, &ru_, &cl_, &cd_, &cu_};
  }
  float* allocate(std::size_t cells) const {
    void* p = nullptr;
    if (gpu_)
      check(cudaMalloc(&p, cells * sizeof(float)), "cudaMalloc");
    else
      p = std::malloc(cells * sizeof(float));
    return static_cast<float*>(p);
  }
  void upload(float* to, const std::vector<float>& v) const {
    if (gpu_)
      check(cudaMemcpy(to, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    else
      std::memcpy(to, v.data(), v.size() * sizeof(float));
  }
  std::vector<float> download(const float* from) const {
    std::vector<float> v(std::size_t(w_) * h_);
    if (gpu_)
      check(cudaMemcpy(v.data(), from, v.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    else
      std::memcpy(v.data(), from, v.size() * sizeof(float));
    return v;
  }

  int w_, h_;
  bool gpu_;
  physics physics_;
  float *height_ = nullptr, *before_ = nullptr, *half_ = nullptr, *rhs_ = nullptr;
  float *rl_ = nullptr, *rd_ = nullptr, *ru_ = nullptr, *cl_ = nullptr, *cd_ = nullptr, *cu_ = nullptr;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

// Deep blue to foam; a pixel is lit by the surface's slope and tinted by its height.
example_images::palette water_colors() {
  example_images::palette p{};
  for (int i = 0; i < 256; ++i) {
    const float t = i / 255.0f;
    p[i] = {static_cast<std::uint8_t>(10 + 225 * t * t), static_cast<std::uint8_t>(40 + 200 * t),
            static_cast<std::uint8_t>(90 + 165 * std::sqrt(t))};
  }
  return p;
}

std::vector<std::uint8_t> render(const std::vector<float>& h, int width, int height) {
  std::vector<std::uint8_t> pixels(h.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      auto at = [&](int xx, int yy) {
        return h[std::size_t(std::clamp(yy, 0, height - 1)) * width + std::clamp(xx, 0, width - 1)];
      };
      const float sx = at(x + 1, y) - at(x - 1, y), sy = at(x, y + 1) - at(x, y - 1);
      const float light = 0.45f + 16.0f * (sx + sy) + 1.5f * (at(x, y) - 1.0f);
      pixels[std::size_t(y) * width + x] = static_cast<std::uint8_t>(std::clamp(light, 0.0f, 1.0f) * 255.0f);
    }
  return pixels;
}

bool gpu_available() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

// Steps a second at size x size, compute only (no frames, no copies).
double steps_per_second(int size, bool gpu) {
  simulation sim(size, size, gpu);
  sim.drop(size / 2.0f, size / 2.0f, size / 12.0f, 0.5f);
  const int warm = 3;
  for (int i = 0; i < warm; ++i) sim.step();
  sim.finish();
  int steps = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  do {  // at least 20 steps and a quarter of a second
    sim.step();
    ++steps;
    if (steps % 10 == 0) sim.finish();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (steps < 20 || seconds < 0.25 || steps % 10 != 0);
  sim.finish();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return steps / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  bool gpu = true;
  int grid = 256, steps = 240, every = 6;
  std::string out = "shallow_water_frames", bench = "64,128,256,512,2048";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "shallow_water: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--cpu") gpu = false;
    else if (a == "--grid") grid = std::atoi(value().c_str());
    else if (a == "--steps") steps = std::atoi(value().c_str());
    else if (a == "--every") every = std::atoi(value().c_str());
    else if (a == "--out") out = value();
    else if (a == "--bench-sizes") bench = value();
    else {
      std::fprintf(stderr,
                   "usage: shallow_water [--cpu] [--grid N] [--steps S] [--every K] [--out DIR] "
                   "[--bench-sizes 64,128,...|none]\n");
      return 2;
    }
  }
  if (grid < 4 || steps < 1 || every < 1) {
    std::fprintf(stderr, "shallow_water: --grid must be at least 4, --steps and --every at least 1\n");
    return 2;
  }
  if (gpu && !gpu_available()) {
    std::printf("no GPU: running the CPU back end\n");
    gpu = false;
  }
  try {
    std::filesystem::create_directories(out);
    simulation sim(grid, grid, gpu);
    std::mt19937 rng(1207);
    std::uniform_real_distribution<float> where(0.2f * grid, 0.8f * grid);
    sim.drop(0.3f * grid, 0.35f * grid, grid / 14.0f, 0.6f);
    sim.drop(0.7f * grid, 0.6f * grid, grid / 20.0f, 0.4f);
    const auto colors = water_colors();
    example_images::gif_writer gif(grid, grid, colors, 4);
    int frames = 0;
    for (int s = 0; s <= steps; ++s) {
      if (s > 0 && s % 80 == 0) sim.drop(where(rng), where(rng), grid / 24.0f, 0.5f);  // another drop
      if (s % every == 0) {
        const auto pixels = render(sim.heights(), grid, grid);
        char name[64];
        std::snprintf(name, sizeof(name), "/frame_%03d.png", frames++);
        example_images::write_png(out + name, grid, grid, pixels, colors);
        gif.add(pixels);
      }
      if (s < steps) sim.step();
    }
    gif.finish(out + "/shallow_water.gif");
    std::printf("%s back end: %d steps of a %d x %d grid, %d frames in %s/ (frame_NNN.png, shallow_water.gif)\n",
                gpu ? "GPU" : "CPU", steps, grid, grid, frames, out.c_str());
    if (bench != "none") {
      std::printf("steps a second, compute only (the paper: 1207 at 128 x 128):\n");
      for (std::size_t at = 0; at < bench.size();) {
        const std::size_t comma = std::min(bench.find(',', at), bench.size());
        const int size = std::atoi(bench.substr(at, comma - at).c_str());
        at = comma + 1;
        if (size < 4) continue;
        std::printf("  %5d x %-5d %10.1f\n", size, size, steps_per_second(size, gpu));
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shallow_water: %s\n", e.what());
    return 1;
  }
  return 0;
}
