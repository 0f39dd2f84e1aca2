// streamscan/cuda/dispatch/dispatch_split_sort.cuh - sort_strategy::split:
// [ScanPrimitives]' global radix sort, one stable split per key bit.
//
// For each bit b of [begin_bit, end_bit), least significant first, one split
// whose flag is bit b of sort_bits(key) (the radix_key_traits map, inverted
// for descending order): keys with the bit clear go first, those with it set
// after them, both in input order. After the last bit the keys are sorted, and
// stably, because every split is stable. end_bit - begin_bit splits in all.
//
// Each split is our stable split (dispatch_select's two passes: a count of
// the falses, then the placing pass with the decoupled look-back), run on a
// predicate source that computes the flag from the key it has loaded
// (stable_partition's source): the same split as split() over a transform
// iterator of flags, but each key is read once per pass rather than once for
// its flag and again as the value, and raw 4- and 8-byte keys may take the
// pipelined kernel where the split defaults choose it (measured faster than
// split() with transform flags).
//
// Pairs: one split of (key, value) records per bit (stable_partition_pairs'
// source: the key decides, both move). Per bit that reads the keys twice (the
// count and the placing pass) and the values once, and writes each once:
// 3nK + 2nV bytes. A second split of the values by the same flags reads the
// keys twice more (its own count and flags: 5nK + 2nV; measured slower); a
// split of an index permutation costs as much per bit with 4-byte indices,
// plus a final gather of the values at random addresses.
//
// Buffers: the passes ping-pong between two buffers per array, arranged so
// that the last pass writes the result where it belongs:
//   out of place      the first pass reads keys_in; the passes alternate
//                     between keys_out and a temp copy, ending in keys_out.
//   in place          (keys_in == keys_out) the first pass cannot write
//                     keys_out; the passes alternate temp, keys_out, ...;
//                     an odd number of bits ends with one copy temp -> keys_out.
//   double buffer     the passes alternate alternate(), current(), ... with no
//                     temp copy; `selector` is flipped when the bit count is odd.
// Values follow the same rule, each array on its own (keys may be in place
// while values are not).
//
// Temp: the device count of one split, a temp copy of the keys (and of the
// values) unless it is a double buffer, and the split's temp (tile status
// words); 256-byte aligned pieces.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../detail/select_sources.hpp"
#include "../../detail/validate.hpp"
#include "../../select.hpp"
#include "../../sort.hpp"
#include "../../status.hpp"
#include "../util/runtime.cuh"
#include "dispatch_select.cuh"
#include "sort_io.cuh"

namespace streamscan::cuda::detail {

// The split's "false" side: bit `bit` of the mapped key is clear, so the key
// goes first in this pass.
template <class K>
struct radix_bit_clear {
  int bit;
  bool descending;
  STREAMSCAN_HOST_DEVICE bool operator()(const K& key) const {
    return streamscan::sort_bits(key, bit, bit + 1, descending) == 0;
  }
};

// Where one array's passes read and write. Pass p writes dst[p & 1] and reads
// src (p == 0) or what pass p - 1 wrote.
template <class T>
struct split_sort_buffers {
  const T* src = nullptr;
  T* dst[2] = {nullptr, nullptr};
  bool copy_back = false;  // the last pass wrote temp: copy it to `out`
  T* out = nullptr;

