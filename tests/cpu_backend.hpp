// Test adapter of the CPU back end (see scan_test_body.hpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <streamscan/cpu.hpp>
#include <streamscan/cpu/segmented_reduce.hpp>
#include <streamscan/cpu/segmented_scan.hpp>

#include "common/wrapped_iterator.hpp"
#include "scan_test_body.hpp"
#include "segmented_reduce_test_body.hpp"
#include "segmented_test_body.hpp"
#include "select_test_body.hpp"
#include "sort_test_body.hpp"

namespace streamscan_test {

struct cpu_backend {
  static constexpr const char* name = "cpu";
  static constexpr std::int64_t many_tiles = 7;
  static constexpr std::int64_t look_back_window = 0;  // no look-back windows
  static constexpr std::int64_t large_size = 2'000'000;

  static bool available() { return true; }
  static std::vector<streamscan::scan_strategy> strategies() {
    return {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
            streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  }
  template <class A>
  static std::int64_t tile_items(streamscan::scan_strategy) {
    return streamscan::cpu::default_scan_policy.chunk_items;
  }
  template <class A>
  static std::int64_t segmented_tile_items() {
    return streamscan::cpu::default_scan_policy.chunk_items;
  }

  static constexpr bool has_split_and_segment = true;
  static constexpr bool compaction_in_place = true;
  static constexpr const char* select_policy = nullptr;  // the CPU back end has one
  // Every strategy runs the stable scatter here; one unordered name checks it is accepted.
  static std::vector<streamscan::select_strategy> compaction_strategies() {
    return {streamscan::select_strategy::automatic, streamscan::select_strategy::warp_atomic};
  }
  static std::int64_t select_chunk() { return streamscan::cpu::default_scan_policy.chunk_items; }

  static streamscan::status run_select(const select_request& req, const std::vector<std::int32_t>& in,
                                       const std::vector<unsigned char>& keep, const std::vector<unsigned char>& heads,
                                       std::vector<std::int64_t>& out, std::vector<unsigned char>& heads_out,
                                       std::int64_t& num) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    std::size_t bytes = 0;
    auto two_phase = [&](auto call) {
      ss::status s = call(nullptr);
      if (!s) return s;
      std::vector<unsigned char> temp(bytes + 1);
      return call(temp.data() + 1);  // no alignment needed
    };
    const below pred{req.threshold};
    const ss::select_options opt{req.strategy};
    std::vector<std::int64_t> wide(in.begin(), in.end());
    switch (req.kind) {
      case select_kind::select_if:
        if (req.in_place) {
          std::copy(wide.begin(), wide.end(), out.begin());
          return two_phase([&](void* t) {
            return ss::cpu::select_if(t, bytes, out.data(), out.data(), n, req.capacity, &num, pred, opt);
          });
        }
        return two_phase([&](void* t) {
          return ss::cpu::select_if(t, bytes, in.data(), out.data(), n, req.capacity, &num, pred, opt);
        });
      case select_kind::select_flagged:
        if (req.in_place) {
          std::copy(wide.begin(), wide.end(), out.begin());
          return two_phase([&](void* t) {
            return ss::cpu::select_flagged(t, bytes, out.data(), keep.data(), out.data(), n, req.capacity, &num, opt);
          });
        }
        return two_phase([&](void* t) {
          return ss::cpu::select_flagged(t, bytes, in.data(), keep.data(), out.data(), n, req.capacity, &num, opt);
        });
      case select_kind::select_indices:
        return two_phase([&](void* t) {
          return ss::cpu::select_indices(t, bytes, keep.data(), out.data(), n, req.capacity, &num, opt);
        });
      case select_kind::partition:
        return two_phase([&](void* t) { return ss::cpu::partition(t, bytes, in.data(), out.data(), n, &num, pred); });
      case select_kind::stable_partition:
        return two_phase(
            [&](void* t) { return ss::cpu::stable_partition(t, bytes, in.data(), out.data(), n, &num, pred); });
      case select_kind::partition_pairs:
      case select_kind::stable_partition_pairs: {
        std::vector<std::int32_t> keys_out(in.size());
        const bool stable = req.kind == select_kind::stable_partition_pairs;
        ss::status s = two_phase([&](void* t) {
          return stable ? ss::cpu::stable_partition_pairs(t, bytes, in.data(), wide.data(), keys_out.data(),
                                                          out.data(), n, &num, pred)
                        : ss::cpu::partition_pairs(t, bytes, in.data(), wide.data(), keys_out.data(), out.data(), n,
                                                   &num, pred);
        });
        for (std::size_t i = 0; s && i < in.size(); ++i)
          if (keys_out[i] != out[i]) s = ss::status(ss::errc::invalid_argument, "keys and values parted ways");
        return s;
      }
      case select_kind::split:
        return two_phase([&](void* t) { return ss::cpu::split(t, bytes, in.data(), keep.data(), out.data(), n, &num); });
      default:
        return two_phase([&](void* t) {
          return ss::cpu::split_and_segment(t, bytes, in.data(), keep.data(), ss::head_flags(heads.data()),
                                            out.data(), heads_out.data(), n);
        });
    }
  }

