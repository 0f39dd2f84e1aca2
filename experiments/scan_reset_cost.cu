// scan_reset_cost: what the stream-ordered reset of a single-pass scan's tile
// counter and status words (one cudaMemsetAsync before the kernel) costs at
// small and middle sizes, where a scan is far from memcpy's time. For int32
// sums on the default one-tile shape it times, in one process:
//   memcpy          cudaMemcpyAsync device to device of the same bytes
//   cub             cub::DeviceScan::InclusiveSum (its init kernel, then its scan)
//   scan            streamscan::cuda::inclusive_scan, two-phase (reset, then kernel)
//   kernel          the same kernel alone, its temp storage reset before the timed region
//   reset           the cudaMemsetAsync alone (the counter and this shape's tiles' flags)
//   old             a memset of the whole temp storage (sized for the smallest shape), then
//                   the kernel: what the library did before it reset only what runs
//   1 memset        one memset of the counter and this shape's flags, then the kernel
//   2 memsets       the counter and the flags in two memsets, then the kernel (what the
//                   library does where the two together pass tuning::short_memset_bytes)
//   init+kernel     a one-block zeroing kernel instead of the memset, then the scan kernel
// Inputs and outputs rotate over >= 256 MiB so that no size is timed from L2.
// Every output is checked against CUB's. Prints median us of 50 and each
// against memcpy's time.
//   build/experiments/scan_reset_cost [log2 n ...]   (default 16 18 20 22 24)
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include <streamscan/cuda/device/device_scan.cuh>
#include <streamscan/tuning/choose.hpp>

#include "../tools/cuda_timing.cuh"
#include "scan_experiment.cuh"

