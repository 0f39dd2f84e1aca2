// The scan of structs read field by field over rows of one length
// (kernels/zip_scan_kernel.cuh, agent/zip_tile_io.cuh), compiled by nvcc here:
// the kernel streamscan.associative_scan compiles with NVRTC, launched from
// its zip_scan_plan as the Python module does. Against a host loop: a
// non-commutative operator whose integer arithmetic is exact (affine maps mod
// 2^32), and a struct of mixed field sizes (uint16 sum, int64 max: 16 bytes,
// one value a vector); rows of lengths around the tile, both directions, a
// field left unwritten (null output).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <streamscan/cuda/dispatch/dispatch_scan.cuh>
#include <streamscan/cuda/kernels/zip_scan_kernel.cuh>

#include "common/cuda_helpers.cuh"
#include "common/random.hpp"

namespace {

namespace cd = streamscan::cuda::detail;
using streamscan_test::device_buffer;

struct affine {  // h -> a h + b (mod 2^32)
  std::uint32_t a, b;
};
struct affine_then {  // x first, then y
  __host__ __device__ affine operator()(const affine& x, const affine& y) const { return {x.a * y.a, y.a * x.b + y.b}; }
};
struct sum_max {
  std::uint16_t s;
  std::int64_t m;
};
struct sum_max_op {
  __host__ __device__ sum_max operator()(const sum_max& x, const sum_max& y) const {
    return {static_cast<std::uint16_t>(x.s + y.s), x.m > y.m ? x.m : y.m};
  }
};

template <bool Backward>
using affine_scan = cd::zip_rows_scan<affine, affine_then, Backward, cd::zip_field<std::uint32_t, affine, &affine::a>,
                                      cd::zip_field<std::uint32_t, affine, &affine::b>>;
template <bool Backward>
using sum_max_scan = cd::zip_rows_scan<sum_max, sum_max_op, Backward, cd::zip_field<std::uint16_t, sum_max, &sum_max::s>,
                                       cd::zip_field<std::int64_t, sum_max, &sum_max::m>>;

// The entry streamscan.associative_scan generates, as a template.
template <class Scan>
__global__ void __launch_bounds__(Scan::threads, Scan::min_blocks_per_sm)
    zip_scan_kernel(cd::zip_pointers in, cd::zip_pointers out, std::int64_t n, std::int64_t length, std::int64_t lead,
                    void* status, std::int64_t tiles, unsigned long long* counter) {
  Scan::run(in, out, n, length, lead, status, tiles, counter);
}

template <class Scan>
void launch(const cd::zip_scan_plan& plan, const cd::zip_pointers& in, const cd::zip_pointers& out, std::int64_t rows,
            std::int64_t length) {
  const std::int64_t n = rows * length;
  device_buffer<unsigned char> temp(plan.temp_bytes(n));
  ASSERT_TRUE(static_cast<bool>(cd::reset_tile_words("test", temp.get(), plan.reset_bytes(n), nullptr)));
  const std::int64_t tiles = plan.tiles(n);
  zip_scan_kernel<Scan><<<static_cast<unsigned>(tiles), plan.threads>>>(
      in, out, n, length, plan.lead(n), temp.get() + cd::tile_counter_bytes, tiles,
      reinterpret_cast<unsigned long long*>(temp.get()));
  STREAMSCAN_TEST_CUDA(cudaGetLastError());
  STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
}

// Each row scanned on its own, from its end where backward.
template <class V, class Op>
std::vector<V> oracle(const std::vector<V>& x, std::int64_t rows, std::int64_t length, bool backward, Op op) {
  std::vector<V> out(x.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    V acc{};
    for (std::int64_t p = 0; p < length; ++p) {
      const std::size_t e = static_cast<std::size_t>(r * length + (backward ? length - 1 - p : p));
      acc = p == 0 ? x[e] : op(acc, x[e]);
      out[e] = acc;
    }
  }
  return out;
}

template <bool Backward>
void check_affine(std::mt19937_64& rng, std::int64_t rows, std::int64_t length, bool keep_a) {
  using scan = affine_scan<Backward>;
  const std::size_t n = static_cast<std::size_t>(rows * length);
  std::vector<affine> x(n);
  std::vector<std::uint32_t> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<std::uint32_t>(rng()) | 1u;  // odd slopes: the products never collapse to 0
    b[i] = static_cast<std::uint32_t>(rng());
    x[i] = {a[i], b[i]};
  }
  device_buffer<std::uint32_t> da(n), db(n), oa(n), ob(n);
  da.upload(a);
  db.upload(b);
  const std::vector<std::uint32_t> sentinel(n, 0xdeadbeefu);
  oa.upload(sentinel);
  cd::zip_pointers in{}, out{};
  in.field[0] = da.get();
  in.field[1] = db.get();
  out.field[0] = keep_a ? oa.get() : nullptr;
  out.field[1] = ob.get();
  launch<scan>(scan::plan, in, out, rows, length);
  const std::vector<affine> want = oracle(x, rows, length, Backward, affine_then{});
  std::vector<std::uint32_t> ga, gb;
  oa.download(ga);
  ob.download(gb);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(gb[i], want[i].b) << "b at " << i << " (row " << i / length << ", place " << i % length << "), rows "
                                << rows << ", length " << length << ", backward " << Backward;
    ASSERT_EQ(ga[i], keep_a ? want[i].a : 0xdeadbeefu)
        << (keep_a ? "a at " : "a (not kept: must stay unwritten) at ") << i << ", rows " << rows << ", length "
        << length << ", backward " << Backward;
  }
}