  template <class A, class Op>
  static void run_segmented(const seg_request& req, const std::vector<A>& in, const segments_fixture& segs,
                            std::vector<A>& out, Op op, A init) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    if (req.in_place) out = in;
    const A* src = req.in_place ? out.data() : in.data();
    const ss::segmented_options opt{req.direction, {req.strategy}};
    auto call = [&](auto segments) {
      std::size_t bytes = 0;
      auto invoke = [&](void* temp) {
        switch (req.kind) {
          case seg_kind::inclusive: return ss::cpu::segmented_inclusive_scan(temp, bytes, src, out.data(), n, segments, op, opt);
          case seg_kind::inclusive_init:
            return ss::cpu::segmented_inclusive_scan_init(temp, bytes, src, out.data(), n, segments, op, init, opt);
          case seg_kind::exclusive:
            return ss::cpu::segmented_exclusive_scan(temp, bytes, src, out.data(), n, segments, init, op, opt);
          case seg_kind::enumerate:
            if constexpr (std::is_arithmetic_v<A>) return ss::cpu::enumerate(temp, bytes, src, out.data(), n, segments, opt);
            else return ss::status(ss::errc::invalid_argument, "enumerate takes arithmetic flags");
          default: return ss::cpu::distribute(temp, bytes, src, out.data(), n, segments, opt);
        }
      };
      const ss::status query = invoke(nullptr);
      ASSERT_TRUE(query.is_ok()) << query.message();
      std::vector<unsigned char> temp(bytes + 1);
      const ss::status s = invoke(temp.data() + 1);  // no alignment needed
      ASSERT_TRUE(s.is_ok()) << s.message();
    };
    switch (req.form) {
      case seg_form::flags: call(ss::head_flags(segs.flags.data())); break;
      case seg_form::bits: call(ss::head_bits(segs.bits.data())); break;
      case seg_form::offsets:
        call(ss::segment_offsets{segs.offsets.data(), static_cast<std::int64_t>(segs.offsets.size()) - 1});
        break;
      default: call(ss::no_segments{}); break;
    }
  }

