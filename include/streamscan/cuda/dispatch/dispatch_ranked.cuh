// streamscan/cuda/dispatch/dispatch_ranked.cuh - scan and compaction of one
// logical array whose shards are held by the ranks of a communicator
// (comm/communicator.cuh), in rank order.
//
// Scan: each rank but the last reduces its shard (one read), the ranks all-gather one
// fixed-size record each (their checks, their call's signature, their
// aggregate), each rank folds the lower ranks' aggregates in rank order into
// its carry, then scans its shard from that carry (a read and a write): three
// passes over the shard's bytes. A rank cannot write before its carry exists,
// and its carry needs every lower rank to have read all of its shard, so no
// schedule writes sooner; writing first would cost a fourth pass (scan, then
// add the carry).
//
// Every rank always takes part in the exchange, with its own checks' result
// in its record, so a bad argument on one rank becomes the same clear error on
// every rank instead of a hang. So a size query (temp == nullptr) reports no
// argument errors: the call that follows reports them, on every rank. The host reads the records (the call waits
// for the exchange) before any rank writes its output.
//
// Compaction: the ranks first all-gather their argument checks (a compaction
// writes as it goes, so no rank may write before every rank's arguments
// passed), a one-thread kernel turns them into a gate in device memory, the
// local compaction runs behind that gate (shut, it writes nothing), and a
// second all-gather carries the counts. All of it is queued on the stream at
// once: the host waits once, at the end, for both exchanges' records, and
// every rank learns its global offset and the total; no further pass.
// Rebalancing checks the placement it is given (check_placement below,
// and the same offsets on every rank), then moves the selected elements so
// that rank r holds global positions [share_begin(r), share_begin(r + 1)):
// numpy.array_split's split (share_begin below).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <typeinfo>
#include <vector>

#include "../../detail/validate.hpp"
#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../comm/communicator.cuh"
#include "../kernels/rank_kernels.cuh"
#include "../util/runtime.cuh"
#include "dispatch_reduce.cuh"
#include "dispatch_scan.cuh"

namespace streamscan::cuda {

// Where a rank's selected elements sit in the logical array of all ranks'.
struct rank_placement {
  std::int64_t count = 0;   // selected on this rank (only min(count, capacity) were stored)
  std::int64_t offset = 0;  // global position of this rank's first selected element
  std::int64_t total = 0;   // selected on all ranks together
  bool complete = true;     // every rank had room for everything it selected
  std::vector<std::int64_t> offsets;  // offsets[r]: rank r's first global position; offsets[size] == total
};

namespace detail {

// A call's signature: its kind and the types that every rank must agree on.
// typeid names are equal across the processes of one program.
template <class... Ts>
std::uint64_t call_signature(const char* kind) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&h](const char* s) {
    for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
  };
  mix(kind);
  (mix(typeid(Ts).name()), ...);
  return h;
}

// The exchange area: this rank's record, every rank's records, then a slot
// for the folded carry (copied to the host together with the records).
struct rank_area {
  unsigned char* base = nullptr;
  static std::size_t bytes(int ranks) { return rank_record_bytes * (2 + static_cast<std::size_t>(ranks)); }
  unsigned char* mine() const { return base; }
  unsigned char* all() const { return base + rank_record_bytes; }
  unsigned char* carry(int ranks) const { return all() + rank_record_bytes * static_cast<std::size_t>(ranks); }
};

inline rank_head make_rank_head(const char* fn, const status& local, std::uint64_t signature, std::int64_t n,
                                std::int64_t capacity, bool has_value) {
  rank_head h;
  h.code = static_cast<std::uint32_t>(local.code());
  h.signature = signature;
  h.n = n;
  h.capacity = capacity;
  h.has_value = has_value ? 1u : 0u;
  std::string message = local.message();
  const std::string prefix = std::string(fn) + ": ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  std::strncpy(h.message, message.c_str(), sizeof(h.message) - 1);
  return h;
}

inline const rank_head& head_of(const std::vector<unsigned char>& records, int r) {
  return *reinterpret_cast<const rank_head*>(records.data() + static_cast<std::size_t>(r) * rank_record_bytes);
}

