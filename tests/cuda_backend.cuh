// Test adapter of the CUDA back end (see scan_test_body.hpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <streamscan/cuda.cuh>
#include <streamscan/tuning/sort.hpp>

#include "common/cuda_helpers.cuh"
#include "common/wrapped_iterator.hpp"
#include "scan_test_body.hpp"
#include "segmented_reduce_test_body.hpp"
#include "segmented_test_body.hpp"
#include "select_test_body.hpp"
#include "sort_test_body.hpp"

namespace streamscan_test {

struct cuda_backend {
  static constexpr const char* name = "cuda";
  static constexpr std::int64_t many_tiles = 37;
  static constexpr std::int64_t look_back_window = 32;  // tiles a window of the grouped look-back (look_back.cuh)
  // Past 1056 tiles (132 SMs x 8 partitions) partitions hold several tiles.
  static constexpr std::int64_t large_size = std::int64_t{1} << 24;

  static bool available() { return gpu_present(); }
  static std::vector<streamscan::scan_strategy> strategies() {
    return {streamscan::scan_strategy::reduce_then_scan, streamscan::scan_strategy::scan_then_add,
            streamscan::scan_strategy::chained, streamscan::scan_strategy::decoupled_lookback};
  }
  // Tile edges of every strategy: the sizes in test_sizes hit them all.
  template <class A>
  static std::int64_t tile_items(streamscan::scan_strategy strategy) {
    return streamscan::cuda::scan_tile_items<A>(strategy);
  }
  // The dedicated segmented kernel's tile (default shape).
  template <class A>
  static std::int64_t segmented_tile_items() {
    return streamscan::tuning::segmented_tile_items(streamscan::tuning::default_segmented_shape, sizeof(A));
  }

  static constexpr bool has_split_and_segment = true;
  static constexpr bool compaction_in_place = true;     // the stable single pass
  static constexpr const char* select_policy = nullptr;  // default shape
  static std::vector<streamscan::select_strategy> compaction_strategies() {
    namespace ss = streamscan;
    return {ss::select_strategy::automatic, ss::select_strategy::multi_level, ss::select_strategy::hybrid,
            ss::select_strategy::warp_atomic};
  }
  // The count scan's tile (32-bit counts through the general single-pass kernel).
  static std::int64_t select_chunk() { return streamscan::tuning::select_policy<4>::tile_items; }  // int32 input

