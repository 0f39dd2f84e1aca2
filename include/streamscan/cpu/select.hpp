// streamscan/cpu/select.hpp - stream compaction (select), partition, split
// and split-and-segment on the CPU. Semantics: streamscan/select.hpp.
//
// Every call is one stable two-way scatter: count the kept elements of each
// chunk in parallel, scan the chunk counts, scatter each chunk in parallel
// from its offset. The GPU strategies of [Compaction] (multi_level, hybrid,
// warp_atomic) run as this stable scatter here; an unordered result is one
// valid order, so the stable one satisfies them too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>

#include "../detail/select_validate.hpp"
#include "../detail/select_sources.hpp"
#include "../detail/validate.hpp"
#include "../segmented.hpp"
#include "../select.hpp"
#include "../status.hpp"
#include "parallel.hpp"
#include "scan.hpp"
#include "scratch.hpp"

namespace streamscan::cpu {
namespace detail {

// Two-way scatter over [0, n): `keep(i)` classifies, `write(i, dest)` places
// element i. Kept elements go to [0, kept) in order; rejected ones go
// nowhere (placement::compact), after the kept in order (rejects_after), or
// from n-1 down in input order (reversed_rejects). Returns the number kept.
// `counts` holds one int64 per chunk.
template <class Keep, class Write>
std::int64_t stable_scatter(std::int64_t n, Keep keep, Write write, streamscan::detail::placement rejects,
                            std::int64_t* counts) {
  using streamscan::detail::placement;
  const std::int64_t chunk = default_scan_policy.chunk_items, chunks = num_chunks(n);
  cpu::detail::parallel_for(chunks, [&](std::int64_t c) {
    std::int64_t k = 0;
    for (std::int64_t i = c * chunk, e = std::min(n, (c + 1) * chunk); i < e; ++i) k += keep(i) ? 1 : 0;
    counts[c] = k;
  });
  std::int64_t kept = 0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t k = counts[c];
    counts[c] = kept;
    kept += k;
  }
  cpu::detail::parallel_for(chunks, [&](std::int64_t c) {
    std::int64_t k = counts[c];             // kept before this chunk
    std::int64_t r = c * chunk - counts[c];  // rejected before this chunk
    for (std::int64_t i = c * chunk, e = std::min(n, (c + 1) * chunk); i < e; ++i) {
      if (keep(i)) write(i, k++);
      else if (rejects == placement::rejects_after) write(i, kept + r++);
      else if (rejects == placement::reversed_rejects) write(i, n - 1 - r++);
      else ++r;
    }
  });
  return kept;
}

// One int64 per chunk, plus room to align caller temp (which needs no alignment).
inline std::size_t scatter_temp_bytes(std::int64_t n) {
  return static_cast<std::size_t>(num_chunks(n) > 0 ? num_chunks(n) : 1) * sizeof(std::int64_t) + 7;
}
inline std::int64_t* chunk_counts(void* temp) {
  return reinterpret_cast<std::int64_t*>((reinterpret_cast<std::uintptr_t>(temp) + 7) / 8 * 8);
}

// Whether out is the same raw pointer as in (in-place).
template <class InIt, class OutIt>
bool same_pointer(const InIt& in, const OutIt& out) {
  if constexpr (std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>)
    return static_cast<const void*>(in) == static_cast<const void*>(out);
  else return false;
}

template <class InIt, class OutIt>
status refuse_in_place(const char* fn, const InIt& in, const OutIt& out, std::int64_t n) {
  if (n > 0 && same_pointer(in, out))
    return streamscan::detail::invalid_argument(fn, "arguments 'in' and 'out' are the same: this call cannot run in place");
  return status::ok();
}

// The checks and the temp-size protocol every call shares; `proceed` is set
// when there is work.
// The strategy is only checked: every CPU call runs the stable scatter, which
// serves the unordered compaction strategies too (options.policy names a GPU
// kernel shape and is ignored here).
template <class InIt, class OutIt>
status begin_select(const char* fn, void* temp, std::size_t& temp_bytes, const InIt& in, const OutIt& out,
                    std::int64_t n, const std::int64_t* capacity, const std::int64_t* num_selected, bool& proceed,
                    const select_options& opt, bool compaction) {
  proceed = false;
  select_strategy runs = select_strategy::stable;
  if (status s = streamscan::detail::resolve_select_strategy(fn, opt.strategy, compaction, runs); !s) return s;
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  if (capacity != nullptr && *capacity < 0)
    return streamscan::detail::invalid_argument(fn, "argument 'capacity' is negative (" + std::to_string(*capacity) + ")");
  if (num_selected == nullptr && temp != nullptr)
    return streamscan::detail::invalid_argument(fn, "argument 'num_selected' is a null pointer");
  const std::size_t required = scatter_temp_bytes(n);
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  proceed = true;
  return status::ok();
}

template <class InIt, class OutIt, class Keep>
status compact(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
               std::int64_t capacity, std::int64_t* num_selected, Keep keep, const select_options& opt) {
  bool proceed = false;
  if (status s = begin_select(fn, temp, temp_bytes, in, out, n, &capacity, num_selected, proceed, opt, true);
      !s || !proceed)
    return s;
  if (same_pointer(in, out)) {  // in place: sequential, every write lands at or before its read
    std::int64_t d = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (keep(i)) {
        if (d < capacity) out[d] = in[i];
        ++d;
      }
    *num_selected = d;
    return status::ok();
  }
  *num_selected = stable_scatter(
      n, keep, [&](std::int64_t i, std::int64_t d) {
        if (d < capacity) out[d] = in[i];
      },
      streamscan::detail::placement::compact, chunk_counts(temp));
  return status::ok();
}

}  // namespace detail