// The first problem any rank reported, or a disagreement between the ranks'
// calls, as this rank's status.
inline status check_ranks(const char* fn, const std::vector<unsigned char>& records, int ranks, int me,
                          std::uint64_t signature) {
  const std::string of = " of " + std::to_string(ranks);
  for (int r = 0; r < ranks; ++r) {
    const rank_head& h = head_of(records, r);
    if (h.magic != rank_record_magic)
      return status(errc::communication_error, std::string(fn) + ": rank " + std::to_string(r) + of +
                                                   " sent no valid record (is every rank making the same call?)");
    if (h.code != 0) {
      char message[sizeof(h.message) + 1] = {};
      std::memcpy(message, h.message, sizeof(h.message));
      return status(static_cast<errc>(h.code), std::string(fn) + ": on rank " + std::to_string(r) + of + ": " + message);
    }
  }
  for (int r = 0; r < ranks; ++r) {
    if (head_of(records, r).signature != signature)
      return streamscan::detail::invalid_argument(
          fn, "rank " + std::to_string(r) + of + " made another call, or the same call with other element, " +
                  "accumulator or operator types, than rank " + std::to_string(me));
  }
  return status::ok();
}

// Gives the exchange a place (`bytes`, 0: rank_area::bytes): the caller's
// temp when its own checks passed, else stream-ordered scratch, so that a rank
// with bad arguments still takes part (and the others learn of its error
// instead of waiting for it).
class rank_area_holder {
 public:
  rank_area_holder(const char* fn, void* aligned, int ranks, cudaStream_t stream, std::size_t bytes = 0)
      : stream_(stream) {
    if (aligned != nullptr) {
      area_.base = static_cast<unsigned char*>(aligned);
      return;
    }
    void* p = nullptr;
    if (bytes == 0) bytes = rank_area::bytes(ranks);
    if (const cudaError_t e = cudaMallocAsync(&p, bytes, stream); e != cudaSuccess) {
      cudaGetLastError();
      status_ = cuda_status(fn, "cudaMallocAsync of the exchange records", e);
      return;
    }
    owned_ = p;
    area_.base = static_cast<unsigned char*>(p);
  }
  rank_area_holder(const rank_area_holder&) = delete;
  rank_area_holder& operator=(const rank_area_holder&) = delete;
  ~rank_area_holder() {
    if (owned_) cudaFreeAsync(owned_, stream_);
  }
  const status& get_status() const { return status_; }
  rank_area area() const { return area_; }

 private:
  cudaStream_t stream_;
  void* owned_ = nullptr;
  rank_area area_;
  status status_;
};

// Writes this rank's record head, all-gathers the records, runs `after`
// (the fold), then copies every record plus `extra` bytes after them to
// `host` and waits for the stream.
template <class Comm, class After>
status exchange_records(const char* fn, const Comm& comm, const rank_area& area, const rank_head& head,
                        std::size_t extra, cudaStream_t stream, std::vector<unsigned char>& host, After after) {
  const int ranks = comm.size();
  status s = launch(fn, "write_rank_head_kernel", write_rank_head_kernel<rank_head>, 1, 64, stream, area.mine(), head);
  if (s) s = comm.all_gather(fn, area.mine(), area.all(), rank_record_bytes, stream);
  if (s) s = after();
  if (!s) return s;
  host.assign(rank_record_bytes * static_cast<std::size_t>(ranks) + extra, 0);
  cudaError_t e = cudaMemcpyAsync(host.data(), area.all(), host.size(), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, "reading the exchanged records", e);
  }
  return status::ok();
}

