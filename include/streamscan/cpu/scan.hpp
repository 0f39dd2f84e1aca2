// streamscan/cpu/scan.hpp - the CPU back end of the device-wide scans.
//
// Plain C++17 (no CUDA headers), parallel with oneTBB when available. It runs
// the same two strategies as the CUDA back end, over chunks instead of thread
// blocks, so that results (float rounding included) follow the same order of
// operations per chunk. Names and arguments match streamscan::cuda, less the
// stream. Iterators must be random access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <memory>
#include <optional>
#include <type_traits>

#include "../accumulator.hpp"
#include "../detail/validate.hpp"
#include "../operators.hpp"
#include "../scan_options.hpp"
#include "../status.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace streamscan::cpu {

// Tuning data for the CPU back end: one chunk is one task.
struct scan_policy {
  std::int64_t chunk_items;
};
inline constexpr scan_policy default_scan_policy{1 << 16};

namespace detail {

enum class scan_mode { inclusive, exclusive };

template <class A>
struct scan_args {
  scan_mode mode;
  std::optional<A> init;  // exclusive: always set; inclusive: optional
};

// Sequential scan of in[begin, end) into out, starting from `carry` (the
// combination of everything before `begin`, if anything). Returns the new carry.
// Exclusive mode writes out[i] = carry-before-i, and leaves out[begin]
// unwritten when there is no carry (no identity is assumed for op).
template <class A, class InIt, class OutIt, class Op>
std::optional<A> scan_chunk(InIt in, OutIt out, std::int64_t begin, std::int64_t end,
                            std::optional<A> carry, scan_mode mode, Op& op) {
  for (std::int64_t i = begin; i < end; ++i) {
    const A x = static_cast<A>(in[i]);  // read before writing: in-place calls are allowed
    if (mode == scan_mode::exclusive) {
      if (carry) out[i] = *carry;
      carry = carry ? static_cast<A>(op(*carry, x)) : x;
    } else {
      carry = carry ? static_cast<A>(op(*carry, x)) : x;
      out[i] = *carry;
    }
  }
  return carry;
}

template <class A, class InIt, class Op>
A reduce_chunk(InIt in, std::int64_t begin, std::int64_t end, Op& op) {
  A acc = static_cast<A>(in[begin]);
  for (std::int64_t i = begin + 1; i < end; ++i) acc = static_cast<A>(op(acc, static_cast<A>(in[i])));
  return acc;
}

inline std::int64_t num_chunks(std::int64_t n) {
  return (n + default_scan_policy.chunk_items - 1) / default_scan_policy.chunk_items;
}

template <class A>
std::size_t required_temp_bytes(std::int64_t n) {
  return streamscan::detail::temp_bytes_for<A>(num_chunks(n));
}

// Chunk partials live in caller-provided temp storage; A is trivially copyable,
// so raw bytes are a valid home once written with memcpy.
template <class A>
struct partials_view {
  unsigned char* bytes;
  A get(std::int64_t i) const {
    A v;
    std::memcpy(&v, bytes + i * sizeof(A), sizeof(A));
    return v;
  }
  void set(std::int64_t i, const A& v) const { std::memcpy(bytes + i * sizeof(A), &v, sizeof(A)); }
};

// Exclusive scan of the partials in place: partial[c] becomes the combination
// of everything before chunk c (init included). Chunk 0 keeps no prefix unless
// there is an init.
template <class A, class Op>
void scan_partials(partials_view<A> p, std::int64_t chunks, const std::optional<A>& init, Op& op) {
  std::optional<A> carry = init;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const A total = p.get(c);
    if (carry) p.set(c, *carry);
    carry = carry ? static_cast<A>(op(*carry, total)) : total;
  }
}

template <class A, class InIt, class OutIt, class Op>
void reduce_then_scan(partials_view<A> p, InIt in, OutIt out, std::int64_t n, Op op,
                      const scan_args<A>& args) {
  const std::int64_t chunk = default_scan_policy.chunk_items, chunks = num_chunks(n);
  cpu::detail::parallel_for(chunks, [&](std::int64_t c) {
    p.set(c, reduce_chunk<A>(in, c * chunk, std::min(n, (c + 1) * chunk), op));
  });
  scan_partials(p, chunks, args.init, op);
  cpu::detail::parallel_for(chunks, [&](std::int64_t c) {
    Op local_op = op;
    std::optional<A> prefix;
    if (c > 0 || args.init) prefix = p.get(c);
    scan_chunk<A>(in, out, c * chunk, std::min(n, (c + 1) * chunk), prefix, args.mode, local_op);
  });
}

template <class A, class InIt, class OutIt, class Op>
void scan_then_add(partials_view<A> p, InIt in, OutIt out, std::int64_t n, Op op,
                   const scan_args<A>& args) {
  const std::int64_t chunk = default_scan_policy.chunk_items, chunks = num_chunks(n);
  cpu::detail::parallel_for(chunks, [&](std::int64_t c) {
    Op local_op = op;
    p.set(c, *scan_chunk<A>(in, out, c * chunk, std::min(n, (c + 1) * chunk), std::nullopt,
                            args.mode, local_op));
  });
  scan_partials(p, chunks, args.init, op);
  cpu::detail::parallel_for(chunks, [&](std::int64_t c) {
    if (c == 0 && !args.init) return;  // chunk 0 is already final
    const A prefix = p.get(c);
    const std::int64_t begin = c * chunk, end = std::min(n, (c + 1) * chunk);
    if (args.mode == scan_mode::exclusive) {
      // The local pass left out[begin] unwritten and out[i] = x[begin..i-1].
      for (std::int64_t i = begin + 1; i < end; ++i) out[i] = static_cast<A>(op(prefix, static_cast<A>(out[i])));
      out[begin] = prefix;
    } else {
      for (std::int64_t i = begin; i < end; ++i) out[i] = static_cast<A>(op(prefix, static_cast<A>(out[i])));
    }
  });
}

