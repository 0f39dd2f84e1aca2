// streamscan/tuning/choose.hpp - the one place that answers, for every
// algorithm with shapes: which candidates it has for a value size, what each
// is called, how many items its tile holds, and which one runs by default
// for a call (value size, n, compute capability). The dispatchers, `streamscan
// tune`, `describe_scan`, the bench and the tuning file all ask here. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "../scan_options.hpp"
#include "scan.hpp"
#include "segmented_scan.hpp"
#include "select.hpp"
#include "shape.hpp"

namespace streamscan::tuning {

// The algorithms with shapes; each is one key of the tuning file. The four
// scan strategies keep their names; the select calls that share a kernel
// family differ in their defaults: compaction by a predicate (select_if) or
// by flags (select_flagged), and calls that write every element by a
// predicate (partition, stable_partition) or by flags (split).
enum class algorithm {
  decoupled_lookback,
  chained,
  reduce_then_scan,
  scan_then_add,
  segmented_scan,
  select_if,
  select_flagged,
  partition,
  split,
};
inline constexpr algorithm all_algorithms[] = {algorithm::decoupled_lookback, algorithm::chained,
                                               algorithm::reduce_then_scan,   algorithm::scan_then_add,
                                               algorithm::segmented_scan,     algorithm::select_if,
                                               algorithm::select_flagged,     algorithm::partition,
                                               algorithm::split};

inline const char* to_string(algorithm a) noexcept {
  switch (a) {
    case algorithm::decoupled_lookback: return "decoupled_lookback";
    case algorithm::chained: return "chained";
    case algorithm::reduce_then_scan: return "reduce_then_scan";
    case algorithm::scan_then_add: return "scan_then_add";
    case algorithm::segmented_scan: return "segmented_scan";
    case algorithm::select_if: return "select_if";
    case algorithm::select_flagged: return "select_flagged";
    case algorithm::partition: return "partition";
    case algorithm::split: return "split";
  }
  return "unknown";
}

inline bool algorithm_from_string(const char* name, algorithm& out) noexcept {
  for (const algorithm a : all_algorithms)
    if (name != nullptr && std::strcmp(name, to_string(a)) == 0) {
      out = a;
      return true;
    }
  return false;
}

// The algorithm of a scan strategy (never automatic: resolve it first).
constexpr algorithm algorithm_of(scan_strategy s) {
  return s == scan_strategy::chained            ? algorithm::chained
         : s == scan_strategy::reduce_then_scan ? algorithm::reduce_then_scan
         : s == scan_strategy::scan_then_add    ? algorithm::scan_then_add
                                                : algorithm::decoupled_lookback;
}

// Whether the algorithm's calls take an operator (the tuning file keys them
// by operator class as well); the select calls take a predicate or flags.
constexpr bool has_operator(algorithm a) {
  return a == algorithm::decoupled_lookback || a == algorithm::chained || a == algorithm::reduce_then_scan ||
         a == algorithm::scan_then_add || a == algorithm::segmented_scan;
}

// The candidates of an algorithm for values of `value_bytes`; none (count 0)
// where it runs one fixed shape.
struct candidate_list {
  const shape* shapes = nullptr;
  int count = 0;
};

constexpr candidate_list candidates_for(algorithm a, std::size_t value_bytes) {
  switch (a) {
    case algorithm::decoupled_lookback:
      if (vector_shapes_tunable(value_bytes)) return {decoupled_shapes, decoupled_shape_count};
      return {};
    case algorithm::chained: return {chained_shapes, chained_shape_count};
    case algorithm::reduce_then_scan:
    case algorithm::scan_then_add: return {multi_pass_shapes, multi_pass_shape_count};
    case algorithm::segmented_scan: return {segmented_shapes, segmented_shape_count};
    case algorithm::select_if:
    case algorithm::select_flagged:
    case algorithm::partition:
    case algorithm::split: return {select_shapes, select_shape_count};
  }
  return {};
}

// The built-in default for a call of n values of `value_bytes` on a GPU of
// compute capability `cc` (major * 10 + minor; 0 where the call cannot use
// what a newer GPU has, e.g. a select source the pipeline cannot stage).
// Pipelined shapes need sm_90's bulk copy engine; older GPUs get the
// one-tile shapes explicitly.
constexpr int default_for(algorithm a, std::size_t value_bytes, std::int64_t n, int cc) {
  const bool copy_engine = cc >= 90;
  switch (a) {
    case algorithm::decoupled_lookback:
      return copy_engine && vector_shapes_tunable(value_bytes) && n >= pipelined_default_from(value_bytes)
                 ? pipelined_decoupled_shape
                 : default_vector_shape_for(value_bytes, n);
    case algorithm::chained: return cc >= 90 ? default_cluster_chained_shape : default_chained_shape;
    case algorithm::reduce_then_scan:
    case algorithm::scan_then_add: return 0;
    case algorithm::segmented_scan:
      return copy_engine && value_bytes == 4 && n >= pipelined_segmented_from ? pipelined_segmented_shape
                                                                              : default_segmented_shape;
    case algorithm::select_if:
    case algorithm::select_flagged:
    case algorithm::partition:
    case algorithm::split:
      if (!copy_engine) return default_select_shape;
      return default_select_shape_for(a == algorithm::partition || a == algorithm::split,
                                      a == algorithm::select_flagged || a == algorithm::split, value_bytes, n);
  }
  return 0;
}

// The default named for a value size alone (what `tune --list` marks): the
// default for large n on the newest GPU.
constexpr int listed_default(algorithm a, std::size_t value_bytes) { return default_for(a, value_bytes, INT64_MAX, 90); }

inline std::string candidate_name(algorithm a, std::size_t value_bytes, int index) {
  const candidate_list c = candidates_for(a, value_bytes);
  return index >= 0 && index < c.count ? name(c.shapes[index]) : std::string();
}

// Index of the candidate of that name; -1 when there is none.
inline int candidate_index(algorithm a, std::size_t value_bytes, const std::string& wanted) {
  const candidate_list c = candidates_for(a, value_bytes);
  for (int i = 0; i < c.count; ++i)
    if (name(c.shapes[i]) == wanted) return i;
  return -1;
}

// "a, b, c": the candidates' names, for error messages.
inline std::string candidate_names(algorithm a, std::size_t value_bytes) {
  const candidate_list c = candidates_for(a, value_bytes);
  std::string names;
  for (int i = 0; i < c.count; ++i) names += (i ? ", " : "") + name(c.shapes[i]);
  return names;
}

// Items per tile of candidate `index` (tests and `verify` aim at its edges).
// Scans: the vectorised kernel's where the decoupled look-back has one for
// this value size, the 3D scan's where it applies, else the matrix or
// multi-pass tile.
constexpr std::int64_t candidate_tile_items(algorithm a, std::size_t value_bytes, int index) {
  const bool vector_kernel = value_bytes <= 16 && 16 % value_bytes == 0;
  switch (a) {
    case algorithm::decoupled_lookback:
      if (vector_shapes_tunable(value_bytes))
        return std::int64_t{decoupled_shapes[index].threads} * decoupled_shapes[index].vectors *
               static_cast<int>(16 / value_bytes);
      return vector_kernel ? std::int64_t{fixed_vector_threads} * fixed_vector_values_per_thread
                           : std::int64_t{chained_shapes[default_matrix_shape(false)].threads} *
                                 items_per_thread_for(value_bytes);
    case algorithm::chained:
      if (index >= matrix_shape_count && stream_scan_applies(value_bytes))
        return stream_tile_items(chained_shapes[index], value_bytes);
      return std::int64_t{chained_shapes[index < matrix_shape_count ? index : default_matrix_shape(true)].threads} *
             items_per_thread_for(value_bytes);
    case algorithm::reduce_then_scan:
    case algorithm::scan_then_add: return std::int64_t{multi_pass_threads} * items_per_thread_for(value_bytes);
    case algorithm::segmented_scan: return segmented_tile_items(index, value_bytes);
    default: {
      const int width = vector_kernel ? static_cast<int>(16 / value_bytes) : 1;
      return std::int64_t{select_shapes[index].threads} * vectors_for(select_shapes[index], width) * width;
    }
  }
}

}  // namespace streamscan::tuning
