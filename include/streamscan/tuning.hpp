// streamscan/tuning.hpp - the tuning file: which compiled-in shape each
// algorithm runs with on a given GPU, as found by `streamscan tune`. The
// shapes themselves, their names and defaults are in tuning/. No CUDA.
//
// Location (first that applies):
//   $STREAMSCAN_TUNING_FILE   (empty or "none": no tuning file at all)
//   $XDG_CACHE_HOME/streamscan/tuning-v2.txt
//   $HOME/.cache/streamscan/tuning-v2.txt
//
// Format (text, one record per line, '#' starts a comment):
//   streamscan-tuning 2
//   library 0.1.0
//   entry gpu="NVIDIA GPU NAME" cc=90 algorithm=decoupled_lookback value_bytes=4 op=builtin
//         min_n=16777216 max_n=9223372036854775807 policy=t128x16 default_ms=0.69 tuned_ms=0.66
// (an entry is one line). An entry applies to calls on a GPU of that name and
// compute capability, with that algorithm (tuning/choose.hpp: a scan strategy,
// segmented_scan, select_if, select_flagged, partition or split), value size
// and operator class ("builtin": streamscan::plus/minimum/maximum on an
// arithmetic type; "custom": anything else; "any" for the select calls, which
// take no operator), and min_n <= n < max_n.
//
// Trust: the file is checked whole when first read. A file written by another
// library version, of another format version, or with any malformed line,
// unknown policy name or overlapping ranges is reported once on stderr and
// ignored entirely: the built-in defaults apply. `load_report()` returns the
// same message for programs that want to show it; `reload()` reads it again.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "tuning/choose.hpp"
#include "operators.hpp"
#include "scan_options.hpp"
#include "status.hpp"

namespace streamscan::tuning {

inline constexpr int format_version = 2;

struct entry {
  std::string gpu;           // cudaDeviceProp::name
  int cc = 0;                // compute capability, major * 10 + minor
  tuning::algorithm algorithm = tuning::algorithm::decoupled_lookback;
  int value_bytes = 0;       // sizeof the accumulator (scans) or the value (select calls)
  std::string op_class;      // "builtin", "custom" or "any"
  std::int64_t min_n = 0;    // inclusive
  std::int64_t max_n = 0;    // exclusive
  std::string policy;        // a candidate name (tuning/choose.hpp)
  double default_ms = 0;     // what the tuner measured, for the record
  double tuned_ms = 0;
};

struct table {
  std::string library = STREAMSCAN_VERSION_STRING;
  std::vector<entry> entries;
};

// The operator class of a call: builtin operators on arithmetic types are one
// class (cheap, known), everything else another; calls without an operator
// are "any".
template <class A, class Op>
constexpr const char* op_class() {
  constexpr bool builtin = std::is_same_v<Op, plus> || std::is_same_v<Op, maximum> || std::is_same_v<Op, minimum>;
  return builtin && std::is_arithmetic_v<A> ? "builtin" : "custom";
}
inline constexpr const char* no_operator = "any";

// The entry for one call, or nullptr.
inline const entry* find(const table& t, const std::string& gpu, int cc, tuning::algorithm a, int value_bytes,
                         const char* op, std::int64_t n) {
  for (const entry& e : t.entries)
    if (e.algorithm == a && e.value_bytes == value_bytes && e.cc == cc && n >= e.min_n && n < e.max_n &&
        e.op_class == op && e.gpu == gpu)
      return &e;
  return nullptr;
}

namespace detail {

inline status bad(const std::string& origin, int line, const std::string& what) {
  return status(errc::invalid_argument, origin + ":" + std::to_string(line) + ": " + what);
}

inline bool parse_int(const std::string& text, std::int64_t& v) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  v = x;
  return true;
}

inline bool parse_double(const std::string& text, double& v) {
  if (text.empty()) return false;
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return *end == '\0' && v >= 0;
}

// Splits `key=value key="value with spaces"` into a map; false on bad syntax
// or a repeated key.
inline bool split_fields(const std::string& text, std::map<std::string, std::string>& out, std::string& why) {
  std::size_t i = 0;
  while (true) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size()) return true;
    const std::size_t eq = text.find('=', i);
    if (eq == std::string::npos || eq == i) {
      why = "expected key=value at '" + text.substr(i) + "'";
      return false;
    }
    const std::string key = text.substr(i, eq - i);
    std::string value;
    i = eq + 1;
    if (i < text.size() && text[i] == '"') {
      const std::size_t close = text.find('"', i + 1);
      if (close == std::string::npos) {
        why = "unterminated quote in '" + key + "'";
        return false;
      }
      value = text.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      const std::size_t end = text.find_first_of(" \t", i);
      value = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? text.size() : end;
    }
    if (!out.emplace(key, value).second) {
      why = "key '" + key + "' given twice";
      return false;
    }
  }
}

