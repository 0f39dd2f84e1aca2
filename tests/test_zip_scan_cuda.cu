// The scan of structs read field by field over rows of one length
// (kernels/zip_scan_kernel.cuh, agent/zip_tile_io.cuh), compiled by nvcc here:
// the kernel streamscan.associative_scan compiles with NVRTC, launched from
// its zip_scan_plan as the Python module does. Against a host loop: a
// non-commutative operator whose integer arithmetic is exact (affine maps mod
// 2^32), and a struct of mixed field sizes (uint16 sum, int64 max: 16 bytes,
// one value a vector); rows of lengths around the tile, both directions, a
// field left unwritten (null output). The one-warp-a-row entry
// (zip_rows_chunks) against the same loop: rows of one chunk, several, and a
// partial last chunk, partial last blocks of warps.
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
template <bool Backward>
using affine_chunks = cd::zip_rows_chunks<affine, affine_then, Backward, cd::zip_field<std::uint32_t, affine, &affine::a>,
                                          cd::zip_field<std::uint32_t, affine, &affine::b>>;
template <bool Backward>
using sum_max_chunks = cd::zip_rows_chunks<sum_max, sum_max_op, Backward,
                                           cd::zip_field<std::uint16_t, sum_max, &sum_max::s>,
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

// The one-warp-a-row entry, as associative_scan generates it (no temp storage).
template <class Chunks>
__global__ void __launch_bounds__(Chunks::threads, Chunks::min_blocks)
    zip_chunks_kernel(cd::zip_pointers in, cd::zip_pointers out, std::int64_t rows, std::int64_t length) {
  Chunks::run(in, out, rows, length);
}

template <class Chunks>
void launch_chunks(const cd::zip_pointers& in, const cd::zip_pointers& out, std::int64_t rows, std::int64_t length) {
  ASSERT_EQ(length % Chunks::plan.width, 0) << "the chunk entry takes rows of whole vectors";
  zip_chunks_kernel<Chunks><<<static_cast<unsigned>(Chunks::plan.blocks(rows)), Chunks::plan.threads>>>(in, out, rows,
                                                                                                       length);
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

template <bool Backward, bool Chunks = false>
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
  if constexpr (Chunks) launch_chunks<affine_chunks<Backward>>(in, out, rows, length);
  else launch<scan>(scan::plan, in, out, rows, length);
  const std::vector<affine> want = oracle(x, rows, length, Backward, affine_then{});
  std::vector<std::uint32_t> ga, gb;
  oa.download(ga);
  ob.download(gb);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(gb[i], want[i].b) << "b at " << i << " (row " << i / length << ", place " << i % length << "), rows "
                                << rows << ", length " << length << ", backward " << Backward;
    ASSERT_EQ(ga[i], keep_a ? want[i].a : 0xdeadbeefu)
        << (keep_a ? "a at " : "a (not kept: must stay unwritten) at ") << i << ", rows " << rows << ", length "
        << length << ", backward " << Backward << ", chunks " << Chunks;
  }
}

template <bool Backward, bool Chunks = false>
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
  if constexpr (Chunks) launch_chunks<sum_max_chunks<Backward>>(in, out, rows, length);
  else launch<scan>(scan::plan, in, out, rows, length);
  const std::vector<sum_max> want = oracle(x, rows, length, Backward, sum_max_op{});
  std::vector<std::uint16_t> gs;
  std::vector<std::int64_t> gm;
  os.download(gs);
  om.download(gm);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(gs[i], want[i].s) << "s at " << i << ", rows " << rows << ", length " << length << ", backward "
                                << Backward << ", chunks " << Chunks;
    ASSERT_EQ(gm[i], want[i].m) << "m at " << i << ", rows " << rows << ", length " << length << ", backward "
                                << Backward << ", chunks " << Chunks;
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

// One warp a row: rows of whole vectors shorter than a chunk, of one chunk,
// of several with a partial last one; rows that leave the last block's
// warps partly idle. (The host takes this entry only for lengths that are
// multiples of the width: zip_chunk_plan::fits.)
template <class Chunks>
std::vector<std::int64_t> chunk_lengths() {
  constexpr std::int64_t w = Chunks::plan.width;
  constexpr std::int64_t chunk = 32 * w * Chunks::chunk_shape.rows;
  return {w, 3 * w, chunk - w, chunk, chunk + w, 3 * chunk + 5 * w, 10 * chunk};
}

TEST(zip_scan_cuda, ChunksAffineBothDirections) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_chunks_affine");
  static_assert(affine_chunks<false>::plan.width == affine_scan<false>::policy::vector_width, "the same vectors");
  for (const std::int64_t length : chunk_lengths<affine_chunks<false>>())
    for (const std::int64_t rows : {1, 3, 8, 41}) {
      check_affine<false, true>(rng, rows, length, true);
      check_affine<true, true>(rng, rows, length, true);
    }
  check_affine<false, true>(rng, 5000, 64, true);
  check_affine<true, true>(rng, 5000, 64, true);
}

TEST(zip_scan_cuda, ChunksLeaveAnUnkeptFieldUnwritten) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_chunks_keep");
  for (const std::int64_t length : chunk_lengths<affine_chunks<false>>()) {
    check_affine<false, true>(rng, 9, length, false);
    check_affine<true, true>(rng, 9, length, false);
  }
}

TEST(zip_scan_cuda, ChunksMixedFieldSizes) {
  if (!streamscan_test::gpu_present()) GTEST_SKIP() << "no CUDA device";
  auto rng = streamscan_test::make_rng("zip_chunks_mixed");
  static_assert(sum_max_chunks<false>::plan.width == 2, "int64 the widest field: two values a 16-byte vector");
  for (const std::int64_t length : chunk_lengths<sum_max_chunks<false>>())
    for (const std::int64_t rows : {1, 10}) {
      check_sum_max<false, true>(rng, rows, length);
      check_sum_max<true, true>(rng, rows, length);
    }
}

// The host's rule: rows of whole vectors, enough of them an SM.
TEST(zip_scan_cuda, ChunkPlanRule) {
  constexpr cd::zip_chunk_plan plan = affine_chunks<false>::plan;
  EXPECT_EQ(plan.width, 4);
  EXPECT_TRUE(plan.fits(plan.min_rows_per_sm * 132, 1536, 132));
  EXPECT_FALSE(plan.fits(plan.min_rows_per_sm * 132 - 1, 1536, 132)) << "too few rows";
  EXPECT_FALSE(plan.fits(plan.min_rows_per_sm * 132, 1537, 132)) << "a length not a multiple of the width";
  EXPECT_FALSE(cd::zip_chunk_plan{}.fits(1 << 20, 1024, 1)) << "no chunk kernel in the module";
  EXPECT_EQ(plan.blocks(9), 2);
}

}  // namespace
