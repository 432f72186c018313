// The fault-tolerance CLI as a user meets it: each bad input the issue names (an
// MTBF of 0 or less, a failure list naming an unknown device, a checkpoint
// interval of 0, an autoscaler with min > max) is one line on stderr and exit
// status 2; a run with failures lists every job's attempts, failures, checkpoints
// and recovery time, in the table and in JSON, with the predictor's scores.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli_runner.hpp"

namespace {

using hetsched::testing::CliResult;
using hetsched::testing::line_count;
using hetsched::testing::run_cli;

// A fault file in the temp directory, removed with the object.
struct FaultFile {
  std::filesystem::path path;
  explicit FaultFile(const std::string& text, const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("hetsched_faults_" + tag + "_" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(path) << text;
  }
  ~FaultFile() { std::filesystem::remove(path); }
};

void expect_one_line_status_2(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(FaultCli, MtbfOfZeroOrLessIsOneLineAndStatus2) {
  expect_one_line_status_2(run_cli("simulate --quiet --mtbf-hours 0"), "MTBF must be more than 0");
  expect_one_line_status_2(run_cli("simulate --quiet --mtbf-hours=-5"), "MTBF must be more than 0");
  const FaultFile file("model: {mtbf_hours: 0}\n", "mtbf");
  expect_one_line_status_2(run_cli("simulate --quiet --failures " + file.path.string()),
                           "field 'mtbf_hours' expects a number > 0, got '0'");
  expect_one_line_status_2(run_cli("bench faults --quiet --runs 1 --mtbf-hours 0"),
                           "MTBF must be more than 0");
}

TEST(FaultCli, UnknownDeviceInTheFailureListIsOneLineWithClosestNames) {
  const FaultFile file("failures:\n  - {time: 5, kind: crash, device: \"h100-0/H100-SXM#9\"}\n",
                       "device");
  const CliResult r = run_cli("simulate --quiet --failures " + file.path.string());
  expect_one_line_status_2(r, "unknown device 'h100-0/H100-SXM#9'");
  EXPECT_NE(r.err.find(":2:"), std::string::npos) << r.err;  // file:line:column
  EXPECT_NE(r.err.find("closest"), std::string::npos) << r.err;
}

TEST(FaultCli, CheckpointIntervalOfZeroIsOneLineAndStatus2) {
  expect_one_line_status_2(run_cli("simulate --quiet --mtbf-hours 1 --checkpoint-interval 0"),
                           "must be more than 0");
  const FaultFile file("checkpoint: {interval_seconds: 0}\n", "interval");
  expect_one_line_status_2(run_cli("simulate --quiet --failures " + file.path.string()),
                           "field 'interval_seconds' expects a number > 0, got '0'");
}

TEST(FaultCli, AutoscalerMinAboveMaxIsOneLineAndStatus2) {
  expect_one_line_status_2(run_cli("bench scaling --min-nodes 5 --max-nodes 2"),
                           "min nodes (5) is more than max nodes (2)");
}

TEST(FaultCli, ReportListsEveryJobsAttemptsFailuresCheckpointsAndRecovery) {
  const FaultFile file(
      "model: {mtbf_hours: 0.02, repair_seconds: 30, transients_per_device_hour: 30}\n"
      "checkpoint: {interval_seconds: 2}\n"
      "predictor: {inspection_seconds: 30}\n"
      "telemetry: {sample_seconds: 1, degradation_lead_seconds: 20, ecc_per_hour: 90,\n"
      "            degraded_ecc_per_hour: 5400, burst_ecc_per_hour: 3600, burst_seconds: 10}\n",
      "report");
  const std::string args =
      "simulate --quiet --policy greedy-eft --seed 2 --failures " + file.path.string();
  const CliResult table = run_cli(args);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("attempts"), std::string::npos);
  EXPECT_NE(table.out.find("recovery (s)"), std::string::npos);
  EXPECT_NE(table.out.find("predictor:"), std::string::npos);
  const CliResult json = run_cli(args + " --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  const auto report = nlohmann::json::parse(json.out)["reports"][0];
  const auto& faults = report["faults"];
  ASSERT_EQ(faults["jobs"].size(), report["jobs"].size());
  EXPECT_EQ(faults["lost_tasks"], 0);
  std::size_t failures = 0, checkpoints = 0;
  for (const auto& job : faults["jobs"]) {
    for (const char* key : {"attempts", "failures", "checkpoints", "recovery_seconds"})
      EXPECT_TRUE(job.contains(key)) << key;
    // Every job completed or says why not.
    EXPECT_NE(job["completed"].get<bool>(), !job["failure_reason"].get<std::string>().empty());
    failures += job["failures"].get<std::size_t>();
    checkpoints += job["checkpoints"].get<std::size_t>();
  }
  EXPECT_GT(failures, 0u);
  EXPECT_GT(checkpoints, 0u);
  for (const char* key : {"precision", "recall", "mean_lead_seconds", "work_saved_seconds"})
    EXPECT_TRUE(faults["predictor"].contains(key)) << key;
}

}  // namespace
