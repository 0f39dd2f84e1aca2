// streamscan/cuda/dispatch/dispatch_sort.cuh - radix sort: argument checks,
// the strategy, temp storage and the launches of the onesweep sort.
//
// Onesweep ([Onesweep]): one histogram pass counts the digits of every pass,
// one small kernel turns the counts into each digit's output start, then one
// sorting pass per 8-bit digit (least significant first) reads every key
// once and writes it once: (2P + 1) key reads/writes per key for P passes,
// plus 2P value moves for pairs. Inputs past 2^30 - 1 keys run as portions,
// each with its own look-back (the status words count 30 bits); the histogram
// gives portion 0's digit starts in every pass and each portion's last tile
// the next portion's (agent_onesweep).
//
// Buffers: the passes ping-pong between the output and a temp copy, ordered
// so that the last pass writes the output; only an in-place sort with an odd
// number of passes ends with a copy. The double-buffer forms ping-pong
// between the caller's two buffers and flip `selector`.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../../detail/sort_validate.hpp"
#include "../../detail/validate.hpp"
#include "../../sort.hpp"
#include "../../status.hpp"
#include "../../tuning/sort.hpp"
#include "../kernels/radix_sort_kernels.cuh"
#include "../util/runtime.cuh"
#include "dispatch_split_sort.cuh"
#include "sort_io.cuh"

namespace streamscan::cuda::detail {

// One array's buffers over the passes: pass i reads src(i) and writes dst(i).
template <class T>
struct pass_buffers {
  const T* first = nullptr;  // what pass 0 reads
  T* buf[2] = {nullptr, nullptr};
  bool copy_to_out = false;  // the last pass wrote buf[...] != out: copy
  T* out = nullptr;

  const T* src(int pass) const { return pass == 0 ? first : buf[(pass - 1) & 1]; }
  T* dst(int pass) const { return buf[pass & 1]; }
  T* last(int passes) const { return buf[(passes - 1) & 1]; }

  // in -> out through alt; the last of `passes` passes lands in out unless
  // that would make pass 0 write over its own input.
  static pass_buffers to_out(const T* in, T* out, T* alt, int passes) {
    pass_buffers b;
    b.first = in;
    b.out = out;
    const bool last_is_out = (passes - 1) % 2 == 0;  // pass 0 writes out
    if (in == out && last_is_out) {
      b.buf[0] = alt;
      b.buf[1] = out;
      b.copy_to_out = true;
    } else {
      b.buf[0] = last_is_out ? out : alt;
      b.buf[1] = last_is_out ? alt : out;
    }
    return b;
  }
  static pass_buffers between(double_buffer<T>& db) {
    pass_buffers b;
    b.first = db.current();
    b.buf[0] = db.alternate();
    b.buf[1] = db.current();
    return b;
  }
};

// The kernel shapes of a sort of K keys with V values: tuning/sort.hpp's
// (an experiment may pass its own to onesweep_sort).
template <class K, class V>
struct onesweep_shapes {
  static constexpr tuning::onesweep_shape sort =
      tuning::onesweep_shape_for(sizeof(K), sort_io<K, V>::pairs ? int(sizeof(V)) : 0);
  static constexpr tuning::radix_histogram_shape histogram = tuning::radix_histogram_shape_for(sizeof(K));
};

// The most keys one look-back counts (30-bit counts), in whole tiles.
constexpr std::int64_t onesweep_portion_limit(std::int64_t tile) { return ((std::int64_t{1} << 30) - 1) / tile * tile; }

// portion_limit: keys a portion may hold, rounded down to whole tiles (at
// least one); 0 takes onesweep_portion_limit. Tests pass small ones to run
// the portions' chained digit starts at small sizes.
template <class K, class V, class Shapes = onesweep_shapes<K, V>>
status onesweep_sort(const char* fn, void* temp, std::size_t& temp_bytes, const sort_io<K, V>& io, std::int64_t n,
                     cudaStream_t stream, int begin_bit, int end_bit, bool descending, const device_facts* facts,
                     std::int64_t portion_limit = 0) {
  using streamscan::detail::temp_bytes_for;
  using U = typename radix_key_traits<K>::bits_type;
  constexpr bool pairs = sort_io<K, V>::pairs;
  constexpr tuning::onesweep_shape shape = Shapes::sort;
  constexpr tuning::radix_histogram_shape hshape = Shapes::histogram;
  constexpr int bins = 1 << shape.radix_bits;
  constexpr std::int64_t tile = shape.tile_items();

  const int passes = (end_bit - begin_bit + shape.radix_bits - 1) / shape.radix_bits;
  const std::int64_t portion_items =
      portion_limit <= 0 ? onesweep_portion_limit(tile) : std::min(std::max(portion_limit / tile, std::int64_t{1}) * tile,
                                                                   onesweep_portion_limit(tile));
  const std::int64_t portions = n == 0 ? 1 : (n + portion_items - 1) / portion_items;
  const std::int64_t max_tiles = (std::min(n, portion_items) + tile - 1) / tile;

  const std::size_t hist_bytes = temp_bytes_for<unsigned>(passes * portions * bins);
  const std::size_t start_bytes = temp_bytes_for<std::int64_t>(passes * portions * bins);
  const std::size_t status_bytes = temp_bytes_for<unsigned>(2 + max_tiles * bins);  // counter, then words
  const bool keys_alt = io.keys_double_buffer == nullptr;
  const bool values_alt = pairs && io.values_double_buffer == nullptr;
  const std::size_t keys_bytes = keys_alt ? temp_bytes_for<K>(n) : 0;
  std::size_t values_bytes = 0;
  if constexpr (pairs) values_bytes = values_alt ? temp_bytes_for<V>(n) : 0;
  const std::size_t required = 255 + hist_bytes + start_bytes + status_bytes + keys_bytes + values_bytes;  // any alignment
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();

  auto* bytes = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256);
  auto* hist = reinterpret_cast<unsigned*>(bytes);
  auto* start = reinterpret_cast<std::int64_t*>(bytes + hist_bytes);
  auto* counter = reinterpret_cast<unsigned long long*>(bytes + hist_bytes + start_bytes);
  auto* words = reinterpret_cast<unsigned*>(counter + 1);
  unsigned char* alt_at = bytes + hist_bytes + start_bytes + status_bytes;