  template <class A, class Op>
  static void run_segmented_reduce(const reduce_request& req, const std::vector<A>& in, const segments_fixture& segs,
                                   std::vector<A>& out, Op op, A init, std::int64_t& num) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    auto call = [&](auto src, auto segments) {
      if (!req.two_phase) {
        ss::cpu::segmented_reduce(src, out.data(), n, segments, init, op, &num);
        return;
      }
      std::size_t bytes = 0;
      const ss::status query = ss::cpu::segmented_reduce(nullptr, bytes, src, out.data(), n, segments, init, op, &num);
      ASSERT_TRUE(query.is_ok()) << query.message();
      std::vector<unsigned char> temp(bytes + 1);
      const ss::status s = ss::cpu::segmented_reduce(temp.data() + 1, bytes, src, out.data(), n, segments, init, op,
                                                     &num);  // no alignment needed
      ASSERT_TRUE(s.is_ok()) << s.message();
    };
    auto with_input = [&](auto segments) {
      if (req.wrapped_input) call(wrapped_iterator<const A>(in.data()), segments);
      else call(in.data(), segments);
    };
    switch (req.form) {
      case seg_form::flags: with_input(ss::head_flags(segs.flags.data())); break;
      case seg_form::bits: with_input(ss::head_bits(segs.bits.data())); break;
      default:
        with_input(ss::segment_offsets{segs.offsets.data(), static_cast<std::int64_t>(segs.offsets.size()) - 1});
    }
  }
  static streamscan::status reduce_status(seg_form form, void* temp, std::size_t& bytes, const std::int32_t* in,
                                          std::int32_t* out, std::int64_t n, const void* segments, std::int64_t m) {
    namespace ss = streamscan;
    switch (form) {
      case seg_form::flags:
        return ss::cpu::segmented_reduce(temp, bytes, in, out, n, ss::head_flags(static_cast<const unsigned char*>(segments)), 0);
      case seg_form::bits:
        return ss::cpu::segmented_reduce(temp, bytes, in, out, n, ss::head_bits(static_cast<const std::uint32_t*>(segments)), 0);
      default:
        return ss::cpu::segmented_reduce(temp, bytes, in, out, n,
                                         ss::segment_offsets{static_cast<const std::int64_t*>(segments), m}, 0);
    }
  }
  // Iterators as inputs (int64 outputs).
  template <class InIt>
  static void scan_of(InIt in, std::int64_t n, bool exclusive, std::vector<std::int64_t>& out) {
    out.assign(static_cast<std::size_t>(n), -1);
    if (exclusive) streamscan::cpu::exclusive_scan(in, out.data(), n, std::int64_t{0});
    else streamscan::cpu::inclusive_scan(in, out.data(), n);
  }
  template <class InIt>
  static void segmented_scan_of(InIt in, std::int64_t n, const std::vector<unsigned char>& flags,
                                std::vector<std::int64_t>& out) {
    out.assign(static_cast<std::size_t>(n), -1);
    streamscan::cpu::segmented_inclusive_scan(in, out.data(), n, streamscan::head_flags(flags.data()));
  }
  template <class InIt>
  static std::int64_t select_below_of(InIt in, std::int64_t n, std::int32_t threshold, std::vector<std::int64_t>& out) {
    out.assign(static_cast<std::size_t>(n), -1);
    std::int64_t num = -1;
    std::size_t bytes = 0;
    EXPECT_TRUE(streamscan::cpu::select_if(nullptr, bytes, in, out.data(), n, n, &num, below{threshold}).is_ok());
    std::vector<unsigned char> temp(bytes + 1);
    const streamscan::status s = streamscan::cpu::select_if(temp.data(), bytes, in, out.data(), n, n, &num, below{threshold});
    EXPECT_TRUE(s.is_ok()) << s.message();
    return num;
  }
  template <class InIt>
  static void reduce_of(InIt in, std::int64_t n, const std::vector<std::int64_t>& offsets, std::vector<std::int64_t>& out) {
    const auto m = static_cast<std::int64_t>(offsets.size()) - 1;
    out.assign(static_cast<std::size_t>(m), -1);
    streamscan::cpu::segmented_reduce(in, out.data(), n, streamscan::segment_offsets{offsets.data(), m}, std::int64_t{0});
  }

  // ---- sorts (sort_test_body.hpp) ----
  // No tiles here: the GPU's onesweep tile, so that the same edge sizes run.
  template <class K, int ValueBytes>
  static std::int64_t sort_tile_items() {
    return 4096;
  }

  template <class K, class Less>
  static streamscan::status run_quicksort(const quicksort_request& req, const std::vector<K>& in, std::vector<K>& out,
                                          Less less) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    if (req.in_place) out = in;
    const K* src = req.fault == sort_fault::null_keys_in ? nullptr : req.in_place ? out.data() : in.data();
    K* dst = req.fault == sort_fault::null_keys_out ? nullptr : out.data();
    const std::int64_t n_call = req.fault == sort_fault::negative_n ? -1 : n;
    if (req.form == sort_form::convenience) {
      try {
        ss::cpu::quicksort(src, dst, n_call, req.options, less);
        return ss::status::ok();
      } catch (const ss::error& e) {
        return e.get_status();
      }
    }
    std::size_t bytes = 0;
    if (ss::status s = ss::cpu::quicksort(nullptr, bytes, src, dst, n, req.options, less); !s) return s;
    std::vector<unsigned char> temp(bytes + 1);
    std::size_t given = req.fault == sort_fault::temp_too_small ? bytes - 1 : bytes;
    return ss::cpu::quicksort(temp.data() + 1, given, src, dst, n_call, req.options, less);  // no alignment needed
  }

  template <class In, class Out, class Op>
  static void run(const run_request& req, const std::vector<In>& in, std::vector<Out>& out, Op op, Out init) {
    const auto n = static_cast<std::int64_t>(in.size());
    if (req.in_place) {
      if constexpr (std::is_same_v<In, Out>) {
        out = in;
        call(req, out.data(), out.data(), n, op, init);
      }
    } else if (req.write_only_output) {
      call(req, in.data(), write_only_iterator<Out>(out.data()), n, op, init);
    } else if (req.wrapped_input) {
      call(req, wrapped_iterator<const In>(in.data()), out.data(), n, op, init);
    } else {
      call(req, in.data(), out.data(), n, op, init);
    }
  }

  // Keys only when V is no_sort_values.
  template <class K, class V>
  static streamscan::status run_sort(const sort_request& req, const std::vector<K>& keys, const std::vector<V>& values,
                                     std::vector<K>& keys_out, std::vector<V>& values_out) {
    namespace ss = streamscan;
    constexpr bool pairs = !std::is_same_v<V, no_sort_values>;
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t n_call = req.fault == sort_fault::negative_n ? -1 : n;
    ss::sort_options query_options = req.options;
    if (req.query_full_bits) query_options.begin_bit = 0, query_options.end_bit = -1;
    if (req.form == sort_form::double_buffer) {
      std::vector<K> k0 = keys, k1(keys.size());
      std::vector<V> v0 = values, v1(values.size());
      poison(k1);
      poison(v1);
      ss::double_buffer<K> kdb(k0.data(), k1.data());
      ss::double_buffer<V> vdb(v0.data(), v1.data());
      auto invoke = [&](void* t, std::size_t& b, const ss::sort_options& o, std::int64_t m) {
        if constexpr (pairs) return ss::cpu::radix_sort_pairs(t, b, kdb, vdb, m, o);
        else return ss::cpu::radix_sort_keys(t, b, kdb, m, o);
      };
      std::size_t bytes = 0;
      ss::status s = invoke(nullptr, bytes, query_options, n);
      if (s) {  // else the query's error; current() still comes back
        std::vector<unsigned char> temp(bytes + 1);
        s = invoke(temp.data() + 1, bytes, req.options, n_call);  // no alignment needed
      }
      EXPECT_TRUE(kdb.current() == k0.data() || kdb.current() == k1.data()) << "keys.current() is neither buffer";
      std::copy(kdb.current(), kdb.current() + n, keys_out.begin());
      if constexpr (pairs) {
        EXPECT_EQ(vdb.selector & 1, kdb.selector & 1) << "keys and values ended in different buffers";
        std::copy(vdb.current(), vdb.current() + n, values_out.begin());
      }
      return s;
    }
    if (req.in_place) {
      keys_out = keys;
      values_out = values;
    }
    const K* kin = req.fault == sort_fault::null_keys_in ? nullptr : req.in_place ? keys_out.data() : keys.data();
    K* kout = req.fault == sort_fault::null_keys_out ? nullptr : keys_out.data();
    const V* vin = req.fault == sort_fault::null_values_in ? nullptr : req.in_place ? values_out.data() : values.data();
    V* vout = req.fault == sort_fault::null_values_out ? nullptr : values_out.data();
    auto invoke = [&](void* t, std::size_t& b, const ss::sort_options& o, std::int64_t m) {
      if constexpr (pairs) return ss::cpu::radix_sort_pairs(t, b, kin, kout, vin, vout, m, o);
      else return ss::cpu::radix_sort_keys(t, b, kin, kout, m, o);
    };
    if (req.form == sort_form::convenience) {
      try {
        if constexpr (pairs) ss::cpu::radix_sort_pairs(kin, kout, vin, vout, n_call, req.options);
        else ss::cpu::radix_sort_keys(kin, kout, n_call, req.options);
        return ss::status::ok();
      } catch (const ss::error& e) {
        return e.get_status();
      }
    }
    std::size_t bytes = 0;
    if (ss::status s = invoke(nullptr, bytes, query_options, n); !s) return s;
    std::vector<unsigned char> temp(bytes + 1);
    std::size_t given = req.fault == sort_fault::temp_too_small ? bytes - 1 : bytes;
    return invoke(temp.data() + 1, given, req.options, n_call);  // no alignment needed
  }

 private:
  template <class InIt, class OutIt, class Op, class Out>
  static void call(const run_request& req, InIt in, OutIt out, std::int64_t n, Op op, Out init) {
    namespace ss = streamscan;
    const ss::scan_options opt{req.strategy};
    if (!req.two_phase) {
      switch (req.kind) {
        case scan_kind::inclusive: ss::cpu::inclusive_scan(in, out, n, op, opt); break;
        case scan_kind::inclusive_init: ss::cpu::inclusive_scan_init(in, out, n, op, init, opt); break;
        case scan_kind::exclusive: ss::cpu::exclusive_scan(in, out, n, init, op, opt); break;
      }
      return;
    }
    auto invoke = [&](void* temp, std::size_t& bytes) {
      switch (req.kind) {
        case scan_kind::inclusive: return ss::cpu::inclusive_scan(temp, bytes, in, out, n, op, opt);
        case scan_kind::inclusive_init: return ss::cpu::inclusive_scan_init(temp, bytes, in, out, n, op, init, opt);
        default: return ss::cpu::exclusive_scan(temp, bytes, in, out, n, init, op, opt);
      }
    };
    std::size_t bytes = 0;
    const ss::status query = invoke(nullptr, bytes);
    ASSERT_TRUE(query.is_ok()) << query.message();
    ASSERT_GT(bytes, 0u);
    std::vector<unsigned char> temp(bytes);
    const ss::status s = invoke(temp.data(), bytes);
    ASSERT_TRUE(s.is_ok()) << s.message();
  }
};

}  // namespace streamscan_test