template <class A, class Comm, class InIt, class OutIt, class Op>
status ranked_scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n, Op op,
                   maybe<A> init, scan_mode mode, const Comm& comm, cudaStream_t stream, scan_options opt) {
  static_assert(sizeof(A) <= rank_value_bytes && alignof(A) <= rank_head_bytes,
                "streamscan: the multi-GPU scan carries accumulators of at most 768 bytes");
  const int ranks = comm.size();
  const int me = comm.rank();
  const std::uint64_t signature =
      call_signature<A, Op, typename std::iterator_traits<InIt>::value_type>(
          mode == scan_mode::inclusive ? (init.present ? "inclusive_scan_init" : "inclusive_scan") : "exclusive_scan");

  device_facts facts;
  status local = current_device_facts(fn, facts);
  std::size_t scan_bytes = 0;
  if (local) local = dispatch_scan<A>(fn, nullptr, scan_bytes, in, out, n, op, maybe<A>{init.value, true}, mode, stream, opt);
  const std::size_t work_bytes = local ? std::max(round_up_256(scan_bytes), reduce_temp_bytes<A>(n, facts)) : 0;
  const std::size_t required = rank_area::bytes(ranks) + work_bytes + 255;
  if (temp == nullptr) {  // errors wait for the exchange, so that every rank learns them
    temp_bytes = required;
    return status::ok();
  }

  if (local) local = streamscan::detail::validate_range_args(fn, in, out, n, false);
  if (local) local = streamscan::detail::validate_temp_bytes(fn, temp_bytes, required);
  if (local && n > 0) local = check_device_accessible(fn, "in", in, facts);
  if (local && n > 0) local = check_device_accessible(fn, "out", out, facts);
  if (local) local = check_device_accessible(fn, "temp", temp, facts);
  rank_area_holder holder(fn, local ? aligned_256(temp) : nullptr, ranks, stream);
  if (!holder.get_status()) return holder.get_status();
  const rank_area area = holder.area();
  unsigned char* work = area.base + rank_area::bytes(ranks);

  // The last rank's aggregate is nobody's carry: it skips the reduction.
  bool has_value = local && n > 0 && me + 1 < ranks;
  if (has_value) {
    local = reduce_into<A>(fn, in, n, rank_value<A>(area.mine()), reinterpret_cast<A*>(work), op, stream, facts);
    has_value = static_cast<bool>(local);
  }
  std::vector<unsigned char> host;
  const status exchanged = exchange_records(
      fn, comm, area, make_rank_head(fn, local, signature, n, 0, has_value), sizeof(maybe<A>), stream, host, [&] {
        return launch(fn, "fold_rank_carry_kernel", fold_rank_carry_kernel<A, Op>, 1, 32, stream,
                      static_cast<const unsigned char*>(area.all()), ranks, me, signature, init,
                      reinterpret_cast<maybe<A>*>(area.carry(ranks)), op);
      });
  if (!local) return local;
  if (!exchanged) return exchanged;
  if (status s = check_ranks(fn, host, ranks, me, signature); !s) return s;
  if (n == 0) return status::ok();
  maybe<A> carry;
  std::memcpy(static_cast<void*>(&carry), host.data() + rank_record_bytes * static_cast<std::size_t>(ranks),
              sizeof(carry));
  std::size_t bytes = scan_bytes;
  return dispatch_scan<A>(fn, work, bytes, in, out, n, op, carry, mode, stream, opt);
}

// A compaction's argument checks that need no work (its local call makes
// them again), made before the first exchange: n, in and out, capacity, and
// that the GPU reaches in, out and `more` (name, array pairs).
template <class InIt, class OutIt, class... More>
status compaction_arguments(const char* fn, const InIt& in, const OutIt& out, std::int64_t n, std::int64_t capacity,
                            const More&... more) {
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, false); !s) return s;
  if (capacity < 0)
    return streamscan::detail::invalid_argument(fn,
                                                "argument 'capacity' is negative (" + std::to_string(capacity) + ")");
  if (n == 0) return status::ok();
  device_facts facts;
  if (status s = current_device_facts(fn, facts); !s) return s;
  return check_accessible_args(fn, facts, "in", in, "out", out, more...);
}

// The compaction's exchange area: this rank's record, every rank's record of
// the checks exchange, every rank's record of the count exchange (the same
// head again, rewritten only where the local compaction failed, and the
// count as its value), then the gate (util/gate.cuh) in a 256-byte slot.
struct compaction_area {
  unsigned char* base = nullptr;
  static std::size_t bytes(int ranks) { return rank_record_bytes * (1 + 2 * static_cast<std::size_t>(ranks)) + 256; }
  unsigned char* mine() const { return base; }
  unsigned char* checks() const { return base + rank_record_bytes; }
  unsigned char* counts(int ranks) const { return checks() + rank_record_bytes * static_cast<std::size_t>(ranks); }
  std::uint32_t* gate(int ranks) const {
    return reinterpret_cast<std::uint32_t*>(counts(ranks) + rank_record_bytes * static_cast<std::size_t>(ranks));
  }
};