  pass_buffers<K> keys = keys_alt ? pass_buffers<K>::to_out(io.keys_in, io.keys_out, reinterpret_cast<K*>(alt_at), passes)
                                  : pass_buffers<K>::between(*io.keys_double_buffer);
  pass_buffers<V> values;
  if constexpr (pairs)
    values = values_alt ? pass_buffers<V>::to_out(io.values_in, io.values_out, reinterpret_cast<V*>(alt_at + keys_bytes),
                                                  passes)
                        : pass_buffers<V>::between(*io.values_double_buffer);

  radix_passes rp;
  rp.count = passes;
  for (int p = 0; p < passes; ++p) {
    rp.shift[p] = begin_bit + p * shape.radix_bits;
    const int width = std::min(shape.radix_bits, end_bit - rp.shift[p]);
    rp.mask[p] = (1u << width) - 1u;
  }
  const U invert = descending ? static_cast<U>(~U(0)) : U(0);

  if (const cudaError_t e = cudaMemsetAsync(hist, 0, hist_bytes, stream); e != cudaSuccess)
    return cuda_status(fn, "clearing the digit histogram (cudaMemsetAsync)", e);
  const std::int64_t hist_step = std::int64_t{hshape.threads} * hshape.items;
  for (std::int64_t q = 0; q < portions; ++q) {
    const std::int64_t count = std::min(portion_items, n - q * portion_items);
    const std::int64_t grid =
        std::min((count + hist_step - 1) / hist_step, std::int64_t{facts->sm_count} * hshape.blocks_per_sm);
    if (status s = launch(fn, "radix_histogram_kernel",
                          radix_histogram_kernel<K, hshape.threads, hshape.items, shape.radix_bits>, grid,
                          hshape.threads, stream, io.keys_in + q * portion_items, count, rp, invert,
                          hist + q * passes * bins);
        !s)
      return s;
  }
  // start[(p * portions + q) * bins + d] for q = 0; the kernel runs a block per pass.
  if (status s = launch(fn, "radix_digit_start_kernel", radix_digit_start_kernel<shape.radix_bits>, passes, bins,
                        stream, hist, static_cast<int>(portions), passes, start);
      !s)
    return s;

