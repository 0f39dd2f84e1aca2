// streamscan/cuda/dispatch/dispatch_ranked_sort.cuh - the radix sort of one
// logical array whose shards are held by the ranks of a communicator
// (comm/communicator.cuh): afterwards rank r holds positions
// [share_begin(r), share_begin(r + 1)) of the globally sorted sequence
// (dispatch_ranked.cuh's split, numpy.array_split's), stable across ranks:
// equal keys keep rank order, then position.
//
// 1. The ranks exchange their checks and sizes (one record each); any rank's
//    bad argument, or a capacity short of its share, is every rank's error
//    before any rank writes.
// 2. Each rank sorts its shard (the single-GPU radix sort, into temp).
// 3. Splitters, exactly: for each boundary between shares, the key at that
//    global position, found most significant digit first in rounds of a
//    binary search per candidate digit in every sorted shard and an
//    all-gather of the counts (ranked_sort_kernels.cuh); equal keys that
//    straddle a boundary are split in rank order. The rounds stay on the
//    device; the host reads the result once.
// 4. One grouped exchange: rank r's piece for rank q, keys and values, sent
//    straight from its sorted shard.
// 5. Each rank merges the pieces it holds, in rank order, pairwise
//    (ceil(log2 ranks) levels of the stable merge, merge_kernels.cuh).
// Bytes a key moves on one rank: the local sort's (2P + 1 key accesses for P
// digit passes), the pieces sent and received, and a read and a write per
// merge level. Sorting the shard first (rather than partitioning it by the
// top digits first, as RMG sort does) makes the splitters exact and cheap
// (binary searches), the send buffers contiguous without a partition pass,
// and leaves the received data only to be merged.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../detail/sort_validate.hpp"
#include "../../detail/validate.hpp"
#include "../../sort.hpp"
#include "../../status.hpp"
#include "../../tuning/sort.hpp"
#include "../kernels/merge_kernels.cuh"
#include "../kernels/ranked_sort_kernels.cuh"
#include "dispatch_ranked.cuh"
#include "dispatch_sort.cuh"