// ---- compaction (stable) ----

// Keeps in[i] where pred(in[i]); writes at most `capacity`; *num_selected = how many were kept.
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status select_if(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t capacity, std::int64_t* num_selected, Pred pred,
                               select_options opt = {}) {
  return detail::compact(
      "streamscan::cpu::select_if", temp, temp_bytes, in, out, n, capacity, num_selected,
      [&](std::int64_t i) { return static_cast<bool>(pred(in[i])); }, opt);
}

// Keeps in[i] where flags[i] (a stencil) is true.
template <class InIt, class FlagIt, class OutIt>
[[nodiscard]] status select_flagged(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out,
                                    std::int64_t n, std::int64_t capacity, std::int64_t* num_selected,
                                    select_options opt = {}) {
  if (status s = streamscan::detail::validate_array_arg("streamscan::cpu::select_flagged", flags, "flags", n,
                                                         temp == nullptr);
      !s)
    return s;
  return detail::compact(
      "streamscan::cpu::select_flagged", temp, temp_bytes, in, out, n, capacity, num_selected,
      [&](std::int64_t i) { return static_cast<bool>(flags[i]); }, opt);
}

// Writes the indices i with flags[i] true ([Compaction]'s output), as out's value type.
template <class FlagIt, class OutIt>
[[nodiscard]] status select_indices(void* temp, std::size_t& temp_bytes, FlagIt flags, OutIt out, std::int64_t n,
                                    std::int64_t capacity, std::int64_t* num_selected, select_options opt = {}) {
  using Index = typename std::iterator_traits<OutIt>::value_type;
  static_assert(std::is_integral_v<Index>, "streamscan::cpu::select_indices: the output holds integer indices");
  const char* fn = "streamscan::cpu::select_indices";
  if (status s = streamscan::detail::validate_array_arg(fn, flags, "flags", n, temp == nullptr); !s) return s;
  if (status s = streamscan::detail::validate_index_type<Index>(fn, n); !s) return s;
  bool proceed = false;
  if (status s = detail::begin_select(fn, temp, temp_bytes, flags, out, n, &capacity, num_selected, proceed, opt,
                                      true);
      !s || !proceed)
    return s;
  *num_selected = detail::stable_scatter(
      n, [&](std::int64_t i) { return static_cast<bool>(flags[i]); },
      [&](std::int64_t i, std::int64_t d) {
        if (d < capacity) out[d] = static_cast<Index>(i);
      },
      streamscan::detail::placement::compact, detail::chunk_counts(temp));
  return status::ok();
}

// ---- partition and split (out holds all n) ----