  static streamscan::status run_select(const select_request& req, const std::vector<std::int32_t>& in,
                                       const std::vector<unsigned char>& keep, const std::vector<unsigned char>& heads,
                                       std::vector<std::int64_t>& out, std::vector<unsigned char>& heads_out,
                                       std::int64_t& num) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    const cudaStream_t stream = test_stream();
    device_buffer<std::int32_t> d_in(in.size());
    device_buffer<std::int64_t> d_wide(in.size()), d_out(out.size());
    device_buffer<unsigned char> d_keep(keep.size());
    device_buffer<std::int64_t> d_num(1);
    std::vector<std::int64_t> wide(in.begin(), in.end());
    d_in.upload(in);
    d_wide.upload(wide);
    d_keep.upload(keep);
    d_out.upload(out);  // poisoned
    d_num.upload({std::int64_t(0xA7A7A7A7A7A7A7A7ull)});  // poisoned; upload waits, the test stream would not
    if (req.in_place) {
      std::copy(wide.begin(), wide.end(), out.begin());
      d_out.upload(out);
    }
    const below pred{req.threshold};
    const ss::select_options opt{req.strategy, req.policy};
    std::size_t bytes = 0;
    auto two_phase = [&](auto call) {
      ss::status s = call(nullptr);
      if (!s) return s;
      device_buffer<unsigned char> temp(bytes + 1);
      s = call(temp.get() + 1);  // no alignment needed
      if (s) STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      return s;
    };
    const std::int32_t* src = d_in.get();
    const std::int64_t* wsrc = d_wide.get();
    const unsigned char* flags = d_keep.get();
    ss::status s;
    switch (req.kind) {
      case select_kind::select_if:
        s = req.in_place ? two_phase([&](void* t) {
          return ss::cuda::select_if(t, bytes, d_out.get(), d_out.get(), n, req.capacity, d_num.get(), pred, stream, opt);
        })
                         : two_phase([&](void* t) {
                             return ss::cuda::select_if(t, bytes, src, d_out.get(), n, req.capacity, d_num.get(), pred,
                                                        stream, opt);
                           });
        break;
      case select_kind::select_flagged:
        s = req.in_place ? two_phase([&](void* t) {
          return ss::cuda::select_flagged(t, bytes, d_out.get(), flags, d_out.get(), n, req.capacity, d_num.get(),
                                          stream, opt);
        })
                         : two_phase([&](void* t) {
                             return ss::cuda::select_flagged(t, bytes, src, flags, d_out.get(), n, req.capacity,
                                                             d_num.get(), stream, opt);
                           });
        break;
      case select_kind::select_indices:
        s = two_phase([&](void* t) {
          return ss::cuda::select_indices(t, bytes, flags, d_out.get(), n, req.capacity, d_num.get(), stream, opt);
        });
        break;
      case select_kind::partition:
        s = two_phase([&](void* t) { return ss::cuda::partition(t, bytes, src, d_out.get(), n, d_num.get(), pred, stream, opt); });
        break;
      case select_kind::stable_partition:
        s = two_phase([&](void* t) {
          return ss::cuda::stable_partition(t, bytes, src, d_out.get(), n, d_num.get(), pred, stream, opt);
        });
        break;
      case select_kind::partition_pairs:
      case select_kind::stable_partition_pairs: {
        device_buffer<std::int32_t> keys_out(in.size());
        const bool stable = req.kind == select_kind::stable_partition_pairs;
        s = two_phase([&](void* t) {
          return stable ? ss::cuda::stable_partition_pairs(t, bytes, src, wsrc, keys_out.get(), d_out.get(), n,
                                                           d_num.get(), pred, stream, opt)
                        : ss::cuda::partition_pairs(t, bytes, src, wsrc, keys_out.get(), d_out.get(), n,
                                                    d_num.get(), pred, stream, opt);
        });
        std::vector<std::int32_t> k;
        keys_out.download(k);
        d_out.download(out);
        for (std::size_t i = 0; s && i < k.size(); ++i)
          if (k[i] != out[i]) s = ss::status(ss::errc::invalid_argument, "keys and values parted ways");
        break;
      }
      case select_kind::split:
        s = two_phase([&](void* t) { return ss::cuda::split(t, bytes, src, flags, d_out.get(), n, d_num.get(), stream, opt); });
        break;
      default: {
        device_buffer<unsigned char> d_heads(heads.size()), d_heads_out(heads_out.size());
        d_heads.upload(heads);
        d_heads_out.upload(heads_out);  // poisoned
        s = two_phase([&](void* t) {
          return ss::cuda::split_and_segment(t, bytes, src, flags, ss::head_flags(d_heads.get()), d_out.get(),
                                             d_heads_out.get(), n, stream);
        });
        d_heads_out.download(heads_out);
        break;
      }
    }
    if (!s) return s;
    d_out.download(out);
    std::vector<std::int64_t> h;
    d_num.download(h);
    num = h[0];
    return s;
  }