  using agent = agent_onesweep<K, V, pairs, shape.threads, shape.items, shape.radix_bits, shape.prefetch_own_tile>;
  auto* kernel = onesweep_kernel<K, V, pairs, shape.threads, shape.items, shape.radix_bits, shape.min_blocks,
                                 shape.prefetch_own_tile>;
  if constexpr (agent::storage_bytes > 48 * 1024) {  // past the default limit: raise it (a host call per sort)
    if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(agent::storage_bytes));
        e != cudaSuccess) {
      cudaGetLastError();
      return cuda_status(fn, "raising the sort's shared memory limit (cudaFuncSetAttribute)", e);
    }
  }
  for (int p = 0; p < passes; ++p) {
    for (std::int64_t q = 0; q < portions; ++q) {
      const std::int64_t count = std::min(portion_items, n - q * portion_items);
      const std::int64_t tiles = (count + tile - 1) / tile;
      if (const cudaError_t e = cudaMemsetAsync(counter, 0, sizeof(unsigned) * (2 + tiles * bins), stream);
          e != cudaSuccess)
        return cuda_status(fn, "clearing the look-back status (cudaMemsetAsync)", e);
      typename agent::params params{};
      params.keys_in = keys.src(p) + q * portion_items;
      params.keys_out = keys.dst(p);
      if constexpr (pairs) {
        params.values_in = values.src(p) + q * portion_items;
        params.values_out = values.dst(p);
      }
      params.n = count;
      params.digit_start = start + (p * portions + q) * bins;
      params.next_digit_start = q + 1 < portions ? start + (p * portions + q + 1) * bins : nullptr;
      params.status = words;
      params.tile_counter = counter;
      params.digit = radix_digit<U>{rp.shift[p], rp.mask[p], invert};
      if (status s = launch_with_shared(fn, "onesweep_kernel", kernel, tiles, shape.threads, agent::storage_bytes,
                                        stream, params);
          !s)
        return s;
    }
  }

  auto finish = [&](auto& b, auto* db, std::size_t elem_bytes) -> status {
    if (db != nullptr) {
      if (passes % 2 == 1) db->selector ^= 1;
      return status::ok();
    }
    if (!b.copy_to_out) return status::ok();
    if (const cudaError_t e =
            cudaMemcpyAsync(b.out, b.last(passes), elem_bytes * static_cast<std::size_t>(n), cudaMemcpyDeviceToDevice,
                            stream);
        e != cudaSuccess)
      return cuda_status(fn, "copying the sorted data to the output (cudaMemcpyAsync)", e);
    return status::ok();
  };
  if (status s = finish(keys, io.keys_double_buffer, sizeof(K)); !s) return s;
  if constexpr (pairs)
    if (status s = finish(values, io.values_double_buffer, sizeof(V)); !s) return s;
  return status::ok();
}

template <class K, class V>
status dispatch_radix_sort(const char* fn, void* temp, std::size_t& temp_bytes, const sort_io<K, V>& io,
                           std::int64_t n, cudaStream_t stream, const sort_options& opt) {
  static_assert(has_radix_order<K>::value,
                "radix sort needs keys with a radix order (integers, float, double); sort other keys with quicksort");
  constexpr bool pairs = sort_io<K, V>::pairs;
  const bool query = temp == nullptr;
  int begin_bit = 0, end_bit = 0;
  if (status s = streamscan::detail::validate_sort_args<K>(fn, io.keys_in, io.keys_out,
                                                           static_cast<const void*>(io.values_in),
                                                           static_cast<const void*>(io.values_out), pairs, n, query,
                                                           opt, begin_bit, end_bit);
      !s)
    return s;
  if (!query)
    if (status s = streamscan::detail::validate_sort_buffers(fn, io.keys_in, io.keys_out, io.values_in, io.values_out,
                                                             pairs, n, io.keys_double_buffer != nullptr);
        !s)
      return s;
  device_facts facts;
  if (!query && n > 0) {
    if (status s = current_device_facts(fn, facts); !s) return s;
    if (status s = check_device_accessible(fn, "keys_in", io.keys_in, facts); !s) return s;
    if (status s = check_device_accessible(fn, "keys_out", io.keys_out, facts); !s) return s;
    if constexpr (pairs) {
      if (status s = check_device_accessible(fn, "values_in", io.values_in, facts); !s) return s;
      if (status s = check_device_accessible(fn, "values_out", io.values_out, facts); !s) return s;
    }
  }
  const bool descending = opt.order == sort_order::descending;
  if (opt.strategy == sort_strategy::split)
    return split_radix_sort(fn, temp, temp_bytes, io, n, stream, begin_bit, end_bit, descending);
  return onesweep_sort(fn, temp, temp_bytes, io, n, stream, begin_bit, end_bit, descending, &facts);
}

}  // namespace streamscan::cuda::detail
