// streamscan-nccl-bench: the multi-GPU scan and compaction (streamscan/nccl.cuh)
// on 1..P GPUs of this machine, one thread a GPU, one NCCL communicator per
// group size. Every time is host wall-clock from a barrier that starts all
// ranks to the moment the slowest rank's stream is done (what a caller waits
// for), the median of --repeat runs; the one-GPU baselines are timed the same way.
//
//   weak scaling:   P ranks, each a shard of 2^shard int32, against one GPU's
//                   scan of one shard (the 3-pass floor is 1.5x).
//   strong scaling: 2^total int32 split over P ranks, against one GPU's scan
//                   of all of it.
//   compaction:     select_if at 50% kept on P shards of 2^shard, against the
//                   slowest rank's local streamscan::cuda::select_if at once.
//   sort:           sort_keys (uint32) and sort_pairs (uint32/uint32) of
//                   uniform random keys, weak (2^shard a rank, against one
//                   GPU's radix sort of 2^shard) and strong (2^total in all,
//                   against one GPU's sort of 2^total); and NCCL's own
//                   all-to-all (grouped ncclSend / ncclRecv, as nccl-tests'
//                   alltoall) of the bytes a weak sort of keys exchanges.
//
// usage: streamscan-nccl-bench [--shard 28] [--total 28] [--repeat 20] [--json FILE]
#include <cuda_runtime.h>
#include <nccl.h>

#include <streamscan/cuda.cuh>
#include <streamscan/nccl.cuh>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "report.hpp"

using streamscan_tool::json_number;
using streamscan_tool::timing;
using streamscan_tool::utc_now;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

struct below {
  std::int32_t t;
  __host__ __device__ bool operator()(std::int32_t x) const { return x < t; }
};

__global__ void fill_kernel(std::int32_t* p, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    p[i] = static_cast<std::int32_t>(x % 201) - 100;  // uniform in [-100, 100]: "x < 0" keeps ~50%
  }
}

// Uniform random 32-bit keys (a hash of the position).
__global__ void fill_keys_kernel(std::uint32_t* p, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^ (std::uint64_t{seed} << 32);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    p[i] = static_cast<std::uint32_t>(x >> 16);
  }
}

// One rank's buffers on its GPU.
struct rank_data {
  int device = 0;
  std::int64_t n = 0;
  std::int32_t* in = nullptr;
  std::int32_t* out = nullptr;
  std::uint32_t* keys = nullptr;  // the sorts' input keys and values, and their outputs
  std::uint32_t* values = nullptr;
  std::uint32_t* keys_out = nullptr;
  std::uint32_t* values_out = nullptr;
  cudaStream_t stream = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
};

// A reusable barrier for `count` threads.
class barrier {
 public:
  explicit barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const long generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_, arrived_ = 0;
  long generation_ = 0;
};

// Runs body(rank) on `ranks` threads `repeat` times after one warm-up; returns
// the wall times (ms) from the common start to the last rank's end.
timing time_ranks(int ranks, int repeat, const std::function<void(int)>& body) {
  std::vector<double> times;
  barrier start(ranks + 1), end(ranks + 1);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      for (int i = 0; i <= repeat; ++i) {
        start.arrive_and_wait();
        try {
          if (errors[r].empty()) body(r);
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
        end.arrive_and_wait();
      }
    });
  for (int i = 0; i <= repeat; ++i) {
    start.arrive_and_wait();
    const auto t0 = std::chrono::steady_clock::now();
    end.arrive_and_wait();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i > 0) times.push_back(ms);
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < ranks; ++r)
    if (!errors[r].empty()) throw std::runtime_error("rank " + std::to_string(r) + ": " + errors[r]);
  return timing::of(times);
}

struct row {
  std::string what;
  int ranks;
  std::int64_t elements_per_rank;
  timing t;
  timing base;
  std::string baseline;
};

}  // namespace