  template <class A, class Op>
  static void run_segmented(const seg_request& req, const std::vector<A>& in, const segments_fixture& segs,
                            std::vector<A>& out, Op op, A init) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    // `offset` elements of padding before in and out (misaligned pointers).
    const std::size_t pad = static_cast<std::size_t>(req.offset);
    const A pad_value = out.empty() ? A{} : out[0];  // poison
    auto padded = [&](const std::vector<A>& v) {
      std::vector<A> p(pad + v.size(), pad_value);
      std::copy(v.begin(), v.end(), p.begin() + static_cast<std::ptrdiff_t>(pad));
      return p;
    };
    device_buffer<A> d_in(pad + in.size()), d_out(pad + out.size());
    d_in.upload(padded(in));
    d_out.upload(padded(req.in_place ? in : out));  // out arrives poisoned
    A* dst = d_out.get() + pad;
    const A* src = req.in_place ? dst : d_in.get() + pad;
    device_buffer<unsigned char> d_flags(pad + segs.flags.size());  // flags off the 16-byte grid too
    device_buffer<std::uint32_t> d_bits(segs.bits.size());
    device_buffer<std::int64_t> d_offsets(segs.offsets.size());
    {
      std::vector<unsigned char> f(pad, 0);
      f.insert(f.end(), segs.flags.begin(), segs.flags.end());
      d_flags.upload(f);
    }
    d_bits.upload(segs.bits);
    d_offsets.upload(segs.offsets);
    const ss::segmented_options opt{req.direction, {req.strategy, req.policy}};
    const cudaStream_t stream = test_stream();
    auto call = [&](auto segments) {
      std::size_t bytes = 0;
      auto invoke = [&](void* temp) {
        switch (req.kind) {
          case seg_kind::inclusive:
            return ss::cuda::segmented_inclusive_scan(temp, bytes, src, dst, n, segments, op, stream, opt);
          case seg_kind::inclusive_init:
            return ss::cuda::segmented_inclusive_scan_init(temp, bytes, src, dst, n, segments, op, init,
                                                           stream, opt);
          case seg_kind::exclusive:
            return ss::cuda::segmented_exclusive_scan(temp, bytes, src, dst, n, segments, init, op, stream,
                                                      opt);
          case seg_kind::enumerate:
            if constexpr (std::is_arithmetic_v<A>)
              return ss::cuda::enumerate(temp, bytes, src, dst, n, segments, stream, opt);
            else return ss::status(ss::errc::invalid_argument, "enumerate takes arithmetic flags");
          default: return ss::cuda::distribute(temp, bytes, src, dst, n, segments, stream, opt);
        }
      };
      const ss::status query = invoke(nullptr);
      ASSERT_TRUE(query.is_ok()) << query.message();
      device_buffer<unsigned char> temp(bytes + 1);
      const ss::status s = invoke(temp.get() + 1);  // no alignment needed
      ASSERT_TRUE(s.is_ok()) << s.message();
      STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    };
    switch (req.form) {
      case seg_form::flags: call(ss::head_flags(static_cast<const unsigned char*>(d_flags.get() + pad))); break;
      case seg_form::bits: call(ss::head_bits(static_cast<const std::uint32_t*>(d_bits.get()))); break;
      case seg_form::offsets:
        call(ss::segment_offsets{static_cast<const std::int64_t*>(d_offsets.get()),
                                 static_cast<std::int64_t>(segs.offsets.size()) - 1});
        break;
      default: call(ss::no_segments{}); break;
    }
    std::vector<A> all;
    d_out.download(all);
    for (std::size_t i = 0; i < pad; ++i) EXPECT_TRUE(all[i] == pad_value) << "written before 'out', at out[-" << pad - i << "]";
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(pad), all.end(), out.begin());
  }

  template <class A, class Op>
  static void run_segmented_reduce(const reduce_request& req, const std::vector<A>& in, const segments_fixture& segs,
                                   std::vector<A>& out, Op op, A init, std::int64_t& num) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    const cudaStream_t stream = test_stream();
    device_buffer<A> d_in(in.size()), d_out(out.size());
    device_buffer<unsigned char> d_flags(segs.flags.size());
    device_buffer<std::uint32_t> d_bits(segs.bits.size());
    device_buffer<std::int64_t> d_offsets(segs.offsets.size()), d_num(1);
    d_in.upload(in);
    d_out.upload(out);  // poisoned
    d_flags.upload(segs.flags);
    d_bits.upload(segs.bits);
    d_offsets.upload(segs.offsets);
    d_num.upload({-1});
    auto call = [&](auto src, auto segments) {
      if (!req.two_phase) {
        ss::cuda::segmented_reduce(src, d_out.get(), n, segments, init, op, stream, d_num.get());
        return;
      }
      std::size_t bytes = 0;
      const ss::status query =
          ss::cuda::segmented_reduce(nullptr, bytes, src, d_out.get(), n, segments, init, op, stream, d_num.get());
      ASSERT_TRUE(query.is_ok()) << query.message();
      device_buffer<unsigned char> temp(bytes + 1);
      const ss::status s = ss::cuda::segmented_reduce(temp.get() + 1, bytes, src, d_out.get(), n, segments, init, op,
                                                      stream, d_num.get());  // no alignment needed
      ASSERT_TRUE(s.is_ok()) << s.message();
      STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    };
    auto with_input = [&](auto segments) {
      const A* src = d_in.get();
      if (req.wrapped_input) call(wrapped_iterator<const A>(src), segments);
      else call(src, segments);
    };
    switch (req.form) {
      case seg_form::flags: with_input(ss::head_flags(static_cast<const unsigned char*>(d_flags.get()))); break;
      case seg_form::bits: with_input(ss::head_bits(static_cast<const std::uint32_t*>(d_bits.get()))); break;
      default:
        with_input(ss::segment_offsets{static_cast<const std::int64_t*>(d_offsets.get()),
                                       static_cast<std::int64_t>(segs.offsets.size()) - 1});
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    d_out.download(out);
    std::vector<std::int64_t> h;
    d_num.download(h);
    num = h[0];
  }
  static streamscan::status reduce_status(seg_form form, void* temp, std::size_t& bytes, const std::int32_t* in,
                                          std::int32_t* out, std::int64_t n, const void* segments, std::int64_t m) {
    namespace ss = streamscan;
    const cudaStream_t stream = test_stream();
    switch (form) {
      case seg_form::flags:
        return ss::cuda::segmented_reduce(temp, bytes, in, out, n,
                                          ss::head_flags(static_cast<const unsigned char*>(segments)), 0, ss::plus{}, stream);
      case seg_form::bits:
        return ss::cuda::segmented_reduce(temp, bytes, in, out, n,
                                          ss::head_bits(static_cast<const std::uint32_t*>(segments)), 0, ss::plus{}, stream);
      default:
        return ss::cuda::segmented_reduce(temp, bytes, in, out, n,
                                          ss::segment_offsets{static_cast<const std::int64_t*>(segments), m}, 0,
                                          ss::plus{}, stream);
    }
  }
  // Iterators as inputs (int64 outputs); they need no device memory.
  template <class InIt>
  static void scan_of(InIt in, std::int64_t n, bool exclusive, std::vector<std::int64_t>& out) {
    device_buffer<std::int64_t> d_out(static_cast<std::size_t>(n));
    if (exclusive) streamscan::cuda::exclusive_scan(in, d_out.get(), n, std::int64_t{0}, streamscan::plus{}, test_stream());
    else streamscan::cuda::inclusive_scan(in, d_out.get(), n, streamscan::plus{}, test_stream());
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    d_out.download(out);
  }
  template <class InIt>
  static void segmented_scan_of(InIt in, std::int64_t n, const std::vector<unsigned char>& flags,
                                std::vector<std::int64_t>& out) {
    device_buffer<std::int64_t> d_out(static_cast<std::size_t>(n));
    device_buffer<unsigned char> d_flags(flags.size());
    d_flags.upload(flags);
    streamscan::cuda::segmented_inclusive_scan(in, d_out.get(), n,
                                               streamscan::head_flags(static_cast<const unsigned char*>(d_flags.get())),
                                               streamscan::plus{}, test_stream());
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    d_out.download(out);
  }
  template <class InIt>
  static std::int64_t select_below_of(InIt in, std::int64_t n, std::int32_t threshold, std::vector<std::int64_t>& out) {
    device_buffer<std::int64_t> d_out(static_cast<std::size_t>(n)), d_num(1);
    std::size_t bytes = 0;
    EXPECT_TRUE(streamscan::cuda::select_if(nullptr, bytes, in, d_out.get(), n, n, d_num.get(), below{threshold},
                                            test_stream())
                    .is_ok());
    device_buffer<unsigned char> temp(bytes);
    const streamscan::status s = streamscan::cuda::select_if(temp.get(), bytes, in, d_out.get(), n, n, d_num.get(),
                                                             below{threshold}, test_stream());
    EXPECT_TRUE(s.is_ok()) << s.message();
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    d_out.download(out);
    std::vector<std::int64_t> h;
    d_num.download(h);
    return h[0];
  }
  template <class InIt>
  static void reduce_of(InIt in, std::int64_t n, const std::vector<std::int64_t>& offsets, std::vector<std::int64_t>& out) {
    const auto m = static_cast<std::int64_t>(offsets.size()) - 1;
    device_buffer<std::int64_t> d_out(static_cast<std::size_t>(m)), d_offsets(offsets.size());
    d_offsets.upload(offsets);
    streamscan::cuda::segmented_reduce(in, d_out.get(), n,
                                       streamscan::segment_offsets{static_cast<const std::int64_t*>(d_offsets.get()), m},
                                       std::int64_t{0}, streamscan::plus{}, test_stream());
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(test_stream()));
    d_out.download(out);
  }

  // ---- sorts (sort_test_body.hpp) ----
  // The onesweep tile of these keys and values (value_bytes 0: keys only).
  template <class K, int ValueBytes>
  static std::int64_t sort_tile_items() {
    return streamscan::tuning::onesweep_shape_for(static_cast<int>(sizeof(K)), ValueBytes).tile_items();
  }

  template <class K, class Less>
  static streamscan::status run_quicksort(const quicksort_request& req, const std::vector<K>& in, std::vector<K>& out,
                                          Less less) {
    namespace ss = streamscan;
    const auto n = static_cast<std::int64_t>(in.size());
    const cudaStream_t stream = test_stream();
    device_buffer<K> d_in(in.size()), d_out(out.size());
    d_in.upload(in);
    d_out.upload(req.in_place ? in : out);  // out arrives poisoned
    const K* src = req.fault == sort_fault::null_keys_in ? nullptr : req.in_place ? d_out.get() : d_in.get();
    K* dst = req.fault == sort_fault::null_keys_out ? nullptr : d_out.get();
    const std::int64_t n_call = req.fault == sort_fault::negative_n ? -1 : n;
    ss::status s;
    if (req.form == sort_form::convenience) {
      try {
        ss::cuda::quicksort(src, dst, n_call, stream, req.options, less);
      } catch (const ss::error& e) {
        s = e.get_status();
      }
    } else {
      std::size_t bytes = 0;
      s = ss::cuda::quicksort(nullptr, bytes, src, dst, n, stream, req.options, less);
      if (s) {
        device_buffer<unsigned char> temp(bytes + 1);
        std::size_t given = req.fault == sort_fault::temp_too_small ? bytes - 1 : bytes;
        s = ss::cuda::quicksort(temp.get() + 1, given, src, dst, n_call, stream, req.options, less);  // no alignment needed
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      }
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    d_out.download(out);
    return s;
  }

  template <class In, class Out, class Op>
  static void run(const run_request& req, const std::vector<In>& in, std::vector<Out>& out, Op op, Out init) {
    const auto n = static_cast<std::int64_t>(in.size());
    device_buffer<Out> d_out(out.size());
    d_out.upload(out);  // poisoned
    if (req.in_place) {
      if constexpr (std::is_same_v<In, Out>) {
        d_out.upload(in);
        call(req, d_out.get(), d_out.get(), n, op, init);
      }
    } else {
      device_buffer<In> d_in(in.size());
      d_in.upload(in);
      if (req.write_only_output) {
        call(req, static_cast<const In*>(d_in.get()), write_only_iterator<Out>(d_out.get()), n, op, init);
      } else if (req.wrapped_input) {
        call(req, wrapped_iterator<const In>(d_in.get()), d_out.get(), n, op, init);
      } else {
        call(req, static_cast<const In*>(d_in.get()), d_out.get(), n, op, init);
      }
    }
    d_out.download(out);
  }

  // Keys only when V is no_sort_values.
  template <class K, class V>
  static streamscan::status run_sort(const sort_request& req, const std::vector<K>& keys, const std::vector<V>& values,
                                     std::vector<K>& keys_out, std::vector<V>& values_out) {
    namespace ss = streamscan;
    constexpr bool pairs = !std::is_same_v<V, no_sort_values>;
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t n_call = req.fault == sort_fault::negative_n ? -1 : n;
    const cudaStream_t stream = test_stream();
    ss::sort_options query_options = req.options;
    if (req.query_full_bits) query_options.begin_bit = 0, query_options.end_bit = -1;
    device_buffer<K> d_kin(keys.size()), d_kout(keys.size());
    device_buffer<V> d_vin(values.size()), d_vout(values.size());
    d_kin.upload(keys);
    d_vin.upload(values);
    ss::status s;
    if (req.form == sort_form::double_buffer) {
      d_kout.upload(keys_out);  // the alternates arrive poisoned
      d_vout.upload(values_out);
      ss::double_buffer<K> kdb(d_kin.get(), d_kout.get());
      ss::double_buffer<V> vdb(d_vin.get(), d_vout.get());
      auto invoke = [&](void* t, std::size_t& b, const ss::sort_options& o, std::int64_t m) {
        if constexpr (pairs) return ss::cuda::radix_sort_pairs(t, b, kdb, vdb, m, stream, o);
        else return ss::cuda::radix_sort_keys(t, b, kdb, m, stream, o);
      };
      std::size_t bytes = 0;
      s = invoke(nullptr, bytes, query_options, n);
      if (s) {  // else the query's error; current() still comes back
        device_buffer<unsigned char> temp(bytes + 1);
        s = invoke(temp.get() + 1, bytes, req.options, n_call);  // no alignment needed
      }
      STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      STREAMSCAN_TEST_CUDA(cudaGetLastError());
      EXPECT_TRUE(kdb.current() == d_kin.get() || kdb.current() == d_kout.get()) << "keys.current() is neither buffer";
      (kdb.current() == d_kin.get() ? d_kin : d_kout).download(keys_out);
      if constexpr (pairs) {
        EXPECT_EQ(vdb.selector & 1, kdb.selector & 1) << "keys and values ended in different buffers";
        (vdb.current() == d_vin.get() ? d_vin : d_vout).download(values_out);
      }
      return s;
    }
    d_kout.upload(req.in_place ? keys : keys_out);  // out arrives poisoned
    d_vout.upload(req.in_place ? values : values_out);
    // Misaligned inputs: one element into a copy one longer.
    const bool shift = req.misaligned && !req.in_place;
    device_buffer<K> d_kshift(shift ? keys.size() + 1 : 0);
    device_buffer<V> d_vshift(shift && pairs ? values.size() + 1 : 0);
    if (shift) {
      STREAMSCAN_TEST_CUDA(cudaMemcpy(d_kshift.get() + 1, keys.data(), keys.size() * sizeof(K), cudaMemcpyHostToDevice));
      if constexpr (pairs)
        STREAMSCAN_TEST_CUDA(
            cudaMemcpy(d_vshift.get() + 1, values.data(), values.size() * sizeof(V), cudaMemcpyHostToDevice));
      STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());  // pageable copies may return before they land
    }
    const K* kin = req.fault == sort_fault::null_keys_in ? nullptr
                   : req.in_place                        ? d_kout.get()
                   : shift                               ? d_kshift.get() + 1
                                                         : d_kin.get();
    K* kout = req.fault == sort_fault::null_keys_out ? nullptr : d_kout.get();
    const V* vin = req.fault == sort_fault::null_values_in ? nullptr
                   : req.in_place                          ? d_vout.get()
                   : shift && pairs                        ? d_vshift.get() + 1
                                                           : d_vin.get();
    V* vout = req.fault == sort_fault::null_values_out ? nullptr : d_vout.get();
    if (req.form == sort_form::convenience) {
      try {
        if constexpr (pairs) ss::cuda::radix_sort_pairs(kin, kout, vin, vout, n_call, stream, req.options);
        else ss::cuda::radix_sort_keys(kin, kout, n_call, stream, req.options);
      } catch (const ss::error& e) {
        s = e.get_status();
      }
    } else {
      auto invoke = [&](void* t, std::size_t& b, const ss::sort_options& o, std::int64_t m) {
        if constexpr (pairs) return ss::cuda::radix_sort_pairs(t, b, kin, kout, vin, vout, m, stream, o);
        else return ss::cuda::radix_sort_keys(t, b, kin, kout, m, stream, o);
      };
      std::size_t bytes = 0;
      s = invoke(nullptr, bytes, query_options, n);
      if (s) {  // else the query's error; the output still comes back
        device_buffer<unsigned char> temp(bytes + 1);
        std::size_t given = req.fault == sort_fault::temp_too_small ? bytes - 1 : bytes;
        s = invoke(temp.get() + 1, given, req.options, n_call);  // no alignment needed
        STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
      }
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
    d_kout.download(keys_out);
    if constexpr (pairs) d_vout.download(values_out);
    return s;
  }

 private:
  template <class InIt, class OutIt, class Op, class Out>
  static void call(const run_request& req, InIt in, OutIt out, std::int64_t n, Op op, Out init) {
    namespace ss = streamscan;
    const ss::scan_options opt{req.strategy};
    const cudaStream_t stream = test_stream();
    if (!req.two_phase) {
      switch (req.kind) {
        case scan_kind::inclusive: ss::cuda::inclusive_scan(in, out, n, op, stream, opt); break;
        case scan_kind::inclusive_init: ss::cuda::inclusive_scan_init(in, out, n, op, init, stream, opt); break;
        case scan_kind::exclusive: ss::cuda::exclusive_scan(in, out, n, init, op, stream, opt); break;
      }
    } else {
      auto invoke = [&](void* temp, std::size_t& bytes) {
        switch (req.kind) {
          case scan_kind::inclusive: return ss::cuda::inclusive_scan(temp, bytes, in, out, n, op, stream, opt);
          case scan_kind::inclusive_init:
            return ss::cuda::inclusive_scan_init(temp, bytes, in, out, n, op, init, stream, opt);
          default: return ss::cuda::exclusive_scan(temp, bytes, in, out, n, init, op, stream, opt);
        }
      };
      std::size_t bytes = 0;
      const ss::status query = invoke(nullptr, bytes);
      ASSERT_TRUE(query.is_ok()) << query.message();
      ASSERT_GT(bytes, 0u);
      device_buffer<unsigned char> temp(bytes);
      const ss::status s = invoke(temp.get(), bytes);
      ASSERT_TRUE(s.is_ok()) << s.message();
    }
    STREAMSCAN_TEST_CUDA(cudaStreamSynchronize(stream));
    STREAMSCAN_TEST_CUDA(cudaGetLastError());
  }
};

// The same, with compaction, partition and split on the pipelined select
// kernel (sm_90+; other calls and in-place compaction fall back to the
// default): split on the shape with room for the flags, select_if and
// select_flagged on the outbox kernel.
struct cuda_backend_pipelined_select : cuda_backend {
  static constexpr const char* select_policy = "p512x2s12r4";  // the defaults from 2^24 (tuning/select.hpp)
  static constexpr const char* flagged_select_policy = "p512x2s10";
  static constexpr const char* compaction_select_policy = "o512x4s3b128";  // select_if's, from 2^26
  static constexpr const char* flagged_compaction_select_policy = "o512x4s4b64";  // select_flagged's, from 2^26
  static std::vector<streamscan::select_strategy> compaction_strategies() {
    return {streamscan::select_strategy::automatic};
  }
  // int32 input: 512 consumer threads x 2 rows x 4 values.
  static std::int64_t select_chunk() {
    return streamscan::tuning::select_policy<4, streamscan::tuning::default_partition_shape>::tile_items;
  }
};

}  // namespace streamscan_test