  const T* read(int pass) const { return pass == 0 ? src : dst[(pass - 1) & 1]; }
  T* write(int pass) const { return dst[pass & 1]; }
};

// The plan of one array over `passes` passes (>= 1): in -> out through the
// temp buffer `tmp`, or through a double buffer (`db` non-null, in/out being
// its current() and alternate()).
template <class T>
split_sort_buffers<T> plan_split_sort(const T* in, T* out, T* tmp, double_buffer<T>* db, int passes) {
  split_sort_buffers<T> b;
  b.src = in;
  b.out = out;
  const bool odd = (passes & 1) != 0;
  if (db != nullptr) {  // current -> alternate -> current ...; no copy
    b.dst[0] = db->alternate();
    b.dst[1] = db->current();
  } else if (static_cast<const void*>(in) == static_cast<const void*>(out)) {
    b.dst[0] = tmp;  // a split cannot run in place
    b.dst[1] = out;
    b.copy_back = odd;
  } else {  // the last pass, passes - 1, writes out
    b.dst[0] = odd ? out : tmp;
    b.dst[1] = odd ? tmp : out;
  }
  return b;
}

// After the last pass: the in-place case with an odd number of passes left
// the data in temp.
template <class T>
status finish_split_sort(const char* fn, const split_sort_buffers<T>& b, int passes, std::int64_t n,
                         cudaStream_t stream) {
  if (!b.copy_back) return status::ok();
  if (const cudaError_t e = cudaMemcpyAsync(b.out, b.write(passes - 1), static_cast<std::size_t>(n) * sizeof(T),
                                            cudaMemcpyDeviceToDevice, stream);
      e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(fn, "copying the sorted data to the output (cudaMemcpyAsync)", e);
  }
  return status::ok();
}

// The select source of one pass: keys alone, or (key, value) records.
template <class K, class V>
struct split_sort_source {
  using type = streamscan::detail::pair_source<const K*, const V*, K*, V*, radix_bit_clear<K>>;
  static type make(const K* k, const V* v, K* ko, V* vo, radix_bit_clear<K> pred) { return {k, v, ko, vo, pred}; }
};
template <class K>
struct split_sort_source<K, no_values> {
  using type = streamscan::detail::predicate_source<const K*, K*, radix_bit_clear<K>>;
  static type make(const K* k, const no_values*, K* ko, no_values*, radix_bit_clear<K> pred) {
    return {k, ko, pred, false};
  }
};

template <class K, class V>
status split_radix_sort(const char* fn, void* temp, std::size_t& temp_bytes, const sort_io<K, V>& io,
                        std::int64_t n, cudaStream_t stream, int begin_bit, int end_bit, bool descending) {
  using streamscan::detail::temp_bytes_for;
  constexpr bool pairs = sort_io<K, V>::pairs;
  using maker = split_sort_source<K, V>;
  using source_t = typename maker::type;
  const int passes = end_bit - begin_bit;
  const bool keys_db = io.keys_double_buffer != nullptr;
  const bool values_db = pairs && io.values_double_buffer != nullptr;

  // Temp: [count][keys copy][values copy][split temp], each 256-byte aligned.
  const std::size_t count_bytes = 256;
  const std::size_t keys_bytes = keys_db ? 0 : temp_bytes_for<K>(n);
  std::size_t values_bytes = 0;
  if constexpr (pairs) values_bytes = values_db ? 0 : temp_bytes_for<V>(n);
  // The split's size query; its output must not look like its input (a
  // split cannot run in place), so it gets a dummy address it never reads.
  std::size_t split_bytes = 0;
  alignas(K) static unsigned char probe_out[sizeof(K)];
  K* const probe_keys = reinterpret_cast<K*>(probe_out);
  const source_t probe = maker::make(nullptr, nullptr, probe_keys, nullptr, radix_bit_clear<K>{begin_bit, descending});
  if (status s = dispatch_select<select_call::stable>(fn, nullptr, split_bytes, probe, probe,
                                                      static_cast<const K*>(nullptr), probe_keys, n, n, nullptr, stream,
                                                      select_options{});
      !s)
    return s;
  const std::size_t required = 255 + count_bytes + keys_bytes + values_bytes + split_bytes;
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();

  unsigned char* base = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256);
  auto* num_false = reinterpret_cast<std::int64_t*>(base);
  K* keys_tmp = keys_db ? nullptr : reinterpret_cast<K*>(base + count_bytes);
  unsigned char* split_temp = base + count_bytes + keys_bytes + values_bytes;

  const split_sort_buffers<K> kb = plan_split_sort<K>(io.keys_in, io.keys_out, keys_tmp, io.keys_double_buffer, passes);
  split_sort_buffers<V> vb;
  if constexpr (pairs) {
    V* values_tmp = values_db ? nullptr : reinterpret_cast<V*>(base + count_bytes + keys_bytes);
    vb = plan_split_sort<V>(io.values_in, io.values_out, values_tmp, io.values_double_buffer, passes);
  }

  for (int p = 0; p < passes; ++p) {
    const radix_bit_clear<K> pred{begin_bit + p, descending};
    const source_t src = maker::make(kb.read(p), vb.read(p), kb.write(p), vb.write(p), pred);
    std::size_t bytes = split_bytes;
    if (status s = dispatch_select<select_call::stable>(fn, split_temp, bytes, src, src, kb.read(p), kb.write(p), n,
                                                        n, num_false, stream, select_options{});
        !s)
      return s;
  }
  if (status s = finish_split_sort(fn, kb, passes, n, stream); !s) return s;
  if constexpr (pairs)
    if (status s = finish_split_sort(fn, vb, passes, n, stream); !s) return s;
  // The result is in alternate() after an odd number of passes.
  if ((passes & 1) != 0) {
    if (keys_db) io.keys_double_buffer->selector ^= 1;
    if (values_db) io.values_double_buffer->selector ^= 1;
  }
  return status::ok();
}

}  // namespace streamscan::cuda::detail
