// segment_heads: segmented scans by CSR offsets, which first turn the offsets
// into head bits (mark_segment_heads_kernel), against the same scan by head
// bits and CUB's InclusiveSumByKey, int32 2^28, fixed segment lengths 4, 64
// and 4096. Also times the marking alone (the library's kernel, each word
// written once from shared memory) against a memset and one global atomicOr
// per segment, and checks that both mark the same bits. Median ms of 20.
//   build/experiments/segment_heads [log2 n]
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <streamscan/cuda/device/device_segmented_scan.cuh>
#include <streamscan/cuda/kernels/segment_kernels.cuh>
#include <streamscan/tuning/segmented_scan.hpp>

#include "../tools/cuda_timing.cuh"

namespace {

const auto check = streamscan_tool::cuda_check;
void check_ok(const streamscan::status& s) {
  if (!s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::exit(1);
  }
}

// The baseline: one atomicOr per segment.
__global__ void mark_one_atomic_each(const int* offsets, std::int64_t m, std::int64_t n, std::uint32_t* bits) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < m; k += stride) {
    std::int64_t start = 0;
    if (streamscan::detail::segment_start(offsets, k, n, start)) atomicOr(bits + (start >> 5), 1u << (start & 31));
  }
}

__global__ void fill(int* in, int* keys, int* offsets, std::int64_t n, std::int64_t length) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    in[i] = static_cast<int>(i % 7) - 3;
    keys[i] = static_cast<int>(i / length);
    if (i % length == 0) offsets[i / length] = static_cast<int>(i);
  }
}

// Median of 20 timed calls (after a warm-up), in ms.
template <class F>
double median_ms(F&& call) {
  return streamscan_tool::median_ms(20, [&](int) { call(); });
}

}  // namespace