// Compaction across ranks. `checks()` is this rank's argument checks
// (compaction_arguments); `local(temp, temp_bytes, num_selected, gate)` is
// this rank's two-phase compaction (its own checks included) behind a gate
// in device memory (util/gate.cuh); `value_type` names the element type for
// the signature.
//
// One host wait: the checks' all-gather, the gate kernel, the compaction
// and the counts' all-gather are queued together, and the host reads both
// exchanges' records at the end. No rank writes unless every rank's checks
// passed and every rank made this call: the gate, computed on the device
// from the same gathered records on every rank, is open on all ranks or on
// none. A rank whose own checks failed runs no compaction at all. Both
// all-gathers run on every rank whatever happened, so that the ranks' NCCL
// calls stay matched.
template <class Value, class Comm, class Checks, class Local>
status ranked_compaction(const char* fn, const char* kind, void* temp, std::size_t& temp_bytes, std::int64_t n,
                         std::int64_t capacity, Checks checks, Local local_call, rank_placement& placement,
                         const Comm& comm, cudaStream_t stream) {
  const int ranks = comm.size();
  const int me = comm.rank();
  const std::uint64_t signature = call_signature<Value>(kind);
  std::size_t local_bytes = 0;
  status local = local_call(nullptr, local_bytes, nullptr, nullptr);
  const std::size_t area_bytes = compaction_area::bytes(ranks);
  const std::size_t required = area_bytes + round_up_256(local_bytes) + 255;
  if (temp == nullptr) {  // errors wait for the exchange, so that every rank learns them
    temp_bytes = required;
    return status::ok();
  }
  if (local) local = streamscan::detail::validate_temp_bytes(fn, temp_bytes, required);
  if (local) local = checks();
  rank_area_holder holder(fn, local ? aligned_256(temp) : nullptr, ranks, stream, area_bytes);
  if (!holder.get_status()) return holder.get_status();
  const compaction_area area{holder.area().base};
  const std::size_t all_bytes = rank_record_bytes * static_cast<std::size_t>(ranks);

  // Every rank's checks, gathered on the device.
  status exchanged = launch(fn, "write_rank_head_kernel", write_rank_head_kernel<rank_head>, 1, 64, stream, area.mine(),
                            make_rank_head(fn, local, signature, n, capacity, false));
  if (exchanged) exchanged = comm.all_gather(fn, area.mine(), area.checks(), rank_record_bytes, stream);
  if (!exchanged) return local ? exchanged : local;
  // The compaction behind the gate; its count lands in this rank's record.
  if (local) {
    local = launch(fn, "open_gate_kernel", open_gate_kernel<rank_head>, 1, 32, stream,
                   static_cast<const unsigned char*>(area.checks()), ranks, signature, area.gate(ranks));
    std::size_t b = local_bytes;
    if (local)
      local = local_call(area.base + area_bytes, b, rank_value<std::int64_t>(area.mine()),
                         static_cast<const std::uint32_t*>(area.gate(ranks)));
    if (!local)  // the others learn it from the counts' records
      exchanged = launch(fn, "write_rank_head_kernel", write_rank_head_kernel<rank_head>, 1, 64, stream, area.mine(),
                         make_rank_head(fn, local, signature, n, capacity, false));
  }
  // Every rank's count; then both exchanges' records to the host, one wait.
  if (status s = comm.all_gather(fn, area.mine(), area.counts(ranks), rank_record_bytes, stream); !s && exchanged)
    exchanged = s;
  std::vector<unsigned char> host(2 * all_bytes, 0);
  if (exchanged) {
    cudaError_t e = cudaMemcpyAsync(host.data(), area.checks(), host.size(), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
      cudaGetLastError();
      exchanged = cuda_status(fn, "reading the exchanged records", e);
    }
  }
  if (!local) return local;
  if (!exchanged) return exchanged;
  const std::vector<unsigned char> checked(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(all_bytes));
  const std::vector<unsigned char> counted(host.begin() + static_cast<std::ptrdiff_t>(all_bytes), host.end());
  if (status s = check_ranks(fn, checked, ranks, me, signature); !s) return s;
  if (status s = check_ranks(fn, counted, ranks, me, signature); !s) return s;
  rank_placement p;
  p.offsets.assign(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) {
    const unsigned char* record = counted.data() + static_cast<std::size_t>(r) * rank_record_bytes;
    const std::int64_t count = *rank_value<std::int64_t>(record);
    if (count > head_of(counted, r).capacity) p.complete = false;
    p.offsets[r + 1] = p.offsets[r] + count;
  }
  p.count = p.offsets[me + 1] - p.offsets[me];
  p.offset = p.offsets[me];
  p.total = p.offsets[ranks];
  placement = std::move(p);
  return status::ok();
}