template <bool Backward>
void check_sum_max(std::mt19937_64& rng, std::int64_t rows, std::int64_t length) {
  using scan = sum_max_scan<Backward>;
  const std::size_t n = static_cast<std::size_t>(rows * length);
  std::vector<sum_max> x(n);
  std::vector<std::uint16_t> s(n);
  std::vector<std::int64_t> m(n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = static_cast<std::uint16_t>(rng());
    m[i] = static_cast<std::int64_t>(rng());
    x[i] = {s[i], m[i]};
  }
  device_buffer<std::uint16_t> ds(n), os(n);
  device_buffer<std::int64_t> dm(n), om(n);
  ds.upload(s);
  dm.upload(m);
  cd::zip_pointers in{}, out{};
  in.field[0] = ds.get();
  in.field[1] = dm.get();
  out.field[0] = os.get();
  out.field[1] = om.get();
  launch<scan>(scan::plan, in, out, rows, length);
  const std::vector<sum_max> want = oracle(x, rows, length, Backward, sum_max_op{});
  std::vector<std::uint16_t> gs;
  std::vector<std::int64_t> gm;
  os.download(gs);
  om.download(gm);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(gs[i], want[i].s) << "s at " << i << ", rows " << rows << ", length " << length << ", backward "
                                << Backward;
    ASSERT_EQ(gm[i], want[i].m) << "m at " << i << ", rows " << rows << ", length " << length << ", backward "
                                << Backward;
  }
}

std::vector<std::int64_t> lengths_around(std::int64_t t) { return {1, 2, 7, t - 1, t, t + 1, 3 * t + 5}; }

TEST(zip_scan_cuda, AffineRowsBothDirections) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_affine");
  static_assert(affine_scan<false>::plan.tile_items == affine_scan<true>::plan.tile_items);
  for (const std::int64_t length : lengths_around(affine_scan<false>::plan.tile_items))
    for (const std::int64_t rows : {1, 3, 40}) {
      check_affine<false>(rng, rows, length, true);
      check_affine<true>(rng, rows, length, true);
    }
}

TEST(zip_scan_cuda, AnUnkeptFieldIsNotWritten) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_keep");
  const std::int64_t t = affine_scan<false>::plan.tile_items;
  for (const std::int64_t length : {std::int64_t{5}, t + 1, 4 * t}) {
    check_affine<false>(rng, 3, length, false);
    check_affine<true>(rng, 3, length, false);
  }
}

TEST(zip_scan_cuda, MixedFieldSizes) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_mixed");
  for (const std::int64_t length : lengths_around(sum_max_scan<false>::plan.tile_items))
    for (const std::int64_t rows : {1, 5}) {
      check_sum_max<false>(rng, rows, length);
      check_sum_max<true>(rng, rows, length);
    }
}

// Many rows of many tiles: the look-back crosses tiles inside rows and stops
// at row starts.
TEST(zip_scan_cuda, ManyTilesAndRows) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_large");
  const std::int64_t t = affine_scan<false>::plan.tile_items;
  check_affine<false>(rng, 16, 100 * t + 3, true);
  check_affine<true>(rng, 16, 100 * t + 3, true);
  check_affine<false>(rng, 20000, 37, true);
}

}  // namespace