inline status parse_entry(const std::string& origin, int line, const std::string& fields, entry& e) {
  std::map<std::string, std::string> f;
  std::string why;
  if (!split_fields(fields, f, why)) return bad(origin, line, why);
  static const char* const keys[] = {"gpu", "cc", "algorithm", "value_bytes", "op", "min_n", "max_n",
                                     "policy", "default_ms", "tuned_ms"};
  for (const char* k : keys)
    if (f.find(k) == f.end()) return bad(origin, line, std::string("entry lacks '") + k + "'");
  if (f.size() != sizeof(keys) / sizeof(keys[0])) {
    for (const auto& kv : f) {
      bool known = false;
      for (const char* k : keys) known = known || kv.first == k;
      if (!known) return bad(origin, line, "unknown key '" + kv.first + "'");
    }
  }
  std::int64_t cc = 0, vb = 0;
  e.gpu = f["gpu"];
  if (e.gpu.empty()) return bad(origin, line, "empty gpu name");
  if (!parse_int(f["cc"], cc) || cc < 10 || cc > 1000) return bad(origin, line, "bad cc '" + f["cc"] + "'");
  e.cc = static_cast<int>(cc);
  if (!tuning::algorithm_from_string(f["algorithm"].c_str(), e.algorithm))
    return bad(origin, line, "unknown algorithm '" + f["algorithm"] + "'");
  if (!parse_int(f["value_bytes"], vb) || vb < 1 || vb > 4096)
    return bad(origin, line, "bad value_bytes '" + f["value_bytes"] + "'");
  e.value_bytes = static_cast<int>(vb);
  e.op_class = f["op"];
  if (tuning::has_operator(e.algorithm) ? e.op_class != "builtin" && e.op_class != "custom"
                                        : e.op_class != no_operator)
    return bad(origin, line,
               std::string("op must be ") + (tuning::has_operator(e.algorithm) ? "builtin or custom" : no_operator) +
                   " for " + tuning::to_string(e.algorithm) + ", not '" + e.op_class + "'");
  if (!parse_int(f["min_n"], e.min_n) || !parse_int(f["max_n"], e.max_n) || e.min_n < 0 || e.max_n <= e.min_n)
    return bad(origin, line, "bad size range min_n=" + f["min_n"] + " max_n=" + f["max_n"]);
  e.policy = f["policy"];
  if (tuning::candidate_index(e.algorithm, static_cast<std::size_t>(e.value_bytes), e.policy) < 0)
    return bad(origin, line,
               "policy '" + e.policy + "' is not a candidate of " + tuning::to_string(e.algorithm) + " for " +
                   std::to_string(e.value_bytes) + "-byte values in this library version");
  if (!parse_double(f["default_ms"], e.default_ms) || !parse_double(f["tuned_ms"], e.tuned_ms))
    return bad(origin, line, "bad default_ms or tuned_ms");
  return status::ok();
}

inline bool same_key(const entry& a, const entry& b) {
  return a.gpu == b.gpu && a.cc == b.cc && a.algorithm == b.algorithm && a.value_bytes == b.value_bytes &&
         a.op_class == b.op_class;
}

}  // namespace detail