int main(int argc, char** argv) {
  int shard_log2 = 28, total_log2 = 28, repeat = 20;
  std::string json, command = "streamscan-nccl-bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string("argument ") + name + " needs a value");
      return argv[++i];
    };
    if (a == "--shard") shard_log2 = std::atoi(value("--shard").c_str());
    else if (a == "--total") total_log2 = std::atoi(value("--total").c_str());
    else if (a == "--repeat") repeat = std::atoi(value("--repeat").c_str());
    else if (a == "--json") json = value("--json");
    else if (a == "--help" || a == "-h") {
      std::printf("usage: streamscan-nccl-bench [--shard 28] [--total 28] [--repeat 20] [--json FILE]\n");
      return 0;
    } else {
      std::fprintf(stderr, "streamscan-nccl-bench: unknown argument '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }
  if (shard_log2 < 10 || shard_log2 > 31 || total_log2 < 10 || total_log2 > 31 || repeat < 1) {
    std::fprintf(stderr, "streamscan-nccl-bench: --shard and --total take 10..31, --repeat at least 1\n");
    return 2;
  }
  if (!json.empty() && !std::ofstream(json)) {  // before any work, not after it
    std::fprintf(stderr, "streamscan-nccl-bench: --json: cannot write '%s'\n", json.c_str());
    return 2;
  }
  try {
    int gpus = 0;
    check(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
    char name[256] = {};
    {
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
      std::snprintf(name, sizeof(name), "%s", prop.name);
    }
    int nccl_version = 0;
    ncclGetVersion(&nccl_version);
    std::printf("streamscan-nccl-bench: %d x %s, NCCL %d, shard 2^%d, total 2^%d, repeat %d\n", gpus, name,
                nccl_version, shard_log2, total_log2, repeat);

    const std::int64_t shard = std::int64_t{1} << shard_log2;
    const std::int64_t total = std::int64_t{1} << total_log2;
    const std::int64_t biggest = std::max(shard, total);
    std::vector<rank_data> data(static_cast<std::size_t>(gpus));
    for (int g = 0; g < gpus; ++g) {
      rank_data& d = data[g];
      d.device = g;
      check(cudaSetDevice(g), "cudaSetDevice");
      check(cudaMalloc(&d.in, biggest * sizeof(std::int32_t)), "cudaMalloc in");
      check(cudaMalloc(&d.out, biggest * sizeof(std::int32_t)), "cudaMalloc out");
      check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "cudaStreamCreate");
      fill_kernel<<<1024, 256, 0, d.stream>>>(d.in, biggest, 12345u + g);
      for (std::uint32_t** b : {&d.keys, &d.values, &d.keys_out, &d.values_out})
        check(cudaMalloc(b, biggest * sizeof(std::uint32_t)), "cudaMalloc sort buffers");
      fill_keys_kernel<<<1024, 256, 0, d.stream>>>(d.keys, biggest, 777u + g);
      fill_keys_kernel<<<1024, 256, 0, d.stream>>>(d.values, biggest, 999u + g);
      check(cudaStreamSynchronize(d.stream), "fill");
      d.temp_bytes = 0;
    }
    auto ensure_temp = [](rank_data& d, std::size_t bytes) {
      if (bytes <= d.temp_bytes) return;
      if (d.temp) check(cudaFree(d.temp), "cudaFree");
      check(cudaMalloc(&d.temp, bytes), "cudaMalloc temp");
      d.temp_bytes = bytes;
    };

    // One-GPU baselines on GPU 0: the scan of n elements and the local compaction.
    auto single_scan = [&](std::int64_t n) {
      rank_data& d = data[0];
      return time_ranks(1, repeat, [&](int) {
        check(cudaSetDevice(d.device), "cudaSetDevice");
        std::size_t b = 0;
        streamscan::throw_if_error(streamscan::cuda::inclusive_scan(nullptr, b, d.in, d.out, n, streamscan::plus{}, d.stream));
        ensure_temp(d, b);
        streamscan::throw_if_error(streamscan::cuda::inclusive_scan(d.temp, b, d.in, d.out, n, streamscan::plus{}, d.stream));
        check(cudaStreamSynchronize(d.stream), "scan");
      });
    };
    const timing one_shard = single_scan(shard);
    const timing one_total = total == shard ? one_shard : single_scan(total);
    auto single_sort = [&](std::int64_t n, bool pairs) {
      rank_data& d = data[0];
      return time_ranks(1, repeat, [&](int) {
        check(cudaSetDevice(d.device), "cudaSetDevice");
        std::size_t b = 0;
        auto call = [&](void* t) {
          return pairs ? streamscan::cuda::radix_sort_pairs(t, b, d.keys, d.keys_out, d.values, d.values_out, n,
                                                            d.stream)
                       : streamscan::cuda::radix_sort_keys(t, b, d.keys, d.keys_out, n, d.stream);
        };
        streamscan::throw_if_error(call(nullptr));
        ensure_temp(d, b);
        streamscan::throw_if_error(call(d.temp));
        check(cudaStreamSynchronize(d.stream), "sort");
      });
    };
    const timing sort_shard = single_sort(shard, false), sort_total = single_sort(total, false);
    const timing pairs_shard = single_sort(shard, true), pairs_total = single_sort(total, true);
    // The sort's last step on one GPU: the stable merge of two sorted halves of a shard.
    auto single_merge = [&](bool pairs) {
      rank_data& d = data[0];
      check(cudaSetDevice(d.device), "cudaSetDevice");
      const std::int64_t half = shard / 2;
      for (std::int64_t at : {std::int64_t{0}, half}) {
        if (pairs)
          streamscan::cuda::radix_sort_pairs(d.keys + at, d.keys_out + at, d.values + at, d.values_out + at, half,
                                             d.stream);
        else
          streamscan::cuda::radix_sort_keys(d.keys + at, d.keys_out + at, half, d.stream);
      }
      std::int64_t* path = nullptr;
      check(cudaMalloc(&path, sizeof(std::int64_t) * (shard / 256 + 2)), "cudaMalloc path");
      using run = streamscan::cuda::detail::sorted_run<std::uint32_t, std::uint32_t>;
      const run a{d.keys_out, d.values_out, half}, b{d.keys_out + half, d.values_out + half, shard - half};
      // The tuned shape, then others (threads x items), each timed alone.
      auto shape = [&](auto threads, auto items) {
        constexpr int T = decltype(threads)::value, I = decltype(items)::value;
        const timing t = time_ranks(1, repeat, [&](int) {
          check(cudaSetDevice(d.device), "cudaSetDevice");
          const streamscan::cuda::detail::sort_order_bits<std::uint32_t> order{};
          streamscan::throw_if_error(
              pairs ? streamscan::cuda::detail::merge_runs<std::uint32_t, std::uint32_t, true, T, I>(
                          "merge", a, b, d.keys, d.values, path, order, d.stream)
                    : streamscan::cuda::detail::merge_runs<std::uint32_t, std::uint32_t, false, T, I>(
                          "merge", a, b, d.keys, nullptr, path, order, d.stream));
          check(cudaStreamSynchronize(d.stream), "merge");
        });
        std::printf("merge %s, %d x %d: %.3f ms\n", pairs ? "pairs" : "keys", T, I, t.median_ms);
        return t;
      };
      using std::integral_constant;
      constexpr auto keys_shape = streamscan::cuda::detail::merge_shape_of<std::uint32_t, std::uint32_t, false>;
      constexpr auto pairs_shape = streamscan::cuda::detail::merge_shape_of<std::uint32_t, std::uint32_t, true>;
      const timing t =
          pairs ? shape(integral_constant<int, pairs_shape.threads>{}, integral_constant<int, pairs_shape.items>{})
                : shape(integral_constant<int, keys_shape.threads>{}, integral_constant<int, keys_shape.items>{});
      shape(integral_constant<int, 128>{}, integral_constant<int, 15>{});
      shape(integral_constant<int, 256>{}, integral_constant<int, 11>{});
      shape(integral_constant<int, 256>{}, integral_constant<int, 15>{});
      shape(integral_constant<int, 512>{}, integral_constant<int, 9>{});
      check(cudaFree(path), "cudaFree path");
      fill_keys_kernel<<<1024, 256, 0, d.stream>>>(d.keys, biggest, 777u);  // the sorts' input again
      fill_keys_kernel<<<1024, 256, 0, d.stream>>>(d.values, biggest, 999u);
      check(cudaStreamSynchronize(d.stream), "fill");
      return t;
    };
    const timing merge_keys = single_merge(false), merge_pairs = single_merge(true);

    std::vector<row> rows;
    rows.push_back({"merge of two sorted halves, keys u32 (one GPU)", 1, shard, merge_keys, sort_shard,
                    "one GPU's sort of one shard"});
    rows.push_back({"merge of two sorted halves, pairs u32/u32 (one GPU)", 1, shard, merge_pairs, pairs_shard,
                    "one GPU's sort of one shard"});
    for (int p = 1; p <= gpus; ++p) {
      std::vector<ncclComm_t> comms(static_cast<std::size_t>(p));
      check(ncclCommInitAll(comms.data(), p, nullptr), "ncclCommInitAll");
      auto ranked_scan = [&](std::int64_t n) {
        return time_ranks(p, repeat, [&](int r) {
          rank_data& d = data[r];
          check(cudaSetDevice(d.device), "cudaSetDevice");
          std::size_t b = 0;
          streamscan::throw_if_error(
              streamscan::nccl::inclusive_scan(nullptr, b, d.in, d.out, n, streamscan::plus{}, comms[r], d.stream));
          ensure_temp(d, b);
          streamscan::throw_if_error(
              streamscan::nccl::inclusive_scan(d.temp, b, d.in, d.out, n, streamscan::plus{}, comms[r], d.stream));
          check(cudaStreamSynchronize(d.stream), "ranked scan");
        });
      };
      rows.push_back({"weak scan", p, shard, ranked_scan(shard), one_shard, "one GPU, one shard"});
      const std::int64_t part = (total + p - 1) / p;
      rows.push_back({"strong scan", p, part, ranked_scan(part), one_total, "one GPU, all elements"});

      const timing local = time_ranks(p, repeat, [&](int r) {
        rank_data& d = data[r];
        check(cudaSetDevice(d.device), "cudaSetDevice");
        std::size_t b = 0;
        streamscan::throw_if_error(
            streamscan::cuda::select_if(nullptr, b, d.in, d.out, shard, shard, nullptr, below{0}, d.stream));
        ensure_temp(d, b + 256);
        streamscan::throw_if_error(streamscan::cuda::select_if(static_cast<char*>(d.temp) + 256, b, d.in, d.out,
                                                               shard, shard, static_cast<std::int64_t*>(d.temp),
                                                               below{0}, d.stream));
        std::int64_t host_count = 0;
        check(cudaMemcpyAsync(&host_count, d.temp, sizeof(host_count), cudaMemcpyDeviceToHost, d.stream), "count");
        check(cudaStreamSynchronize(d.stream), "local select");
      });
      const timing ranked = time_ranks(p, repeat, [&](int r) {
        rank_data& d = data[r];
        check(cudaSetDevice(d.device), "cudaSetDevice");
        std::size_t b = 0;
        streamscan::nccl::rank_placement placement;
        streamscan::throw_if_error(streamscan::nccl::select_if(nullptr, b, d.in, d.out, shard, shard, below{0},
                                                               placement, comms[r], d.stream));
        ensure_temp(d, b);
        streamscan::throw_if_error(streamscan::nccl::select_if(d.temp, b, d.in, d.out, shard, shard, below{0},
                                                               placement, comms[r], d.stream));
      });
      rows.push_back({"compaction 50%", p, shard, ranked, local, "slowest rank's local select_if"});

      auto ranked_sort = [&](std::int64_t n, bool pairs) {
        return time_ranks(p, repeat, [&](int r) {
          rank_data& d = data[r];
          check(cudaSetDevice(d.device), "cudaSetDevice");
          const std::int64_t capacity = biggest;
          std::int64_t count = 0;
          std::size_t b = 0;
          auto call = [&](void* t) {
            return pairs ? streamscan::nccl::sort_pairs(t, b, d.keys, d.keys_out, d.values, d.values_out, n, capacity,
                                                        count, comms[r], d.stream)
                         : streamscan::nccl::sort_keys(t, b, d.keys, d.keys_out, n, capacity, count, comms[r], d.stream);
          };
          streamscan::throw_if_error(call(nullptr));
          ensure_temp(d, b);
          streamscan::throw_if_error(call(d.temp));
          check(cudaStreamSynchronize(d.stream), "ranked sort");
        });
      };
      rows.push_back({"weak sort keys u32", p, shard, ranked_sort(shard, false), sort_shard, "one GPU, one shard"});
      rows.push_back({"strong sort keys u32", p, part, ranked_sort(part, false), sort_total, "one GPU, all keys"});
      rows.push_back({"weak sort pairs u32/u32", p, shard, ranked_sort(shard, true), pairs_shard, "one GPU, one shard"});
      rows.push_back({"strong sort pairs u32/u32", p, part, ranked_sort(part, true), pairs_total, "one GPU, all keys"});
      if (p > 1) {
        // NCCL's all-to-all of what a weak sort of uniform keys sends: shard / p keys to each other rank.
        const std::size_t piece = static_cast<std::size_t>(shard / p) * sizeof(std::uint32_t);
        const timing a2a = time_ranks(p, repeat, [&](int r) {
          rank_data& d = data[r];
          check(cudaSetDevice(d.device), "cudaSetDevice");
          check(ncclGroupStart(), "ncclGroupStart");
          for (int q = 0; q < p; ++q) {
            if (q == r) continue;
            check(ncclSend(reinterpret_cast<char*>(d.keys) + piece * q, piece, ncclUint8, q, comms[r], d.stream), "ncclSend");
            check(ncclRecv(reinterpret_cast<char*>(d.keys_out) + piece * q, piece, ncclUint8, q, comms[r], d.stream),
                  "ncclRecv");
          }
          check(ncclGroupEnd(), "ncclGroupEnd");
          check(cudaStreamSynchronize(d.stream), "all-to-all");
        });
        const double gbps = static_cast<double>(piece) * (p - 1) / (a2a.median_ms * 1e6);
        char what[128];
        std::snprintf(what, sizeof what, "NCCL all-to-all of a weak sort's keys (%.0f GB/s sent a rank)", gbps);
        rows.push_back({what, p, shard, a2a, sort_shard, "one GPU's sort of one shard"});
      }
      for (ncclComm_t c : comms) ncclCommDestroy(c);
    }

    std::printf("\n| what | GPUs | elements a GPU | ms | noise | baseline ms | ratio | baseline |\n"
                "|---|---|---|---|---|---|---|---|\n");
    for (const row& r : rows)
      std::printf("| %s | %d | 2^%d%s | %.3f | %.1f%% | %.3f | %.3fx | %s |\n", r.what.c_str(), r.ranks,
                  63 - __builtin_clzll(static_cast<unsigned long long>(r.elements_per_rank)),
                  (r.elements_per_rank & (r.elements_per_rank - 1)) ? "+" : "", r.t.median_ms, r.t.noise_pct,
                  r.base.median_ms, r.t.median_ms / r.base.median_ms, r.baseline.c_str());
    if (!json.empty()) {
      std::ofstream f(json);
      if (!f) throw std::runtime_error("cannot write " + json);
      // Schema 2 (as streamscan bench's): each time with its samples, min, max and noise.
      auto stats = [](const char* prefix, const timing& t) {
        const std::string p = prefix;
        return "\"" + p + "median_ms\": " + json_number(t.median_ms, 6) + ", \"" + p + "min_ms\": " +
               json_number(t.min_ms, 6) + ", \"" + p + "max_ms\": " + json_number(t.max_ms, 6) + ", \"" + p +
               "samples\": " + std::to_string(t.samples) + ", \"" + p + "noise_pct\": " + json_number(t.noise_pct, 2);
      };
      f << "{\n  \"schema\": 2,\n  \"tool\": \"streamscan-nccl-bench\",\n  \"device\": \"" << gpus << " x " << name
        << "\",\n  \"date\": \"" << utc_now() << "\",\n  \"command\": \"" << command << "\",\n  \"gpus\": "
        << gpus << ",\n  \"nccl_version\": " << nccl_version << ",\n  \"repeat\": " << repeat
        << ",\n  \"type\": \"int32\",\n  \"rows\": [\n";
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const row& r = rows[i];
        f << "    {\"what\": \"" << r.what << "\", \"ranks\": " << r.ranks << ", \"elements_per_rank\": "
          << r.elements_per_rank << ", " << stats("", r.t) << ", " << stats("baseline_", r.base)
          << ", \"ratio\": " << json_number(r.t.median_ms / r.base.median_ms, 4) << ", \"baseline\": \""
          << r.baseline << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
      }
      f << "  ]\n}\n";
    }
    for (rank_data& d : data) {
      cudaSetDevice(d.device);
      cudaFree(d.in);
      cudaFree(d.out);
      cudaFree(d.temp);
      for (std::uint32_t* b : {d.keys, d.values, d.keys_out, d.values_out}) cudaFree(b);
      cudaStreamDestroy(d.stream);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamscan-nccl-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