namespace {

namespace sd = streamscan::cuda::detail;
namespace st = streamscan::tuning;
const auto check = streamscan_tool::cuda_check;
using scan_experiment::ok;

// The zeroing a CUB-style init kernel does: one block, 16-byte stores.
__global__ void zero_words(uint4* p, std::int64_t words) {
  for (std::int64_t i = threadIdx.x; i < words; i += blockDim.x) p[i] = uint4{0, 0, 0, 0};
}

void run_size(int log_n) {
  const std::int64_t n = std::int64_t{1} << log_n;
  scan_experiment::rotating_buffers<int> buffers(n, 256, 1);
  const std::size_t bytes = buffers.bytes;
  const int sets = buffers.sets;
  const std::vector<int*>& in = buffers.in;
  const std::vector<int*>& out = buffers.out;
  int* expect = buffers.expect;

  scan_experiment::scan_temps<int> temps(in[0], out[0], n, 0, 16);  // 16: zero_words rounds up to 16 bytes
  check(cub::DeviceScan::InclusiveSum(temps.cub, temps.cub_bytes, in[0], expect, n), "cub");

  using vector_policy = st::vector_scan_policy_for<int, st::default_vector_shape(sizeof(int))>;
  const std::int64_t tiles = (n + vector_policy::tile_items - 1) / vector_policy::tile_items;
  // What the library resets before this shape's kernel (reset_tiles), and
  // what it reset before: the whole temp storage, sized for the smallest shape.
  const std::size_t reset_bytes = sd::tile_counter_bytes + sd::tile_status<int>::reset_bytes(tiles);
  // The vector kernel launched by hand, with the arguments launch_vector_scan
  // gives it (launch_vector_scan also resets).
  const auto kernel_only = [&](int r) {
    const int s = r % sets;
    const auto input = sd::read_only_input(static_cast<const int*>(in[s]));
    using io_t = sd::vector_tile_io<int, vector_policy::vector_width, false, std::decay_t<decltype(input)>>;
    sd::single_pass_vector_scan_kernel<vector_policy, sd::look_back_kind::decoupled, io_t, streamscan::plus>
        <<<static_cast<unsigned>(tiles), vector_policy::threads>>>(
            io_t{input, out[s], n}, n, std::int64_t{0},
            sd::tile_status<int>(temps.ours + sd::tile_counter_bytes, tiles),
            reinterpret_cast<unsigned long long*>(temps.ours), sd::maybe<int>{0, false}, sd::scan_mode::inclusive,
            streamscan::plus{});
    check(cudaGetLastError(), "launching the scan kernel");
  };
  const auto reset = [&](int) { check(cudaMemsetAsync(temps.ours, 0, reset_bytes), "cudaMemsetAsync"); };
  const auto old_reset = [&](int) { check(cudaMemsetAsync(temps.ours, 0, temps.our_bytes), "cudaMemsetAsync"); };
  const auto init_kernel = [&](int) {
    zero_words<<<1, 256>>>(reinterpret_cast<uint4*>(temps.ours), static_cast<std::int64_t>((reset_bytes + 15) / 16));
  };

  // Outputs first: each path against CUB's.
  const auto same = [&](const char* what, int s) {
    check(cudaDeviceSynchronize(), what);
    std::vector<int> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    check(cudaMemcpy(a.data(), out[s], bytes, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(b.data(), expect, bytes, cudaMemcpyDeviceToHost), "copy");
    if (a != b) {
      std::fprintf(stderr, "2^%d %s: output differs from CUB's\n", log_n, what);
      std::exit(1);
    }
  };
  ok(streamscan::cuda::inclusive_scan(temps.ours, temps.our_bytes, in[0], out[0], n, streamscan::plus{}));
  same("scan", 0);
  check(cudaMemset(out[0], 0xff, bytes), "poison");
  reset(0);
  kernel_only(0);
  same("kernel", 0);
  check(cudaMemset(out[0], 0xff, bytes), "poison");
  init_kernel(0);
  kernel_only(0);
  same("init+kernel", 0);

  constexpr int repeats = 50;
  using streamscan_tool::median_ms;
  const double t_copy = buffers.memcpy_ms(repeats);
  const double t_cub = buffers.cub_ms(repeats, temps.cub, temps.cub_bytes);
  const double t_scan = buffers.library_ms(repeats, temps.ours, temps.our_bytes);
  const double t_kernel = median_ms(repeats, kernel_only, nullptr, reset).median_ms;
  const double t_reset = median_ms(repeats, reset).median_ms;
  const double t_old = median_ms(repeats, [&](int r) {
    old_reset(r);
    kernel_only(r);
  }).median_ms;
  const double t_one = median_ms(repeats, [&](int r) {
    reset(r);
    kernel_only(r);
  }).median_ms;
  const double t_two = median_ms(repeats, [&](int r) {
    check(cudaMemsetAsync(temps.ours, 0, sizeof(unsigned long long)), "cudaMemsetAsync");
    check(cudaMemsetAsync(temps.ours + sd::tile_counter_bytes, 0, reset_bytes - sd::tile_counter_bytes),
          "cudaMemsetAsync");
    kernel_only(r);
  }).median_ms;
  const double t_init = median_ms(repeats, [&](int r) {
    init_kernel(r);
    kernel_only(r);
  }).median_ms;
  std::printf("2^%-2d %6.0f tiles | memcpy %7.2f us | cub %7.2f (%.2fx) | scan %7.2f (%.2fx) | kernel %7.2f (%.2fx) |"
              " reset %6.2f | old reset+kernel %7.2f (%.2fx) | 1 memset %7.2f | 2 memsets %7.2f |"
              " init+kernel %7.2f (%.2fx)\n",
              log_n, double(tiles), 1e3 * t_copy,
              1e3 * t_cub, t_cub / t_copy, 1e3 * t_scan, t_scan / t_copy, 1e3 * t_kernel, t_kernel / t_copy,
              1e3 * t_reset, 1e3 * t_old, t_old / t_copy, 1e3 * t_one, 1e3 * t_two, 1e3 * t_init, t_init / t_copy);

}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {16, 18, 20, 22, 24};
  std::printf("scan_reset_cost: int32 sums, default one-tile shape; (x) = time / memcpy's\n");
  for (int log_n : sizes) run_size(log_n);
  return 0;
}
