#include "report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>

#include <streamscan/config.hpp>

namespace streamscan_tool {

namespace {
bool is_memcpy(const std::string& a) { return a == "memcpy" || a == "std::memcpy"; }
// The GPU peers: CUB, cuSPARSE for SpMV.
bool is_gpu_peer(const std::string& a) { return a.rfind("cub::", 0) == 0 || a.rfind("cusparse::", 0) == 0; }
// The peer each row is compared with: a GPU peer, or the sequential scan on the CPU.
bool is_peer(const std::string& a) { return is_gpu_peer(a) || a == "std::inclusive_scan"; }

std::string json_escape(const std::string& s) {
  std::string o;
  for (const char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o;
}
}  // namespace

void finish_ratios(bench_report& r) {
  for (auto& row : r.rows) {
    const bench_row* peer = nullptr;
    for (const auto& base : r.rows) {
      if (base.type != row.type || base.log2n != row.log2n || base.ms() <= 0) continue;
      // memcpy of the same bytes: scale its time when the row moves a different amount.
      if (is_memcpy(base.algorithm)) row.pct_memcpy = 100.0 * (base.ms() * row.bytes / base.bytes) / row.ms();
      if (is_peer(base.algorithm) && (peer == nullptr || base.ms() < peer->ms())) peer = &base;
    }
    if (peer != nullptr) {
      row.speedup = peer->ms() / row.ms();
      row.baseline = peer->algorithm;
    }
  }
}

bool all_verified(const bench_report& r) {
  for (const auto& row : r.rows)
    if (!row.verified) return false;
  return true;
}

void print_table(std::FILE* to, const bench_report& r) {
  const bool cpu = r.backend == "cpu";
  // Columns as wide as their longest entry (group names such as "uint32+uint32/and3" run long).
  int type_w = 6, algorithm_w = 24, policy_w = 26;
  bool compared = false;  // a "vs default" column, for --compare-defaults
  for (const auto& row : r.rows) {
    compared = compared || !row.tuning_entry.empty();
    type_w = std::max(type_w, static_cast<int>(row.type.size()));
    algorithm_w = std::max(algorithm_w, static_cast<int>(row.algorithm.size()));
    policy_w = std::max(policy_w, static_cast<int>(row.policy.size()));
  }
  std::fprintf(to, "%-*s %-5s %-*s %-*s %10s %7s %9s %8s %8s %7s %s%s\n", type_w, "type", "n", algorithm_w,
               "algorithm", policy_w, "policy", "median ms", "noise", "Gelem/s", "GB/s", "%memcpy",
               cpu ? "vs seq" : "vs CUB", compared ? "vs default " : "", "verified");
  std::string last;
  for (const auto& row : r.rows) {
    const std::string group = row.type + std::to_string(row.log2n);
    if (!last.empty() && group != last) std::fprintf(to, "\n");
    last = group;
    char n[16], noise[16] = "-", pct[16] = "-", vs[16] = "-";
    std::snprintf(n, sizeof n, "2^%d", row.log2n);
    if (row.time.samples > 1) std::snprintf(noise, sizeof noise, "%.1f%%", row.time.noise_pct);
    if (row.pct_memcpy > 0) std::snprintf(pct, sizeof pct, "%.1f%%", row.pct_memcpy);
    if (row.speedup > 0) std::snprintf(vs, sizeof vs, "%.2fx", row.speedup);
    char vs_default[24] = "";
    if (compared) {
      char ratio[16];
      std::snprintf(ratio, sizeof ratio, "%.3fx", row.vs_default);
      const std::string cell = row.vs_default > 0             ? ratio
                               : row.tuning_entry.empty()     ? "-"
                               : row.tuning_entry == "no entry" ? "no entry"
                                                                : "= default";
      std::snprintf(vs_default, sizeof vs_default, "%-10s ", cell.c_str());
    }
    const double s = row.ms() / 1e3;
    std::fprintf(to, "%-*s %-5s %-*s %-*s %10.4f %7s %9.2f %8.1f %8s %7s %s%s\n", type_w, row.type.c_str(), n,
                 algorithm_w, row.algorithm.c_str(), policy_w, row.policy.c_str(), row.ms(), noise, row.n / s / 1e9,
                 row.bytes / s / 1e9, pct, vs, vs_default, row.verified ? "ok" : "WRONG");
  }
  for (const auto& s : r.skipped) std::fprintf(to, "skipped: %s\n", s.c_str());
  std::fprintf(to,
               "GB/s counts the bytes a call must move (a scan: read n + write n values); %%memcpy compares\n"
               "with a %s copy of the same bytes; median of %d timed runs after a warm-up;\n"
               "noise: the runs' standard deviation in %% of their mean;\n"
               "%s;\nverified: the output equals the reference (ok) or not (WRONG).\n",
               cpu ? "std::memcpy" : "device-to-device", r.repeat,
               cpu ? "vs seq: speedup over std::inclusive_scan"
                   : "vs CUB: speedup over the group's CUB call (the faster of two)");
  if (compared)
    std::fprintf(to, "vs default: the built-in default's median / the tuned policy's, timed interleaved (the\n"
                     "default's own row is 'STRATEGY (defaults)'); no entry: the tuning file has none for the row;\n"
                     "= default: its entry names the default.\n");
  for (const auto& line : r.notes) std::fprintf(to, "%s\n", line.c_str());
}

std::string json_number(double v, int decimals) {
  if (!std::isfinite(v)) return "null";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

std::string utc_now() {
  char date[32] = "";
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

void write_json(const std::string& path, const bench_report& r) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write --json file '" + path + "'");
  std::fprintf(f,
               "{\n  \"tool\": \"streamscan bench\",\n  \"schema\": %d,\n  \"version\": \"%s\",\n"
               "  \"backend\": \"%s\",\n  \"device\": \"%s\",\n  \"note\": \"%s\",\n  \"date\": \"%s\",\n"
               "  \"command\": \"%s\",\n  \"repeats\": %d,\n  \"skipped\": [",
               bench_json_schema, STREAMSCAN_VERSION_STRING, r.backend.c_str(), json_escape(r.device).c_str(),
               json_escape(r.note).c_str(), utc_now().c_str(), json_escape(r.command).c_str(), r.repeat);
  for (std::size_t i = 0; i < r.skipped.size(); ++i)
    std::fprintf(f, "%s\"%s\"", i ? ", " : "", json_escape(r.skipped[i]).c_str());
  std::fprintf(f, "],\n  \"notes\": [");
  for (std::size_t i = 0; i < r.notes.size(); ++i)
    std::fprintf(f, "%s\n    \"%s\"", i ? "," : "", json_escape(r.notes[i]).c_str());
  std::fprintf(f, "%s],\n  \"results\": [\n", r.notes.empty() ? "" : "\n  ");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const timing& t = row.time;
    const double s = row.ms() / 1e3;
    // speedup_vs_cub: the speedup again where the baseline is CUB's or cuSPARSE's (older readers).
    const bool gpu_peer = is_gpu_peer(row.baseline);
    std::fprintf(f,
                 "    {\"type\": \"%s\", \"log2n\": %d, \"n\": %lld, \"algorithm\": \"%s\", \"policy\": \"%s\", "
                 "\"median_ms\": %s, \"min_ms\": %s, \"max_ms\": %s, \"samples\": %d, \"noise_pct\": %s, "
                 "\"bytes\": %s, \"gelem_per_s\": %s, \"gb_per_s\": %s, \"pct_of_memcpy\": %s, "
                 "\"speedup\": %s, \"baseline\": \"%s\", \"speedup_vs_cub\": %s, \"tuning_entry\": \"%s\", "
                 "\"vs_default\": %s, \"verified\": %s}%s\n",
                 json_escape(row.type).c_str(), row.log2n, static_cast<long long>(row.n),
                 json_escape(row.algorithm).c_str(), json_escape(row.policy).c_str(), json_number(t.median_ms, 6).c_str(),
                 json_number(t.min_ms, 6).c_str(), json_number(t.max_ms, 6).c_str(), t.samples,
                 json_number(t.noise_pct, 2).c_str(), json_number(row.bytes, 0).c_str(),
                 json_number(row.n / s / 1e9, 3).c_str(), json_number(row.bytes / s / 1e9, 2).c_str(),
                 json_number(row.pct_memcpy, 2).c_str(), json_number(row.speedup, 4).c_str(),
                 json_escape(row.baseline).c_str(), json_number(gpu_peer ? row.speedup : 0.0, 4).c_str(),
                 json_escape(row.tuning_entry).c_str(), json_number(row.vs_default, 4).c_str(),
                 row.verified ? "true" : "false", i + 1 < r.rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write --json file '" + path + "'");
}

progress::progress(progress_mode mode, int total)
    : on_(mode == progress_mode::on || (mode == progress_mode::automatic && isatty(2))), total_(total) {}

progress::~progress() { done(); }

void progress::step(const std::string& what) {
  ++count_;
  if (!on_) return;
  char head[32];
  std::snprintf(head, sizeof head, "[%3d/%d] ", count_, total_);
  const std::string line = head + what;
  std::fprintf(stderr, "\r%s%*s", line.c_str(), static_cast<int>(width_ > line.size() ? width_ - line.size() : 0), "");
  width_ = line.size();
  std::fflush(stderr);
}

void progress::done() {
  if (on_ && width_ > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  width_ = 0;
}

}  // namespace streamscan_tool