namespace streamscan::cuda::detail {

// A run of sorted keys (and their values) in device memory.
template <class K, class V>
struct sorted_run {
  const K* keys = nullptr;
  const V* values = nullptr;
  std::int64_t n = 0;
};

// The merge's block shape for K keys and V values (tuning/sort.hpp).
template <class K, class V, bool Pairs>
inline constexpr tuning::merge_shape merge_shape_of = tuning::merge_shape_for(sizeof(K), Pairs ? int(sizeof(V)) : 0);

// out[0, a.n + b.n) <- the stable merge of runs a and b (a's keys first among
// equals); path holds (a.n + b.n) / (Threads * Items) + 2 entries. Threads and
// Items: tuning's shape (the bench may try others).
template <class K, class V, bool Pairs, int Threads = merge_shape_of<K, V, Pairs>.threads,
          int Items = merge_shape_of<K, V, Pairs>.items>
status merge_runs(const char* fn, const sorted_run<K, V>& a, const sorted_run<K, V>& b, K* keys_out, V* values_out,
                  std::int64_t* path, sort_order_bits<K> order, cudaStream_t stream) {
  using agent = agent_merge<K, V, Pairs, Threads, Items>;
  const std::int64_t total = a.n + b.n;
  if (total == 0) return status::ok();
  const auto copy = [&](const sorted_run<K, V>& run) -> status {
    cudaError_t e = cudaMemcpyAsync(keys_out, run.keys, sizeof(K) * run.n, cudaMemcpyDeviceToDevice, stream);
    if constexpr (Pairs)
      if (e == cudaSuccess)
        e = cudaMemcpyAsync(values_out, run.values, sizeof(V) * run.n, cudaMemcpyDeviceToDevice, stream);
    return e == cudaSuccess ? status::ok() : cuda_status(fn, "copying a run (cudaMemcpyAsync)", e);
  };
  if (b.n == 0) return copy(a);
  if (a.n == 0) return copy(b);
  const std::int64_t tiles = (total + agent::tile - 1) / agent::tile;
  if (status s = launch(fn, "merge_partition_kernel", merge_partition_kernel<K>, (tiles + 1 + 255) / 256, 256, stream,
                        a.keys, a.n, b.keys, b.n, agent::tile, tiles, order, path);
      !s)
    return s;
  typename agent::params p;
  p.a_keys = a.keys;
  p.b_keys = b.keys;
  p.a_values = a.values;
  p.b_values = b.values;
  p.na = a.n;
  p.nb = b.n;
  p.keys_out = keys_out;
  p.values_out = values_out;
  p.path = path;
  p.order = order;
  return launch(fn, "merge_kernel", merge_kernel<K, V, Pairs, Threads, Items>, tiles, Threads, stream, p);
}

// Levels of pairwise merges that turn `runs` runs into one.
inline int merge_levels(int runs) {
  int levels = 0;
  for (int width = 1; width < runs; width *= 2) ++levels;
  return levels;
}

// Carves 256-byte-aligned pieces out of temp storage, in order.
struct temp_carver {
  unsigned char* at = nullptr;  // null: only counting
  std::size_t used = 0;
  template <class T>
  T* take(std::int64_t count) {
    T* p = at ? reinterpret_cast<T*>(at + used) : nullptr;
    used += round_up_256(static_cast<std::size_t>(count) * sizeof(T));
    return p;
  }
};

// The call's kind for the ranks' signature: the key and value types and every option that decides the order.
inline std::string ranked_sort_kind(bool pairs, const sort_options& opt, int begin_bit, int end_bit) {
  return std::string(pairs ? "sort_pairs" : "sort_keys") + (opt.order == sort_order::descending ? "/descending" : "") +
         "/bits " + std::to_string(begin_bit) + "-" + std::to_string(end_bit);
}

template <class K, class V, class Comm>
status ranked_sort(const char* fn, void* temp, std::size_t& temp_bytes, const sort_io<K, V>& io, std::int64_t n,
                   std::int64_t capacity, std::int64_t& count, const Comm& comm, cudaStream_t stream,
                   const sort_options& opt) {
  static_assert(has_radix_order<K>::value,
                "the sort across ranks is a radix sort: keys need a radix order (integers, float, double)");
  using U = typename radix_key_traits<K>::bits_type;
  using streamscan::detail::invalid_argument;
  constexpr bool pairs = sort_io<K, V>::pairs;
  using VV = std::conditional_t<pairs, V, unsigned char>;  // a stand-in value type for the keys-only layout
  const int ranks = comm.size();
  const int me = comm.rank();
  const auto num = [](std::int64_t v) { return std::to_string(v); };

  // This rank's own checks (its pointers wait until temp is given).
  int begin_bit = 0, end_bit = radix_key_traits<K>::bits;
  status local = streamscan::detail::validate_sort_args<K>(fn, io.keys_in, io.keys_out, io.values_in, io.values_out,
                                                           pairs, n, true, opt, begin_bit, end_bit);
  if (local && capacity < 0) local = invalid_argument(fn, "argument 'capacity' is negative (" + num(capacity) + ")");
  const std::uint64_t signature =
      call_signature<K, V>(ranked_sort_kind(pairs, opt, begin_bit, end_bit).c_str());

  // Temp: the records, this rank's sorted shard, then the local sort's
  // storage, which the received pieces and the merge's second buffer reuse
  // once the shard is sorted; the splitter search; the merge path.
  const int boundaries = ranks - 1;
  const int digit_bits = tuning::splitter_digit_bits(ranks);
  const splitter_layout layout{boundaries, (1 << digit_bits) + 1};
  const int levels = merge_levels(ranks);
  constexpr std::int64_t merge_tile = tuning::merge_shape_for(sizeof(K), pairs ? int(sizeof(V)) : 0).threads *
                                      tuning::merge_shape_for(sizeof(K), pairs ? int(sizeof(V)) : 0).items;
  const std::int64_t held = std::max<std::int64_t>(capacity, 0), shard = std::max<std::int64_t>(n, 0);
  sort_io<K, V> local_io{io.keys_in, nullptr, io.values_in, nullptr};
  std::size_t sort_bytes = 0;
  if (local) local = dispatch_radix_sort(fn, nullptr, sort_bytes, local_io, n, stream, opt);
  const auto layout_of = [&](unsigned char* base, auto&& each) {
    temp_carver c{base};
    unsigned char* records = c.take<unsigned char>(static_cast<std::int64_t>(rank_area::bytes(ranks)));
    K* shard_keys = c.take<K>(ranks > 1 ? shard : 0);
    VV* shard_values = c.take<VV>(pairs && ranks > 1 ? shard : 0);
    auto* state = c.take<splitter_state<U>>(boundaries);
    auto* payload = c.take<std::int64_t>(layout.words());
    auto* gathered = c.take<std::int64_t>(layout.words() * ranks);
    auto* result = c.take<std::int64_t>(2 * static_cast<std::int64_t>(boundaries) * ranks + ranks);
    auto* path = c.take<std::int64_t>((held + merge_tile - 1) / merge_tile + 2);
    // The local sort's storage, then reused: received pieces, the merge's second buffer.
    temp_carver w{c.at ? c.at + c.used : nullptr};
    K* recv_keys = w.take<K>(ranks > 1 ? held : 0);
    VV* recv_values = w.take<VV>(pairs && ranks > 1 ? held : 0);
    K* mid_keys = w.take<K>(levels >= 2 ? held : 0);
    VV* mid_values = w.take<VV>(pairs && levels >= 2 ? held : 0);
    const std::size_t work = std::max(round_up_256(sort_bytes), w.used);
    each(records, shard_keys, shard_values, state, payload, gathered, result, path, c.at ? c.at + c.used : nullptr,
         recv_keys, recv_values, mid_keys, mid_values);
    return c.used + work + 255;
  };
  const auto nothing = [](auto&&...) {};
  const std::size_t required = layout_of(nullptr, nothing);
  if (temp == nullptr) {  // errors wait for the exchange, so that every rank learns them
    temp_bytes = required;
    return status::ok();
  }

  if (local) local = streamscan::detail::validate_temp_bytes(fn, temp_bytes, required);
  if (local && n > 0 && io.keys_in == nullptr) local = invalid_argument(fn, "argument 'keys_in' is a null pointer while n = " + num(n));
  if (local && capacity > 0 && io.keys_out == nullptr)
    local = invalid_argument(fn, "argument 'keys_out' is a null pointer while capacity = " + num(capacity));
  if constexpr (pairs) {
    if (local && n > 0 && io.values_in == nullptr)
      local = invalid_argument(fn, "argument 'values_in' is a null pointer while n = " + num(n));
    if (local && capacity > 0 && io.values_out == nullptr)
      local = invalid_argument(fn, "argument 'values_out' is a null pointer while capacity = " + num(capacity));
  }
  const auto overlap = [](const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
    const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
  };
  const std::size_t kin = sizeof(K) * static_cast<std::size_t>(n), kout = sizeof(K) * static_cast<std::size_t>(held);
  if (local && io.keys_in != io.keys_out && overlap(io.keys_in, kin, io.keys_out, kout))
    local = invalid_argument(fn, "arguments 'keys_in' and 'keys_out' overlap in part (in place needs the same pointer)");
  if constexpr (pairs) {
    const std::size_t vin = sizeof(V) * static_cast<std::size_t>(n), vout = sizeof(V) * static_cast<std::size_t>(held);
    if (local && io.values_in != io.values_out && overlap(io.values_in, vin, io.values_out, vout))
      local = invalid_argument(fn,
                               "arguments 'values_in' and 'values_out' overlap in part (in place needs the same pointer)");
    if (local && (overlap(io.keys_in, kin, io.values_in, vin) || overlap(io.keys_in, kin, io.values_out, vout) ||
                  overlap(io.keys_out, kout, io.values_in, vin) || overlap(io.keys_out, kout, io.values_out, vout)))
      local = invalid_argument(fn, "the keys and the values overlap");
  }
  device_facts facts;
  if (local) local = current_device_facts(fn, facts);
  if (local && n > 0) local = check_device_accessible(fn, "keys_in", io.keys_in, facts);
  if (local && capacity > 0) local = check_device_accessible(fn, "keys_out", io.keys_out, facts);
  if constexpr (pairs) {
    if (local && n > 0) local = check_device_accessible(fn, "values_in", io.values_in, facts);
    if (local && capacity > 0) local = check_device_accessible(fn, "values_out", io.values_out, facts);
  }
  if (local) local = check_device_accessible(fn, "temp", temp, facts);

  rank_area_holder holder(fn, local ? aligned_256(temp) : nullptr, ranks, stream);
  if (!holder.get_status()) return holder.get_status();
  std::vector<unsigned char> host;
  const status exchanged = exchange_records(fn, comm, holder.area(), make_rank_head(fn, local, signature, n, capacity, false),
                                            0, stream, host, [] { return status::ok(); });
  if (!local) return local;
  if (!exchanged) return exchanged;
  if (status s = check_ranks(fn, host, ranks, me, signature); !s) return s;

  // Every rank's share, and every rank's verdict on every capacity.
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks));
  std::int64_t total = 0;
  for (int r = 0; r < ranks; ++r) total += sizes[r] = head_of(host, r).n;
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t share = share_begin(total, ranks, r + 1) - share_begin(total, ranks, r);
    if (head_of(host, r).capacity < share)
      return invalid_argument(fn, (r == me ? "" : "on rank " + std::to_string(r) + " of " + std::to_string(ranks) + ": ") +
                                      "argument 'capacity' is " + num(head_of(host, r).capacity) +
                                      " but the rank's share of the " + num(total) + " sorted keys is " + num(share));
  }
  const std::int64_t my_begin = share_begin(total, ranks, me), my_end = share_begin(total, ranks, me + 1);
  count = my_end - my_begin;
  if (total == 0) return status::ok();

  status result_status = status::ok();
  layout_of(static_cast<unsigned char*>(aligned_256(temp)), [&](unsigned char*, K* shard_keys, VV* shard_values,
                                                               splitter_state<U>* state, std::int64_t* payload,
                                                               std::int64_t* gathered, std::int64_t* result,
                                                               std::int64_t* path, unsigned char* work, K* recv_keys,
                                                               VV* recv_values, K* mid_keys, VV* mid_values) {
    result_status = [&]() -> status {
      // 2. The local sort; with one rank it is the whole sort.
      sort_io<K, V> sort_io_local{io.keys_in, ranks > 1 ? shard_keys : io.keys_out};
      if constexpr (pairs) {
        sort_io_local.values_in = io.values_in;
        sort_io_local.values_out = ranks > 1 ? shard_values : io.values_out;
      }
      std::size_t b = sort_bytes;
      const status sorted = dispatch_radix_sort(fn, work, b, sort_io_local, n, stream, opt);
      if (ranks == 1) return sorted;

      // 3. The splitters.
      const sort_order_bits<K> order{begin_bit, end_bit, opt.order == sort_order::descending};
      std::vector<splitter_state<U>> init(static_cast<std::size_t>(boundaries));
      for (int q = 0; q < boundaries; ++q) init[q] = {U(0), share_begin(total, ranks, q + 1), 0, n};
      // A rank whose sort failed still takes part in the search (so that no
      // rank waits for it) and says so in its status word.
      const std::int64_t ok_word = sorted ? 0 : static_cast<std::int64_t>(sorted.code());
      if (const cudaError_t e = cudaMemcpyAsync(state, init.data(), sizeof(init[0]) * init.size(),
                                                cudaMemcpyHostToDevice, stream);
          e != cudaSuccess)
        return cuda_status(fn, "writing the splitter search's state (cudaMemcpyAsync)", e);
      if (const cudaError_t e = cudaMemcpyAsync(payload, &ok_word, sizeof(ok_word), cudaMemcpyHostToDevice, stream);
          e != cudaSuccess)
        return cuda_status(fn, "writing this rank's status (cudaMemcpyAsync)", e);
      for (int bits = end_bit - begin_bit; bits > 0;) {
        const int d = std::min(digit_bits, bits);
        bits -= d;
        const std::int64_t threads = ((std::int64_t{1} << d) + 1) * boundaries;
        if (status s = launch(fn, "splitter_count_kernel", splitter_count_kernel<K>, (threads + 255) / 256, 256,
                              stream, static_cast<const K*>(shard_keys), order,
                              static_cast<const splitter_state<U>*>(state), layout, bits, d, payload);
            !s)
          return s;
        if (status s = comm.all_gather(fn, payload, gathered, sizeof(std::int64_t) * layout.words(), stream); !s)
          return s;
        if (status s = launch(fn, "splitter_choose_kernel", splitter_choose_kernel<U>, (boundaries + 31) / 32, 32, stream,
                              static_cast<const std::int64_t*>(gathered), ranks, me, layout, bits, d, state, result);
            !s)
          return s;
      }
      std::vector<std::int64_t> found(2 * static_cast<std::size_t>(boundaries) * ranks + ranks);
      cudaError_t e = cudaMemcpyAsync(found.data(), result, sizeof(std::int64_t) * found.size(), cudaMemcpyDeviceToHost,
                                      stream);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
      if (e != cudaSuccess) return cuda_status(fn, "reading the splitters", e);
      if (!sorted) return sorted;
      for (int r = 0; r < ranks; ++r)
        if (found[2 * static_cast<std::size_t>(boundaries) * ranks + r] != 0)
          return status(errc::communication_error, std::string(fn) + ": rank " + std::to_string(r) + " of " +
                                                       std::to_string(ranks) + " failed to sort its shard");

      // split[r * (ranks + 1) + q]: rank r's keys that go to ranks below q.
      std::vector<std::int64_t> split(static_cast<std::size_t>(ranks) * (ranks + 1));
      for (int r = 0; r < ranks; ++r) {
        split[r * (ranks + 1)] = 0;
        split[r * (ranks + 1) + ranks] = sizes[r];
      }
      for (int q = 0; q < boundaries; ++q) {
        const std::int64_t* at = found.data() + 2 * static_cast<std::size_t>(q) * ranks;
        std::int64_t below = 0;
        for (int r = 0; r < ranks; ++r) below += at[2 * r];
        std::int64_t equal_before = 0;  // equal keys of lower ranks
        const std::int64_t wanted = share_begin(total, ranks, q + 1) - below;  // equal keys before the boundary
        for (int r = 0; r < ranks; ++r) {
          const std::int64_t equal = at[2 * r + 1] - at[2 * r];
          split[r * (ranks + 1) + q + 1] = at[2 * r] + std::clamp<std::int64_t>(wanted - equal_before, 0, equal);
          equal_before += equal;
        }
      }

      // 4. One exchange: this rank's piece for each rank, keys then values.
      std::vector<transfer> sends, recvs;
      std::vector<sorted_run<K, V>> runs(static_cast<std::size_t>(ranks));
      std::int64_t received = 0;
      for (int r = 0; r < ranks; ++r) {
        const std::int64_t from = split[r * (ranks + 1) + me], to = split[r * (ranks + 1) + me + 1];
        if (r == me) {
          runs[r].keys = shard_keys + from;
          if constexpr (pairs) runs[r].values = shard_values + from;
        } else {
          runs[r].keys = recv_keys + received;
          if constexpr (pairs) runs[r].values = recv_values + received;
          received += to - from;
        }
        runs[r].n = to - from;
      }
      for (int pass = 0; pass < (pairs ? 2 : 1); ++pass) {
        for (int q = 0; q < ranks; ++q) {
          if (q == me) continue;
          const std::int64_t from = split[me * (ranks + 1) + q], to = split[me * (ranks + 1) + q + 1];
          const std::size_t elem = pass == 0 ? sizeof(K) : sizeof(VV);
          void* base = pass == 0 ? static_cast<void*>(shard_keys) : static_cast<void*>(shard_values);
          if (to > from)
            sends.push_back({q, static_cast<unsigned char*>(base) + elem * static_cast<std::size_t>(from),
                             elem * static_cast<std::size_t>(to - from)});
          const sorted_run<K, V>& run = runs[q];
          void* into = pass == 0 ? static_cast<void*>(const_cast<K*>(run.keys))
                                 : static_cast<void*>(const_cast<V*>(reinterpret_cast<const V*>(run.values)));
          if (run.n > 0) recvs.push_back({q, into, elem * static_cast<std::size_t>(run.n)});
        }
      }
      if (status s = comm.exchange(fn, sends.data(), static_cast<int>(sends.size()), recvs.data(),
                                   static_cast<int>(recvs.size()), stream);
          !s)
        return s;

      // 5. The merges: level l writes the output when levels - l is even.
      for (int level = 1; level <= levels; ++level) {
        const bool to_out = (levels - level) % 2 == 0;
        K* keys_to = to_out ? io.keys_out : mid_keys;
        V* values_to = nullptr;
        if constexpr (pairs) values_to = to_out ? io.values_out : mid_values;
        std::vector<sorted_run<K, V>> next;
        std::int64_t at = 0;
        for (std::size_t i = 0; i < runs.size(); i += 2) {
          const sorted_run<K, V> b = i + 1 < runs.size() ? runs[i + 1] : sorted_run<K, V>{};
          V* values_at = nullptr;
          if constexpr (pairs) values_at = values_to + at;
          if (status s = merge_runs<K, V, pairs>(fn, runs[i], b, keys_to + at, values_at, path, order, stream); !s)
            return s;
          sorted_run<K, V> merged{keys_to + at, values_at, runs[i].n + b.n};
          next.push_back(merged);
          at += merged.n;
        }
        runs = std::move(next);
      }
      return status::ok();
    }();
  });
  return result_status;
}

}  // namespace streamscan::cuda::detail