namespace detail {
template <class InIt, class OutIt, class Pred>
status partition(const char* fn, streamscan::detail::placement rejects, void* temp, std::size_t& temp_bytes, InIt in,
                 OutIt out, std::int64_t n, std::int64_t* num_selected, Pred pred, const select_options& opt) {
  bool proceed = false;
  if (status s = begin_select(fn, temp, temp_bytes, in, out, n, nullptr, num_selected, proceed, opt, false);
      !s || !proceed)
    return s;
  if (status s = refuse_in_place(fn, in, out, n); !s) return s;
  *num_selected = stable_scatter(
      n, [&](std::int64_t i) { return static_cast<bool>(pred(in[i])); },
      [&](std::int64_t i, std::int64_t d) { out[d] = in[i]; }, rejects, chunk_counts(temp));
  return status::ok();
}

template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
status partition_pairs(const char* fn, streamscan::detail::placement rejects, void* temp, std::size_t& temp_bytes,
                       KeyIt keys, ValueIt values, KeyOut keys_out, ValueOut values_out, std::int64_t n,
                       std::int64_t* num_selected, Pred pred, const select_options& opt) {
  bool proceed = false;
  if (status s = begin_select(fn, temp, temp_bytes, keys, keys_out, n, nullptr, num_selected, proceed, opt, false);
      !s || !proceed)
    return s;
  if (status s = streamscan::detail::validate_range_args(fn, values, values_out, n, false); !s) return s;
  if (status s = refuse_in_place(fn, keys, keys_out, n); !s) return s;
  if (status s = refuse_in_place(fn, values, values_out, n); !s) return s;
  *num_selected = stable_scatter(
      n, [&](std::int64_t i) { return static_cast<bool>(pred(keys[i])); },
      [&](std::int64_t i, std::int64_t d) {
        keys_out[d] = keys[i];
        values_out[d] = values[i];
      },
      rejects, chunk_counts(temp));
  return status::ok();
}
}  // namespace detail

// Selected (pred true) first in input order, then rejected in REVERSE input
// order (CUB's convention, one pass on the GPU); *num_selected = selected count.
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status partition(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                               std::int64_t* num_selected, Pred pred, select_options opt = {}) {
  return detail::partition("streamscan::cpu::partition", streamscan::detail::placement::reversed_rejects, temp,
                           temp_bytes, in, out, n, num_selected, pred, opt);
}

// Selected first, then rejected, both in input order.
template <class InIt, class OutIt, class Pred>
[[nodiscard]] status stable_partition(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                                      std::int64_t* num_selected, Pred pred, select_options opt = {}) {
  return detail::partition("streamscan::cpu::stable_partition", streamscan::detail::placement::rejects_after, temp,
                           temp_bytes, in, out, n, num_selected, pred, opt);
}

// Key-value partition (order as partition): the keys decide, the values follow.
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
[[nodiscard]] status partition_pairs(void* temp, std::size_t& temp_bytes, KeyIt keys, ValueIt values,
                                     KeyOut keys_out, ValueOut values_out, std::int64_t n,
                                     std::int64_t* num_selected, Pred pred, select_options opt = {}) {
  return detail::partition_pairs("streamscan::cpu::partition_pairs", streamscan::detail::placement::reversed_rejects,
                                 temp, temp_bytes, keys, values, keys_out, values_out, n, num_selected, pred, opt);
}

// Key-value stable partition (order as stable_partition).
template <class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Pred>
[[nodiscard]] status stable_partition_pairs(void* temp, std::size_t& temp_bytes, KeyIt keys, ValueIt values,
                                            KeyOut keys_out, ValueOut values_out, std::int64_t n,
                                            std::int64_t* num_selected, Pred pred, select_options opt = {}) {
  return detail::partition_pairs("streamscan::cpu::stable_partition_pairs",
                                 streamscan::detail::placement::rejects_after, temp, temp_bytes, keys, values,
                                 keys_out, values_out, n, num_selected, pred, opt);
}

// split ([ScanPrimitives] 2.3.3): flags[i] false first, then true, both in input
// order; *num_false receives where the trues begin.
template <class InIt, class FlagIt, class OutIt>
[[nodiscard]] status split(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags, OutIt out, std::int64_t n,
                           std::int64_t* num_false, select_options opt = {}) {
  const char* fn = "streamscan::cpu::split";
  bool proceed = false;
  if (status s = detail::begin_select(fn, temp, temp_bytes, in, out, n, nullptr, num_false, proceed, opt, false);
      !s || !proceed)
    return s;
  if (status s = streamscan::detail::validate_array_arg(fn, flags, "flags", n, false); !s) return s;
  if (status s = detail::refuse_in_place(fn, in, out, n); !s) return s;
  *num_false = detail::stable_scatter(
      n, [&](std::int64_t i) { return !static_cast<bool>(flags[i]); },
      [&](std::int64_t i, std::int64_t d) { out[d] = in[i]; }, streamscan::detail::placement::rejects_after,
      detail::chunk_counts(temp));
  return status::ok();
}

