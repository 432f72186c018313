// `hetsched bench dag` as a user meets it: the JSON has exactly the issue's keys,
// and an unknown or online policy name is one line on stderr with exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_runner.hpp"

namespace {

using Outcome = hetsched::testing::CliResult;

Outcome run_bench_dag(const std::string& arguments) {
  return hetsched::testing::run_cli("bench dag " + arguments);
}

TEST(BenchDagCli, JsonHasExactlyTheIssueKeys) {
  const Outcome r = run_bench_dag(
      "--quick --no-speed --policies heft,peft,min-min --exact-instances 2 "
      "--no-workflows --format json -q");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"heft_10k_64_seconds", "heft_scaling_exponent",
                                            "milp_gap_mean", "policies"}));
  ASSERT_EQ(json["policies"].size(), 3u);
  for (const auto& [name, p] : json["policies"].items()) {
    std::vector<std::string> fields;
    for (const auto& [key, value] : p.items()) fields.push_back(key);
    EXPECT_EQ(fields, (std::vector<std::string>{"best_fraction", "mean_makespan_vs_heft",
                                                "mean_schedule_seconds", "mean_slr",
                                                "worse_than_heft_count"}))
        << name;
    // The gap to the proven optimum of small DAGs: a heuristic is never below it. (Null
    // when the solver proved no optimum within its time limit, as on a loaded machine.)
    const auto& gap = json["milp_gap_mean"][name];
    ASSERT_TRUE(gap.is_null() || gap.is_number()) << name;
    if (gap.is_number()) {
      EXPECT_GE(gap.get<double>(), -1e-9) << name;
    }
  }
  EXPECT_DOUBLE_EQ(json["policies"]["heft"]["mean_makespan_vs_heft"].get<double>(), 1.0);
  EXPECT_EQ(json["policies"]["heft"]["worse_than_heft_count"].get<int>(), 0);
}

TEST(BenchDagCli, SpeedSizesWithoutTenThousandPrintNull) {
  const Outcome r = run_bench_dag("--speed-only --speed-sizes 100,200 --format json -q");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_TRUE(json["heft_10k_64_seconds"].is_null());
  EXPECT_TRUE(json["heft_scaling_exponent"].is_number());
  const Outcome tiny = run_bench_dag("--speed-only --speed-sizes 100,5 -q");
  EXPECT_EQ(tiny.status, 2);
  EXPECT_NE(tiny.err.find("--speed-sizes"), std::string::npos) << tiny.err;
  EXPECT_EQ(std::count(tiny.err.begin(), tiny.err.end(), '\n'), 1) << tiny.err;
}

TEST(BenchDagCli, UnknownOrOnlinePolicyIsExitTwo) {
  const Outcome unknown = run_bench_dag("--quick --no-speed --policies heft,hfet -q");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("heft"), std::string::npos) << unknown.err;
  EXPECT_EQ(std::count(unknown.err.begin(), unknown.err.end(), '\n'), 1) << unknown.err;
  const Outcome online = run_bench_dag("--quick --no-speed --policies greedy-eft -q");
  EXPECT_EQ(online.status, 2);
  EXPECT_NE(online.err.find("not a static DAG planner"), std::string::npos) << online.err;
}

}  // namespace
