// The bench report (tools/report.cpp): the --compare-defaults column in the
// table and its fields in the JSON.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "report.hpp"

namespace {
using namespace streamscan_tool;

bench_row row(const std::string& algorithm, double ms) {
  bench_row r{"int32", 24, std::int64_t{1} << 24, algorithm, "-", timing::once(ms), 1e8, true, 0, 0};
  return r;
}

std::string table_of(const bench_report& r) {
  std::FILE* f = std::tmpfile();
  print_table(f, r);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

TEST(Report, NoVsDefaultColumnUnlessCompared) {
  bench_report r;
  r.rows = {row("decoupled_lookback", 1.0)};
  EXPECT_EQ(table_of(r).find("vs default"), std::string::npos);
}

TEST(Report, CompareDefaultsShowsTheRatioOrWhyNot) {
  bench_report r;
  r.rows = {row("decoupled_lookback", 1.0), row("decoupled_lookback (defaults)", 1.05), row("reduce_then_scan", 2.0),
            row("scan_then_add", 2.0)};
  r.rows[0].tuning_entry = "t256x12";
  r.rows[0].vs_default = 1.05;
  r.rows[2].tuning_entry = "no entry";
  r.rows[3].tuning_entry = "p8";  // an entry that names the default: nothing to time
  const std::string table = table_of(r);
  EXPECT_NE(table.find("vs default"), std::string::npos) << table;
  EXPECT_NE(table.find("1.050x"), std::string::npos) << table;
  EXPECT_NE(table.find("no entry"), std::string::npos) << table;
  EXPECT_NE(table.find("= default"), std::string::npos) << table;

  const std::string path = testing::TempDir() + "streamscan_report_test.json";
  write_json(path, r);
  std::stringstream json;
  json << std::ifstream(path).rdbuf();
  EXPECT_NE(json.str().find("\"tuning_entry\": \"t256x12\", \"vs_default\": 1.0500"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"tuning_entry\": \"no entry\", \"vs_default\": 0.0000"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