// split-and-segment ([ScanPrimitives] 2.3.3): splits every segment (heads[i] nonzero
// starts one; element 0 always does) on its own, falses first, and writes the
// heads of the resulting non-empty halves to heads_out. Segments are scanned
// one after another on the CPU.
template <class InIt, class FlagIt, class OutIt, class HeadOut>
[[nodiscard]] status split_and_segment(void* temp, std::size_t& temp_bytes, InIt in, FlagIt flags,
                                       head_flags heads, OutIt out, HeadOut heads_out, std::int64_t n,
                                       select_options opt = {}) {
  const char* fn = "streamscan::cpu::split_and_segment";
  std::int64_t unused = 0;
  bool proceed = false;
  if (status s = detail::begin_select(fn, temp, temp_bytes, in, out, n, nullptr, &unused, proceed, opt, false);
      !s || !proceed)
    return s;
  if (status st = streamscan::detail::validate_array_arg(fn, flags, "flags", n, false); !st) return st;
  if (n > 0 && heads.flags == nullptr)
    return streamscan::detail::invalid_argument(fn, "argument 'heads' (head_flags) is a null pointer");
  if (status st = streamscan::detail::validate_array_arg(fn, heads_out, "heads_out", n, false); !st) return st;
  if (status st = detail::refuse_in_place(fn, in, out, n); !st) return st;
  std::int64_t s = 0;
  while (s < n) {
    std::int64_t e = s + 1;
    while (e < n && !heads.flags[e]) ++e;
    std::int64_t falses = 0;
    for (std::int64_t i = s; i < e; ++i) falses += static_cast<bool>(flags[i]) ? 0 : 1;
    std::int64_t f = s, t = s + falses;
    for (std::int64_t i = s; i < e; ++i) heads_out[i] = 0;
    if (falses > 0) heads_out[s] = 1;
    if (falses < e - s) heads_out[s + falses] = 1;
    for (std::int64_t i = s; i < e; ++i) {
      if (static_cast<bool>(flags[i])) out[t++] = in[i];
      else out[f++] = in[i];
    }
    s = e;
  }
  return status::ok();
}

// ---- convenience forms (the GPU's, without a stream): heap scratch, errors thrown ----

// Returns how many were selected (may exceed capacity; at most capacity are written).
template <class InIt, class OutIt, class Pred, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t select_if(InIt in, OutIt out, std::int64_t n, std::int64_t capacity, Pred pred, select_options opt = {}) {
  return detail::with_heap_count([&](void* t, std::size_t& b, std::int64_t* c) {
    return select_if(t, b, in, out, n, capacity, c, pred, opt);
  });
}

template <class InIt, class FlagIt, class OutIt, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t select_flagged(InIt in, FlagIt flags, OutIt out, std::int64_t n, std::int64_t capacity,
                            select_options opt = {}) {
  return detail::with_heap_count([&](void* t, std::size_t& b, std::int64_t* c) {
    return select_flagged(t, b, in, flags, out, n, capacity, c, opt);
  });
}

// Returns the selected count (where the rejected begin).
template <class InIt, class OutIt, class Pred, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t partition(InIt in, OutIt out, std::int64_t n, Pred pred, select_options opt = {}) {
  return detail::with_heap_count(
      [&](void* t, std::size_t& b, std::int64_t* c) { return partition(t, b, in, out, n, c, pred, opt); });
}

template <class InIt, class OutIt, class Pred, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t stable_partition(InIt in, OutIt out, std::int64_t n, Pred pred, select_options opt = {}) {
  return detail::with_heap_count(
      [&](void* t, std::size_t& b, std::int64_t* c) { return stable_partition(t, b, in, out, n, c, pred, opt); });
}

// Returns the false count (where the trues begin).
template <class InIt, class FlagIt, class OutIt, class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
std::int64_t split(InIt in, FlagIt flags, OutIt out, std::int64_t n, select_options opt = {}) {
  return detail::with_heap_count(
      [&](void* t, std::size_t& b, std::int64_t* c) { return split(t, b, in, flags, out, n, c, opt); });
}

template <class InIt, class FlagIt, class OutIt, class HeadOut,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void split_and_segment(InIt in, FlagIt flags, head_flags heads, OutIt out, HeadOut heads_out, std::int64_t n,
                       select_options opt = {}) {
  detail::with_heap_scratch(
      [&](void* t, std::size_t& b) { return split_and_segment(t, b, in, flags, heads, out, heads_out, n, opt); });
}

}  // namespace streamscan::cpu