// First global position of rank r's share of `total` elements, split the way
// numpy.array_split (and torch.tensor_split) splits: r * (total / ranks) +
// min(r, total % ranks), so the first total % ranks ranks hold one element
// more (5 on 2 ranks: [0, 3) and [3, 5); 2 on 3: [0, 1), [1, 2), [2, 2)).
inline std::int64_t share_begin(std::int64_t total, int ranks, int r) {
  const std::int64_t q = total / ranks, extra = total % ranks;
  return q * r + std::min<std::int64_t>(r, extra);
}

// What a placement from the compaction satisfies on rank `me` of `ranks`:
// ranks + 1 offsets from 0, never decreasing (no rank holds a negative
// count), the last one the total; this rank's offset and count its own entry;
// complete. (That every rank has the same offsets takes the exchange.)
inline status check_placement(const char* fn, const rank_placement& p, int ranks, int me) {
  using streamscan::detail::invalid_argument;
  const auto num = [](std::int64_t v) { return std::to_string(v); };
  const std::vector<std::int64_t>& o = p.offsets;
  if (o.size() != static_cast<std::size_t>(ranks) + 1)
    return invalid_argument(fn, "argument 'placement' has " + std::to_string(o.size()) + " offsets; a group of " +
                                    num(ranks) + " ranks needs " + num(ranks + 1) +
                                    " (pass what the compaction returned)");
  if (!p.complete)
    return invalid_argument(fn, "argument 'placement' is incomplete: some rank selected more elements than "
                                "its capacity held");
  if (o[0] != 0) return invalid_argument(fn, "argument 'placement' has offsets[0] = " + num(o[0]) + ", not 0");
  for (int r = 0; r < ranks; ++r)
    if (o[r + 1] < o[r])
      return invalid_argument(fn, "argument 'placement' gives rank " + num(r) + " a negative count (offsets[" + num(r) +
                                      "] = " + num(o[r]) + ", offsets[" + num(r + 1) + "] = " + num(o[r + 1]) + ")");
  if (o[ranks] != p.total)
    return invalid_argument(fn, "argument 'placement' has total " + num(p.total) + " but offsets[" + num(ranks) +
                                    "] = " + num(o[ranks]));
  if (p.offset != o[me] || p.count != o[me + 1] - o[me])
    return invalid_argument(fn, "argument 'placement' gives this rank (" + num(me) + ") offset " + num(p.offset) +
                                    " and count " + num(p.count) + ", but its offsets give " + num(o[me]) + " and " +
                                    num(o[me + 1] - o[me]));
  return status::ok();
}

// A hash of the placement's offsets (FNV-1a), which the ranks compare.
inline std::uint64_t placement_fingerprint(const rank_placement& p) {
  std::uint64_t h = 1469598103934665603ull;
  for (const std::int64_t v : p.offsets)
    for (int byte = 0; byte < 8; ++byte)
      h = (h ^ ((static_cast<std::uint64_t>(v) >> (8 * byte)) & 0xffu)) * 1099511628211ull;
  return h;
}

