// The streamscan command's argument parsing (tools/cli.cpp): defaults, every
// option, and bad input rejected with a message naming the argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli.hpp"

namespace {
using namespace streamscan_tool;

command parse(std::vector<const char*> args) {
  args.insert(args.begin(), "streamscan");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

// The message of the usage_error parse throws, or "" when it does not.
std::string error_of(std::vector<const char*> args) {
  try {
    parse(std::move(args));
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(Cli, NoArgumentsIsBenchWithDefaults) {
  const command c = parse({});
  EXPECT_EQ(c.kind, subcommand::bench);
  EXPECT_EQ(c.bench.types, (std::vector<std::string>{"int32", "float", "uint64", "vec4i"}));
  EXPECT_EQ(c.bench.inputs, std::vector<std::string>{"cold"});
  // Every bench algorithm but the opt-in one.
  std::vector<std::string> defaults = bench_algorithms();
  defaults.erase(std::find(defaults.begin(), defaults.end(), opt_in_transform_input));
  EXPECT_EQ(c.bench.algorithms, defaults);
  EXPECT_FALSE(wants(c.bench, opt_in_transform_input));
  EXPECT_TRUE(wants(parse({"bench", "--algorithms", "cub,transform_input"}).bench, opt_in_transform_input));
  EXPECT_EQ(c.bench.log2_sizes, (std::vector<int>{16, 18, 20, 22, 24, 26, 28, 30}));
  EXPECT_FALSE(c.bench.sizes_given);
  EXPECT_FALSE(c.bench.algorithms_given);
  EXPECT_EQ(c.bench.repeat, 20);
  EXPECT_TRUE(c.bench.json.empty());
}

TEST(Cli, BenchOptions) {
  const command c = parse({"bench", "--types", "uint64,int32", "--sizes", "20,2^24,28", "--algorithms",
                           "cub,chained", "--repeat", "7", "--json", "out.json", "--progress", "off", "--cpu",
                           "--compare-defaults"});
  EXPECT_EQ(c.kind, subcommand::bench);
  EXPECT_EQ(c.bench.types, (std::vector<std::string>{"uint64", "int32"}));
  EXPECT_EQ(c.bench.log2_sizes, (std::vector<int>{20, 24, 28}));
  EXPECT_TRUE(c.bench.sizes_given);
  EXPECT_EQ(c.bench.algorithms, (std::vector<std::string>{"cub", "chained"}));
  EXPECT_TRUE(c.bench.algorithms_given);
  EXPECT_EQ(c.bench.repeat, 7);
  EXPECT_EQ(c.bench.json, "out.json");
  EXPECT_EQ(c.bench.progress, progress_mode::off);
  EXPECT_TRUE(c.bench.cpu);
  EXPECT_TRUE(c.bench.compare_defaults);
  EXPECT_TRUE(c.bench.repeat_given);
  EXPECT_FALSE(parse({}).bench.compare_defaults);
  EXPECT_EQ(parse({}).bench.primitives, (std::vector<std::string>{"scan"}));
  const command seg = parse({"--primitives", "segmented,scan", "--segment-lengths", "8,1024"});
  EXPECT_EQ(seg.bench.primitives, (std::vector<std::string>{"segmented", "scan"}));
  EXPECT_EQ(seg.bench.segment_lengths, (std::vector<std::int64_t>{8, 1024}));
}

TEST(Cli, SortBenchOptions) {
  const command d = parse({"--primitives", "sort"});
  EXPECT_EQ(d.bench.primitives, (std::vector<std::string>{"sort"}));
  EXPECT_EQ(d.bench.key_types, (std::vector<std::string>{"uint32", "uint64", "float", "pairs"}));
  EXPECT_EQ(d.bench.key_types, sort_key_types());
  EXPECT_EQ(d.bench.distributions, (std::vector<std::string>{"uniform", "and2", "and3", "and4", "sorted"}));
  EXPECT_EQ(d.bench.distributions, sort_distributions());
  EXPECT_FALSE(d.bench.seed_table);
  EXPECT_EQ(d.bench.log2_sizes, (std::vector<int>{16, 18, 20, 22, 24, 26, 28, 30}));
  // The sort's algorithms (then SpMV's and the tridiagonal solver's) are bench algorithms too, after the
  // scan's and the opt-in transform_input.
  for (const char* a : {"onesweep", "double_buffer", "split", "quicksort"}) EXPECT_TRUE(wants(d.bench, a)) << a;
  // SpMV's 6: cusparse, prepared and its four strategies; "automatic" is shared.
  EXPECT_EQ(scan_bench_algorithms().size() + 1 + 4 + 6 + 7, bench_algorithms().size());
  EXPECT_TRUE(wants(parse({"bench", "--primitives", "spmv", "--algorithms", "prepared"}).bench, "prepared"));
  const command t = parse({"bench", "--primitives", "tridiagonal", "--algorithms", "cusparse,hybrid,partitioned"});
  EXPECT_EQ(t.bench.primitives, (std::vector<std::string>{"tridiagonal"}));
  EXPECT_TRUE(wants(t.bench, "partitioned"));

  const command c = parse({"bench", "--seed-table", "--key-types", "pairs,uint32", "--distributions", "and4,sorted",
                           "--algorithms", "cub,split,quicksort", "--primitives", "scan,sort"});
  EXPECT_TRUE(c.bench.seed_table);  // given before --primitives: checked after the whole line
  EXPECT_EQ(c.bench.key_types, (std::vector<std::string>{"pairs", "uint32"}));
  EXPECT_EQ(c.bench.distributions, (std::vector<std::string>{"and4", "sorted"}));
  EXPECT_TRUE(c.bench.algorithms_given);
  EXPECT_TRUE(wants(c.bench, "split"));
  EXPECT_FALSE(wants(c.bench, "onesweep"));
  EXPECT_EQ(parse({"--primitives", "sort", "--key-types", "all"}).bench.key_types, sort_key_types());
  EXPECT_EQ(parse({"--primitives", "sort", "--distributions", "all"}).bench.distributions, sort_distributions());
}

TEST(Cli, SpmvBenchOptions) {
  const command c = parse({"bench", "--primitives", "spmv", "--algorithms", "cusparse,merge_path"});
  EXPECT_EQ(c.bench.primitives, (std::vector<std::string>{"spmv"}));
  EXPECT_TRUE(wants(c.bench, "merge_path"));
  EXPECT_FALSE(wants(c.bench, "segmented_scan"));
  EXPECT_FALSE(wants(c.bench, "nonzero_split"));
  EXPECT_TRUE(wants(parse({"bench", "--primitives", "spmv", "--algorithms", "nonzero_split"}).bench, "nonzero_split"));
  EXPECT_THROW(parse({"bench", "--primitives", "spmv", "--algorithms", "csr_vector"}), usage_error);
  EXPECT_EQ(c.bench.matrices, spmv_matrices());  // every matrix by default
  EXPECT_EQ(spmv_matrices().size(), 6u);
  const command m = parse({"bench", "--primitives", "spmv", "--matrices", "rmat,powerlaw"});
  EXPECT_EQ(m.bench.matrices, (std::vector<std::string>{"rmat", "powerlaw"}));
  EXPECT_EQ(parse({"bench", "--matrices", "all"}).bench.matrices, spmv_matrices());
  EXPECT_THROW(parse({"bench", "--primitives", "spmv", "--matrices", "rmat,dense"}), usage_error);
}

TEST(Cli, SizeForms) {
  EXPECT_EQ(parse_log2_sizes("--sizes", "16..20"), (std::vector<int>{16, 17, 18, 19, 20}));
  EXPECT_EQ(parse_log2_sizes("--sizes", "16..22:3"), (std::vector<int>{16, 19, 22}));
  EXPECT_EQ(parse_log2_sizes("--sizes", "2^10..2^12,2^5"), (std::vector<int>{5, 10, 11, 12}));
  EXPECT_EQ(parse_log2_sizes("--sizes", "24,20,24"), (std::vector<int>{20, 24}));  // sorted, unique
  EXPECT_EQ(parse_log2_sizes("--sizes", "0"), (std::vector<int>{0}));
}

TEST(Cli, FlagEqualsValueIsTheSameAsTwoArguments) {
  EXPECT_EQ(parse({"--sizes=20,24"}).bench.log2_sizes, (std::vector<int>{20, 24}));
  EXPECT_EQ(parse({"--sizes=20", "--repeat", "3"}).bench.repeat, 3);
  EXPECT_EQ(parse({"tune", "--strategies=chained"}).tune.algorithms.size(), 1u);
  EXPECT_NE(error_of({"--sizes="}).find("--sizes"), std::string::npos);  // an empty value is still a value
  EXPECT_NE(error_of({"--primitives", "sort", "--seed-table=yes"}).find("--seed-table takes no value"),
            std::string::npos);
}

TEST(Cli, AllSelectsEveryValue) {
  EXPECT_EQ(parse({"--types", "all"}).bench.types, bench_types());
  EXPECT_EQ(parse({"--types", "all"}).bench.types.size(), 9u);
  EXPECT_EQ(parse({"--inputs", "all"}).bench.inputs, (std::vector<std::string>{"cold", "warm"}));
}

TEST(Cli, InputsAndMoreTypes) {
  const command c = parse({"--types", "double,int32_user,mat2u", "--inputs", "warm"});
  EXPECT_EQ(c.bench.types, (std::vector<std::string>{"double", "int32_user", "mat2u"}));
  EXPECT_EQ(c.bench.inputs, std::vector<std::string>{"warm"});
  EXPECT_NE(error_of({"--inputs", "hot"}).find("--inputs"), std::string::npos);
  EXPECT_NE(error_of({"--types", "int128"}).find("--types"), std::string::npos);
  EXPECT_NE(error_of({"tune", "--types", "double"}).find("--types"), std::string::npos);  // the tuner's types only
  EXPECT_EQ(parse({"tune", "--strategies", "chained,all"}).tune.algorithms.size(), tune_algorithms().size());
}

TEST(Cli, TuneOptions) {
  const command c = parse({"tune", "--types", "vec4i", "--strategies", "decoupled_lookback", "--sizes", "20,26",
                           "--repeat", "3", "--budget", "60", "--output", "/tmp/t.txt", "--dry-run"});
  EXPECT_EQ(c.kind, subcommand::tune);
  EXPECT_EQ(c.tune.types, (std::vector<std::string>{"vec4i"}));
  EXPECT_EQ(c.tune.algorithms, (std::vector<std::string>{"decoupled_lookback"}));
  EXPECT_EQ(c.tune.log2_sizes, (std::vector<int>{20, 26}));
  EXPECT_EQ(c.tune.repeat, 3);
  EXPECT_EQ(c.tune.budget_s, 60);
  EXPECT_EQ(c.tune.output, "/tmp/t.txt");
  EXPECT_TRUE(c.tune.dry_run);
  EXPECT_FALSE(c.tune.list);
  EXPECT_TRUE(parse({"tune", "--list"}).tune.list);
  const command d = parse({"tune"});
  EXPECT_EQ(d.tune.log2_sizes, (std::vector<int>{18, 22, 26}));
  EXPECT_EQ(d.tune.types, tune_types());
  EXPECT_EQ(d.tune.algorithms, tune_algorithms());
}

TEST(Cli, VerifyOptions) {
  const command c = parse({"verify", "--seed", "42", "--cpu"});
  EXPECT_EQ(c.kind, subcommand::verify);
  EXPECT_EQ(c.verify.seed, 42u);
  EXPECT_TRUE(c.verify.cpu);
  EXPECT_EQ(parse({"verify"}).verify.seed, 0u);
}

TEST(Cli, Help) {
  EXPECT_EQ(parse({"--help"}).kind, subcommand::help);
  EXPECT_EQ(parse({"--help"}).help_topic, "");
  EXPECT_EQ(parse({"-h"}).kind, subcommand::help);
  EXPECT_EQ(parse({"tune", "--help"}).help_topic, "tune");
  EXPECT_EQ(parse({"verify", "--seed", "3", "--help"}).help_topic, "verify");
  EXPECT_EQ(parse({"help", "bench"}).help_topic, "bench");
  EXPECT_EQ(parse({"--version"}).kind, subcommand::version);
  for (const char* topic : {"", "bench", "tune", "verify"}) {
    const std::string text = help_text(topic);
    EXPECT_NE(text.find("usage: streamscan"), std::string::npos) << topic;
  }
  // Every option the parser accepts is in its subcommand's help.
  for (const char* opt :
       {"--primitives", "--segment-lengths", "--keep-fractions", "--key-types", "--distributions", "--seed-table",
        "--types", "--sizes", "--algorithms", "--repeat", "--json", "--compare-defaults", "--cpu", "--progress"})
    EXPECT_NE(help_text("bench").find(opt), std::string::npos) << opt;
  for (const char* opt : {"--types", "--strategies", "--sizes", "--repeat", "--budget", "--output", "--dry-run",
                          "--list", "--progress"})
    EXPECT_NE(help_text("tune").find(opt), std::string::npos) << opt;
  for (const char* opt : {"--seed", "--cpu", "--progress"})
    EXPECT_NE(help_text("verify").find(opt), std::string::npos) << opt;
}

TEST(Cli, BadArgumentsNameTheArgument) {
  EXPECT_NE(error_of({"frobnicate"}).find("unknown subcommand 'frobnicate'"), std::string::npos);
  EXPECT_NE(error_of({"--types", "int33"}).find("--types: unknown value 'int33'"), std::string::npos);
  EXPECT_NE(error_of({"--types", ""}).find("--types"), std::string::npos);
  EXPECT_NE(error_of({"--sizes", "x"}).find("--sizes"), std::string::npos);
  EXPECT_NE(error_of({"--sizes", "41"}).find("--sizes"), std::string::npos);
  EXPECT_NE(error_of({"--sizes", "24..20"}).find("runs backwards"), std::string::npos);
  EXPECT_NE(error_of({"--sizes", "20..24:0"}).find("--sizes"), std::string::npos);
  EXPECT_NE(error_of({"--repeat", "0"}).find("--repeat expects an integer from 1"), std::string::npos);
  EXPECT_NE(error_of({"--repeat", "5x"}).find("--repeat"), std::string::npos);
  EXPECT_NE(error_of({"--repeat"}).find("--repeat needs a value"), std::string::npos);
  EXPECT_NE(error_of({"--algorithms", "cub,magic"}).find("'magic'"), std::string::npos);
  EXPECT_NE(error_of({"--progress", "sometimes"}).find("--progress"), std::string::npos);
  EXPECT_NE(error_of({"--primitives", "sorting"}).find("--primitives: unknown value 'sorting'"), std::string::npos);
  EXPECT_NE(error_of({"--key-types", "int16"}).find("--key-types: unknown value 'int16'"), std::string::npos);
  EXPECT_NE(error_of({"--key-types", ""}).find("--key-types"), std::string::npos);
  EXPECT_NE(error_of({"--distributions", "and5"}).find("--distributions: unknown value 'and5'"), std::string::npos);
  EXPECT_NE(error_of({"--seed-table"}).find("--seed-table is part of the sort bench"), std::string::npos);
  EXPECT_NE(error_of({"tune", "--key-types", "uint32"}).find("unknown argument '--key-types'"), std::string::npos);
  EXPECT_NE(error_of({"verify", "--seed-table"}).find("unknown argument '--seed-table'"), std::string::npos);
  EXPECT_NE(error_of({"--segment-lengths", "0"}).find("--segment-lengths"), std::string::npos);
  EXPECT_NE(error_of({"--budget", "10"}).find("unknown argument '--budget'"), std::string::npos);  // tune's
  EXPECT_NE(error_of({"tune", "--types", "float"}).find("--types: unknown value 'float'"), std::string::npos);
  EXPECT_NE(error_of({"tune", "--cpu"}).find("unknown argument '--cpu'"), std::string::npos);
  EXPECT_NE(error_of({"tune", "--compare-defaults"}).find("unknown argument '--compare-defaults'"), std::string::npos);
  EXPECT_NE(error_of({"--compare-defaults=yes"}).find("--compare-defaults takes no value"), std::string::npos);
  EXPECT_NE(error_of({"tune", "--budget", "0"}).find("--budget"), std::string::npos);
  EXPECT_NE(error_of({"tune", "--output", ""}).find("--output"), std::string::npos);
  EXPECT_NE(error_of({"verify", "--seed", "-1"}).find("--seed"), std::string::npos);
  EXPECT_NE(error_of({"help", "nothing"}).find("unknown subcommand 'nothing'"), std::string::npos);
  EXPECT_EQ(error_of({"bench"}), "");  // and the helper itself can tell success from failure
}

}  // namespace