int main(int argc, char** argv) {
  const int log_n = argc > 1 ? std::atoi(argv[1]) : 28;
  const std::int64_t n = std::int64_t{1} << log_n;
  const std::int64_t words = (n + 31) / 32;
  int *in, *out, *ref, *keys, *offsets;
  std::uint32_t *bits, *bits_ref;
  check(cudaMalloc(&in, n * 4), "malloc");
  check(cudaMalloc(&out, n * 4), "malloc");
  check(cudaMalloc(&ref, n * 4), "malloc");
  check(cudaMalloc(&keys, n * 4), "malloc");
  check(cudaMalloc(&offsets, (n + 1) * 4), "malloc");
  check(cudaMalloc(&bits, words * 4), "malloc");
  check(cudaMalloc(&bits_ref, words * 4), "malloc");
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  check(cub::DeviceScan::InclusiveSumByKey(nullptr, cub_bytes, keys, in, ref, n), "cub query");
  check(cudaMalloc(&cub_temp, cub_bytes), "malloc");
  void* temp = nullptr;
  std::size_t temp_cap = 0;
  std::printf("%-8s %10s %10s %10s %8s %8s | %12s %12s %s\n", "length", "cub_ms", "bits_ms", "offsets_ms",
              "bits/cub", "off/cub", "mark_old_ms", "mark_new_ms", "check");
  for (std::int64_t length : {4, 64, 4096}) {
    const std::int64_t m = (n + length - 1) / length;
    fill<<<2048, 256>>>(in, keys, offsets, n, length);
    const int end = static_cast<int>(n);
    check(cudaMemcpy(offsets + m, &end, 4, cudaMemcpyHostToDevice), "offsets end");
    check(cudaMemset(bits_ref, 0, words * 4), "memset");
    mark_one_atomic_each<<<4096, 256>>>(offsets, m, n, bits_ref);
    check(cudaDeviceSynchronize(), "marks");

    const streamscan::head_bits hb(bits_ref);
    const streamscan::segment_offsets<const int*> so{offsets, m};
    std::size_t need = 0, b2 = 0;
    check_ok(streamscan::cuda::segmented_inclusive_scan(nullptr, need, in, out, n, hb));
    check_ok(streamscan::cuda::segmented_inclusive_scan(nullptr, b2, in, out, n, so));
    need = std::max(need, b2);
    if (need > temp_cap) {
      cudaFree(temp);
      check(cudaMalloc(&temp, need), "malloc");
      temp_cap = need;
    }
    const double cub_ms = median_ms([&] {
      std::size_t b = cub_bytes;
      check(cub::DeviceScan::InclusiveSumByKey(cub_temp, b, keys, in, ref, n), "cub");
    });
    const double bits_ms = median_ms([&] {
      std::size_t b = temp_cap;
      check_ok(streamscan::cuda::segmented_inclusive_scan(temp, b, in, out, n, hb));
    });
    bool same = true;
    std::vector<int> a(n), c(n);
    check(cudaMemcpy(a.data(), ref, n * 4, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(c.data(), out, n * 4, cudaMemcpyDeviceToHost), "copy");
    same = same && a == c;
    check(cudaMemset(out, 0, n * 4), "poison");
    const double off_ms = median_ms([&] {
      std::size_t b = temp_cap;
      check_ok(streamscan::cuda::segmented_inclusive_scan(temp, b, in, out, n, so));
    });
    check(cudaMemcpy(c.data(), out, n * 4, cudaMemcpyDeviceToHost), "copy");
    same = same && a == c;
    const int grid = static_cast<int>(std::min<std::int64_t>((m + 255) / 256, 4096));
    const double old_ms = median_ms([&] {
      cudaMemsetAsync(bits, 0, words * 4);
      mark_one_atomic_each<<<grid, 256>>>(offsets, m, n, bits);
    });
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "device");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SMs");
    namespace st = streamscan::tuning;
    const int tile_words = st::mark_heads_tile_words(words, sms);
    const auto tiled = [&] {
      streamscan::cuda::detail::mark_segment_heads_kernel<st::mark_heads_items>
          <<<static_cast<unsigned>((words + tile_words - 1) / tile_words), st::mark_heads_threads,
             tile_words * sizeof(std::uint32_t)>>>(static_cast<const int*>(offsets), m, n, tile_words, bits);
    };
    const double new_ms = median_ms(tiled);
    check(cudaMemset(bits, 0xff, words * 4), "poison");  // every word must be written
    tiled();
    std::vector<std::uint32_t> w1(words), w2(words);
    check(cudaMemcpy(w1.data(), bits_ref, words * 4, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(w2.data(), bits, words * 4, cudaMemcpyDeviceToHost), "copy");
    same = same && w1 == w2;
    std::printf("%-8lld %10.4f %10.4f %10.4f %7.2fx %7.2fx | %12.4f %12.4f %s\n", static_cast<long long>(length), cub_ms,
                bits_ms, off_ms, cub_ms / bits_ms, cub_ms / off_ms, old_ms, new_ms, same ? "ok" : "DIFFERS");
    // The marking at other tile sizes and block sizes (the kernel takes both at launch).
    std::printf("  marking ms by words a tile (threads a block):");
    for (const int threads : {128, 256})
      for (int w = 128; w <= 8192; w *= 2) {
        const auto run = [&] {
          streamscan::cuda::detail::mark_segment_heads_kernel<st::mark_heads_items>
              <<<static_cast<unsigned>((words + w - 1) / w), threads, w * sizeof(std::uint32_t)>>>(
                  static_cast<const int*>(offsets), m, n, w, bits);
        };
        const double ms = median_ms(run);
        check(cudaMemset(bits, 0xff, words * 4), "poison");
        run();
        check(cudaMemcpy(w2.data(), bits, words * 4, cudaMemcpyDeviceToHost), "copy");
        std::printf(" %d(%d) %.4f%s", w, threads, ms, w1 == w2 ? "" : " DIFFERS");
      }
    std::printf("\n");
  }
  return 0;
}