// Moves compacted elements so that every rank holds an equal share of the
// global order (see the top of this file); `count` receives this rank's share.
template <class T, class Comm>
status ranked_rebalance(const char* fn, const T* in, T* out, std::int64_t capacity, const rank_placement& placement,
                        std::int64_t& count, const Comm& comm, cudaStream_t stream) {
  const int ranks = comm.size();
  const int me = comm.rank();
  const std::uint64_t signature = call_signature<T>("rebalance");
  using streamscan::detail::invalid_argument;
  status local = check_placement(fn, placement, ranks, me);
  std::int64_t begin = 0, end = 0;
  if (local && capacity < 0) {
    local = invalid_argument(fn, "argument 'capacity' is negative (" + std::to_string(capacity) + ")");
  } else if (local) {
    begin = share_begin(placement.total, ranks, me);
    end = share_begin(placement.total, ranks, me + 1);
    const std::int64_t held = placement.offsets[me + 1] - placement.offsets[me];
    if (capacity < end - begin)
      local = invalid_argument(fn, "argument 'capacity' is " + std::to_string(capacity) + " but this rank's share is " +
                                       std::to_string(end - begin) + " elements");
    else if (held > 0 && in == nullptr)
      local = invalid_argument(fn, "argument 'in' is a null pointer while this rank holds " + std::to_string(held));
    else if (end > begin && out == nullptr)
      local = invalid_argument(fn, "argument 'out' is a null pointer while this rank's share is " +
                                       std::to_string(end - begin));
    else if (held > 0 && end > begin && in < out + (end - begin) && out < in + held)
      local = invalid_argument(fn, "arguments 'in' and 'out' overlap");
    device_facts facts;
    if (local && (held > 0 || end > begin)) local = current_device_facts(fn, facts);
    if (local && held > 0) local = check_device_accessible(fn, "in", in, facts);
    if (local && end > begin) local = check_device_accessible(fn, "out", out, facts);
  }
  rank_area_holder holder(fn, nullptr, ranks, stream);
  if (!holder.get_status()) return holder.get_status();
  // The record's value: the offsets' fingerprint.
  const std::uint64_t fingerprint = placement_fingerprint(placement);
  if (local)
    if (const cudaError_t e = cudaMemcpyAsync(rank_value<std::uint64_t>(holder.area().mine()), &fingerprint,
                                              sizeof(fingerprint), cudaMemcpyHostToDevice, stream);
        e != cudaSuccess) {
      cudaGetLastError();
      local = cuda_status(fn, "writing this rank's record (cudaMemcpyAsync)", e);
    }
  std::vector<unsigned char> host;
  const rank_head head = make_rank_head(fn, local, signature, placement.total, capacity, static_cast<bool>(local));
  const status exchanged =
      exchange_records(fn, comm, holder.area(), head, 0, stream, host, [] { return status::ok(); });
  if (!local) return local;
  if (!exchanged) return exchanged;
  if (status s = check_ranks(fn, host, ranks, me, signature); !s) return s;
  for (int r = 0; r < ranks; ++r)
    if (head_of(host, r).n != placement.total)
      return invalid_argument(fn, "the ranks' placements disagree on the total (rank " + std::to_string(r) + ": " +
                                      std::to_string(head_of(host, r).n) + ", rank " + std::to_string(me) + ": " +
                                      std::to_string(placement.total) + ")");
  // Every rank compares every fingerprint with rank 0's, so all reach the same verdict.
  const auto fingerprint_of = [&](int r) {
    return *rank_value<std::uint64_t>(host.data() + static_cast<std::size_t>(r) * rank_record_bytes);
  };
  for (int r = 1; r < ranks; ++r)
    if (fingerprint_of(r) != fingerprint_of(0))
      return invalid_argument(fn, "argument 'placement' is not the same on every rank: rank " + std::to_string(r) +
                                      "'s offsets differ from rank 0's (pass each rank its placement from one "
                                      "compaction)");

  std::vector<transfer> sends, recvs;
  const std::int64_t held_begin = placement.offsets[me], held_end = placement.offsets[me + 1];
  for (int q = 0; q < ranks; ++q) {
    // What this rank holds of q's share, and what q holds of ours.
    const std::int64_t lo = std::max(held_begin, share_begin(placement.total, ranks, q));
    const std::int64_t hi = std::min(held_end, share_begin(placement.total, ranks, q + 1));
    if (lo < hi) {
      T* from = const_cast<T*>(in) + (lo - held_begin);
      const std::size_t bytes = static_cast<std::size_t>(hi - lo) * sizeof(T);
      if (q == me) {
        if (const cudaError_t e = cudaMemcpyAsync(out + (lo - begin), from, bytes, cudaMemcpyDeviceToDevice, stream);
            e != cudaSuccess) {
          cudaGetLastError();
          return cuda_status(fn, "copying this rank's own share", e);
        }
      } else {
        sends.push_back({q, from, bytes});
      }
    }
    if (q == me) continue;
    const std::int64_t rlo = std::max(begin, placement.offsets[q]);
    const std::int64_t rhi = std::min(end, placement.offsets[q + 1]);
    if (rlo < rhi) recvs.push_back({q, out + (rlo - begin), static_cast<std::size_t>(rhi - rlo) * sizeof(T)});
  }
  if (status s = comm.exchange(fn, sends.data(), static_cast<int>(sends.size()), recvs.data(),
                               static_cast<int>(recvs.size()), stream);
      !s)
    return s;
  count = end - begin;
  return status::ok();
}

}  // namespace detail
}  // namespace streamscan::cuda