template <class A, class InIt, class OutIt, class Op>
status scan(const char* fn, void* temp, std::size_t& temp_bytes, InIt in, OutIt out,
            std::int64_t n, Op op, const scan_args<A>& args, scan_options opt) {
  static_assert(std::is_trivially_copyable_v<A>, "streamscan: the accumulator type must be trivially copyable");
  if (status s = streamscan::detail::validate_range_args(fn, in, out, n, temp == nullptr); !s) return s;
  const std::size_t required = required_temp_bytes<A>(n);
  if (auto t = streamscan::detail::size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
  if (n == 0) return status::ok();
  partials_view<A> p{static_cast<unsigned char*>(temp)};
  switch (opt.strategy) {
    case scan_strategy::scan_then_add:
      // The add pass reads the output back: a write-only output cannot take it.
      if constexpr (std::is_void_v<typename std::iterator_traits<OutIt>::value_type>) {
        return streamscan::detail::invalid_argument(
            fn, "strategy scan_then_add reads the output back, but argument 'out' is write-only");
      } else {
        scan_then_add<A>(p, in, out, n, op, args);
      }
      break;
    // The single-pass strategies exist for GPUs (they save a pass over memory
    // by letting thread blocks wait on each other); on the CPU they run as
    // reduce_then_scan, whose chunk order is as deterministic as the chain.
    case scan_strategy::chained:
    case scan_strategy::decoupled_lookback:
    case scan_strategy::automatic:
    case scan_strategy::reduce_then_scan: reduce_then_scan<A>(p, in, out, n, op, args); break;
    default: return streamscan::detail::invalid_argument(fn, "argument 'options.strategy' is not a strategy of the CPU back end");
  }
  return status::ok();
}

// Convenience forms: allocate temp storage on the heap, throw on error.
template <class A, class InIt, class OutIt, class Op>
void scan_allocating(const char* fn, InIt in, OutIt out, std::int64_t n, Op op,
                     const scan_args<A>& args, scan_options opt) {
  with_heap_scratch([&](void* temp, std::size_t& bytes) { return scan<A>(fn, temp, bytes, in, out, n, op, args, opt); });
}

}  // namespace detail

// ---- two-phase form: temp == nullptr -> temp_bytes receives the size needed ----

template <class InIt, class OutIt, class Op = streamscan::plus>
[[nodiscard]] status inclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                      Op op = {}, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt>;
  return detail::scan<A>("streamscan::cpu::inclusive_scan", temp, temp_bytes, in, out, n, op,
                         detail::scan_args<A>{detail::scan_mode::inclusive, std::nullopt}, opt);
}

template <class InIt, class OutIt, class Op, class Init>
[[nodiscard]] status inclusive_scan_init(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                           Op op, Init init, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::scan<A>("streamscan::cpu::inclusive_scan_init", temp, temp_bytes, in, out, n, op,
                         detail::scan_args<A>{detail::scan_mode::inclusive, static_cast<A>(init)}, opt);
}

template <class InIt, class OutIt, class Init, class Op = streamscan::plus>
[[nodiscard]] status exclusive_scan(void* temp, std::size_t& temp_bytes, InIt in, OutIt out, std::int64_t n,
                      Init init, Op op = {}, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  return detail::scan<A>("streamscan::cpu::exclusive_scan", temp, temp_bytes, in, out, n, op,
                         detail::scan_args<A>{detail::scan_mode::exclusive, static_cast<A>(init)}, opt);
}

// ---- convenience form: allocates its own scratch, throws streamscan::error ----

template <class InIt, class OutIt, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void inclusive_scan(InIt in, OutIt out, std::int64_t n, Op op = {}, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt>;
  detail::scan_allocating<A>("streamscan::cpu::inclusive_scan", in, out, n, op,
                             detail::scan_args<A>{detail::scan_mode::inclusive, std::nullopt}, opt);
}

template <class InIt, class OutIt, class Op, class Init,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void inclusive_scan_init(InIt in, OutIt out, std::int64_t n, Op op, Init init, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  detail::scan_allocating<A>("streamscan::cpu::inclusive_scan_init", in, out, n, op,
                             detail::scan_args<A>{detail::scan_mode::inclusive, static_cast<A>(init)}, opt);
}

template <class InIt, class OutIt, class Init, class Op = streamscan::plus,
          class = std::enable_if_t<streamscan::detail::is_iterator_v<InIt>>>
void exclusive_scan(InIt in, OutIt out, std::int64_t n, Init init, Op op = {}, scan_options opt = {}) {
  using A = accumulator_t<Op, InIt, OutIt, Init>;
  detail::scan_allocating<A>("streamscan::cpu::exclusive_scan", in, out, n, op,
                             detail::scan_args<A>{detail::scan_mode::exclusive, static_cast<A>(init)}, opt);
}

}  // namespace streamscan::cpu