// Reads a whole tuning file; on any problem returns a status whose message
// says where and what (origin:line: reason) and leaves `out` empty.
inline status parse(std::istream& in, const std::string& origin, table& out) {
  out = table{};
  table t;
  t.library.clear();
  std::string raw;
  int line = 0;
  bool header = false;
  while (std::getline(in, raw)) {
    ++line;
    const std::size_t hash = raw.find('#');
    std::string text = raw.substr(0, hash);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
    std::size_t start = text.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    text = text.substr(start);
    const std::size_t space = text.find(' ');
    const std::string word = text.substr(0, space);
    const std::string rest = space == std::string::npos ? std::string() : text.substr(space + 1);
    if (!header) {
      if (word != "streamscan-tuning")
        return detail::bad(origin, line, "not a streamscan tuning file (no 'streamscan-tuning' header)");
      if (rest != std::to_string(format_version))
        return detail::bad(origin, line,
                           "format version '" + rest + "', this library reads " + std::to_string(format_version));
      header = true;
    } else if (word == "library") {
      if (!t.library.empty()) return detail::bad(origin, line, "'library' given twice");
      t.library = rest;
      if (t.library != STREAMSCAN_VERSION_STRING)
        return detail::bad(origin, line,
                           "stale: written by streamscan " + t.library + ", this is " STREAMSCAN_VERSION_STRING);
    } else if (word == "entry") {
      if (t.library.empty()) return detail::bad(origin, line, "entry before the 'library' line");
      entry e;
      if (status s = detail::parse_entry(origin, line, rest, e); !s) return s;
      for (const entry& o : t.entries)
        if (detail::same_key(o, e) && e.min_n < o.max_n && o.min_n < e.max_n)
          return detail::bad(origin, line, "size range overlaps an earlier entry for the same GPU and key");
      t.entries.push_back(e);
    } else {
      return detail::bad(origin, line, "unknown record '" + word + "'");
    }
  }
  if (!header) return detail::bad(origin, line, "empty file (no 'streamscan-tuning' header)");
  if (t.library.empty()) return detail::bad(origin, line, "no 'library' line");
  out = std::move(t);
  return status::ok();
}

inline void write(std::ostream& os, const table& t) {
  os << "# streamscan tuning file, written by `streamscan tune`. Format: streamscan/tuning.hpp\n";
  os << "streamscan-tuning " << format_version << "\n";
  os << "library " << t.library << "\n";
  for (const entry& e : t.entries) {
    char ms[96];
    std::snprintf(ms, sizeof ms, "default_ms=%.6g tuned_ms=%.6g", e.default_ms, e.tuned_ms);
    os << "entry gpu=\"" << e.gpu << "\" cc=" << e.cc << " algorithm=" << tuning::to_string(e.algorithm)
       << " value_bytes=" << e.value_bytes << " op=" << e.op_class << " min_n=" << e.min_n << " max_n=" << e.max_n
       << " policy=" << e.policy << " " << ms << "\n";
  }
}

// Where the tuning file lives for this process; empty when disabled.
inline std::string default_path() {
  if (const char* p = std::getenv("STREAMSCAN_TUNING_FILE")) {
    const std::string s = p;
    return s == "none" ? std::string() : s;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
    return std::string(x) + "/streamscan/tuning-v2.txt";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.cache/streamscan/tuning-v2.txt";
  return {};
}

struct load_result {
  enum state_t { absent, loaded, ignored } state = absent;
  std::string path;
  std::string message;  // why it was ignored; empty otherwise
  table contents;       // empty unless loaded
};

// Reads the file at `path`. A missing file is `absent` (not an error);
// anything wrong with an existing one is `ignored`, with the reason.
inline load_result load(const std::string& path) {
  load_result r;
  r.path = path;
  if (path.empty()) return r;
  std::ifstream in(path);
  if (!in) return r;
  if (status s = parse(in, path, r.contents); !s) {
    r.state = load_result::ignored;
    r.message = s.message();
    return r;
  }
  r.state = load_result::loaded;
  return r;
}

namespace detail {
inline std::mutex& active_mutex() {
  static std::mutex m;
  return m;
}
inline std::shared_ptr<const load_result>& active_slot() {
  static std::shared_ptr<const load_result> slot;
  return slot;
}
inline std::shared_ptr<const load_result> load_and_report() {
  auto r = std::make_shared<load_result>(load(default_path()));
  if (r->state == load_result::ignored)
    std::fprintf(stderr,
                 "streamscan: ignoring tuning file: %s; the built-in defaults apply (run `streamscan tune` to "
                 "rewrite it)\n",
                 r->message.c_str());
  return r;
}
}  // namespace detail

// The process's tuning file, read on first use by a GPU call (thread-safe).
// An ignored file is reported once on stderr.
inline std::shared_ptr<const load_result> active() {
  std::lock_guard<std::mutex> lock(detail::active_mutex());
  if (!detail::active_slot()) detail::active_slot() = detail::load_and_report();
  return detail::active_slot();
}

// Reads the file again (for example after `streamscan tune` ran, or after
// STREAMSCAN_TUNING_FILE changed); later calls use what it finds.
inline std::shared_ptr<const load_result> reload() {
  std::lock_guard<std::mutex> lock(detail::active_mutex());
  detail::active_slot() = detail::load_and_report();
  return detail::active_slot();
}

// Why the active file was ignored; empty when it was absent or loaded.
inline std::string load_report() { return active()->message; }

}  // namespace streamscan::tuning
