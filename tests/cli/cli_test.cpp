// The CLI as a user meets it: the built-in defaults run, equal seeds give equal
// bytes, and bad input gets one clear line on stderr and exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_runner.hpp"
#include "hetsched/core/text_file.hpp"

namespace {

using CommandResult = hetsched::testing::CliResult;
using hetsched::testing::line_count;
using hetsched::testing::run_cli;

TEST(Cli, SimulateDefaultsIsDeterministicJson) {
  const CommandResult first = run_cli("simulate --format json --seed 3 --quiet");
  const CommandResult second = run_cli("simulate --format json --seed 3 --quiet");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
  const auto json = nlohmann::json::parse(first.out);
  ASSERT_EQ(json["reports"].size(), 3u);
  EXPECT_EQ(json["reports"][2]["policy"], "greedy-eft");
  EXPECT_EQ(json["reports"][2]["tasks_completed"], json["reports"][2]["tasks_total"]);
  const CommandResult other_seed = run_cli("simulate --format json --seed 4 --quiet");
  EXPECT_NE(first.out, other_seed.out);
}

TEST(Cli, SimulateWritesReportAndChromeTrace) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("hetsched_out_" + std::to_string(::getpid()));
  const CommandResult r = run_cli("simulate --policy greedy-eft --quiet --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("greedy-eft"), std::string::npos);
  std::ifstream trace(dir / "greedy-eft.trace.json");
  const auto json = nlohmann::json::parse(trace);
  ASSERT_TRUE(json.contains("traceEvents"));
  std::size_t complete_events = 0;
  for (const auto& e : json["traceEvents"]) complete_events += e["ph"] == "X";
  EXPECT_GT(complete_events, 100u);
  std::filesystem::remove_all(dir);
}

TEST(Cli, UnknownPolicyIsOneLineWithClosestNamesAndStatus2) {
  const CommandResult r = run_cli("simulate --policy gredy-eft --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("closest: greedy-eft"), std::string::npos) << r.err;
}

TEST(Cli, MissingFileIsOneLineAndStatus2) {
  const CommandResult r = run_cli("simulate --cluster /nonexistent/cluster.yaml --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/cluster.yaml"), std::string::npos) << r.err;
}

TEST(Cli, UnknownSubcommandOrOptionIsStatus2) {
  EXPECT_EQ(run_cli("simulat").status, 2);
  EXPECT_EQ(run_cli("simulate --polcy x").status, 2);
}

TEST(Cli, StaticPlannersPlanOnSharedNicsWhenAsked) {
  // The built-in cluster has five nodes: heft's plans, and so the run, change with the
  // network it plans on.
  const std::string heft = "simulate --policy heft --format json --quiet --plan-network ";
  const CommandResult free = run_cli(heft + "contention-free");
  const CommandResult shared = run_cli(heft + "shared-nics");
  ASSERT_EQ(free.status, 0) << free.err;
  ASSERT_EQ(shared.status, 0) << shared.err;
  EXPECT_NE(nlohmann::json::parse(free.out)["reports"][0]["mean_response_seconds"],
            nlohmann::json::parse(shared.out)["reports"][0]["mean_response_seconds"]);
  const CommandResult bad = run_cli(heft + "shared");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(line_count(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("shared-nics"), std::string::npos) << bad.err;
}

const std::string kExamples = std::string(HETSCHED_SOURCE_DIR) + "/examples/";

TEST(Cli, ValidateAcceptsTheExamples) {
  for (const std::string& arguments :
       {kExamples + "cluster.yaml", kExamples + "cluster.json",
        kExamples + "workload.yaml --cluster " + kExamples + "cluster.yaml"}) {
    const CommandResult r = run_cli("validate " + arguments);
    EXPECT_EQ(r.status, 0) << arguments << ": " << r.err;
    EXPECT_NE(r.out.find(": ok"), std::string::npos) << arguments;
  }
}

TEST(Cli, SimulatesTheExampleFiles) {
  const CommandResult r =
      run_cli("simulate --quiet --cluster " + kExamples + "cluster.yaml --workload " + kExamples +
              "workload.yaml --policy greedy-eft --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["reports"][0]["tasks_completed"], json["reports"][0]["tasks_total"]);
}

TEST(Cli, CatalogListsTheRealParts) {
  const CommandResult r = run_cli("catalog --format json");
  ASSERT_EQ(r.status, 0);
  const auto parts = nlohmann::json::parse(r.out);
  bool h100 = false;
  for (const auto& p : parts) h100 |= p["model"] == "H100-SXM";
  EXPECT_TRUE(h100);
}

TEST(Cli, BenchSimPrintsTheRates) {
  const CommandResult r = run_cli("bench sim --tasks 5000 --nodes 4 --format json --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["tasks"], 5000);
  EXPECT_GT(json["tasks_per_second"].get<double>(), 0);
  EXPECT_GT(json["events_per_second"].get<double>(), json["tasks_per_second"].get<double>());
}

TEST(Cli, BenchSimSweepsClusterSizesAndRunsABaselineAlternately) {
  const CommandResult sweep =
      run_cli("bench sim --tasks 2000 --devices 16,40 --format json --quiet");
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const auto sizes = nlohmann::json::parse(sweep.out)["sizes"];
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[0]["devices"], 16);
  EXPECT_EQ(sizes[1]["devices"], 48);  // three nodes of 16
  for (const auto& size : sizes) EXPECT_EQ(size["run"]["tasks"], 2000);

  // The same binary as its own baseline: both run the same case, twice each.
  const CommandResult paired =
      run_cli(std::string("bench sim --tasks 2000 --devices 32 --baseline ") + HETSCHED_CLI_PATH +
              " --repetitions 2 --format json --quiet");
  ASSERT_EQ(paired.status, 0) << paired.err;
  const auto size = nlohmann::json::parse(paired.out)["sizes"][0];
  ASSERT_EQ(size["runs"].size(), 2u);
  ASSERT_EQ(size["baseline_runs"].size(), 2u);
  EXPECT_EQ(size["runs"][0]["simulated_makespan_seconds"],
            size["baseline_runs"][1]["simulated_makespan_seconds"]);
  EXPECT_GT(size["baseline_tasks_per_second"].get<double>(), 0);

  for (const char* bad : {"bench sim --devices 32 --baseline /nonexistent/hetsched --quiet",
                          "bench sim --devices 32 --nodes 4 --quiet"}) {
    const CommandResult refused = run_cli(bad);
    EXPECT_EQ(refused.status, 2) << bad;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  }
}

TEST(Cli, BenchSimRunsEveryTaskWhenThereAreFewerTasksThanJobs) {
  // Tasks are spread over up to 1,024 jobs; with fewer tasks each job gets one.
  const CommandResult r = run_cli("bench sim --tasks 10 --nodes 4 --format json --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["tasks"], 10);
  EXPECT_EQ(json["transfers"], 10);
}

}  // namespace

namespace hetsched {
namespace {

TEST(Cli, PredictorFilesThatAreMissingOrCorruptAreOneLineAndStatus2) {
  const CommandResult missing = run_cli("fit-predictor --measurements /nonexistent/m.json");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(line_count(missing.err), 1u) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/m.json"), std::string::npos) << missing.err;
  const auto corrupt = std::filesystem::temp_directory_path() /
                       ("hetsched_predictor_cli_" + std::to_string(::getpid()) + ".json");
  std::ofstream(corrupt) << R"({"format": "hetsched-runtime-predictor", "version": 1, "featu)";
  const CommandResult bad =
      run_cli("run --dag empty --tasks 10 --no-opencl --predictor " + corrupt.string());
  std::filesystem::remove(corrupt);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(line_count(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("not a JSON predictor file"), std::string::npos) << bad.err;
  // A file of measurements that is not one.
  const CommandResult wrong =
      run_cli("bench predictor --measurements " + std::string(HETSCHED_DATA_DIR) +
              "/models/learned_policy.json");
  EXPECT_EQ(wrong.status, 2);
  EXPECT_EQ(line_count(wrong.err), 1u) << wrong.err;
  EXPECT_NE(wrong.err.find("hetsched-measurements"), std::string::npos) << wrong.err;
}

TEST(Cli, FitPredictorFitsTheShippedMeasurementsAndRunUsesThePredictor) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("hetsched_predictor_fit_" + std::to_string(::getpid()) + ".json");
  const CommandResult fit = run_cli(
      "fit-predictor --rounds 40 --format json --measurements " + std::string(HETSCHED_DATA_DIR) +
      "/measurements/epyc-pocl-calibration.json --out " + out.string());
  ASSERT_EQ(fit.status, 0) << fit.err;
  const auto report = nlohmann::json::parse(fit.out);
  EXPECT_EQ(report.at("measurements"), 630);
  EXPECT_GT(report.at("interval_coverage").get<double>(), 0.5);
  const CommandResult run =
      run_cli("run --dag empty --tasks 20 --no-opencl --format json --predictor " + out.string());
  std::filesystem::remove(out);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out).at("perf_model"), "learned-runtime");
}

TEST(Cli, RunAppendsEveryTasksMeasuredRunAndRefusesACorruptHistoryBeforeRunning) {
  const auto history = std::filesystem::temp_directory_path() /
                       ("hetsched_run_history_" + std::to_string(::getpid()) + ".json");
  const std::string run =
      "run --dag empty --tasks 20 --no-opencl --measurements " + history.string();
  ASSERT_EQ(run_cli(run).status, 0);
  ASSERT_EQ(run_cli(run).status, 0);
  auto rows = nlohmann::json::parse(hetsched::read_text_file(history.string())).at("measurements");
  EXPECT_EQ(rows.size(), 40u);
  for (const auto& row : rows) EXPECT_GE(row.at("seconds").get<double>(), 0.0);
  std::ofstream(history) << "{not json";
  const CommandResult bad = run_cli(run);
  std::filesystem::remove(history);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(line_count(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("not a JSON measurement file"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace hetsched
