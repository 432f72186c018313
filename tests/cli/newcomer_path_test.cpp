// A newcomer's path through the CLI (issue 16): every input ends in a result or one clear
// line with exit status 2; options a run cannot honour are refused; imported workflows and
// cost matrices, told by content, are scheduled like any workload.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_runner.hpp"

namespace {

using hetsched::testing::CliResult;
using hetsched::testing::line_count;
using hetsched::testing::run_cli;

const std::string kNewcomerSource = HETSCHED_SOURCE_DIR;
const std::string kNewcomerExamples = kNewcomerSource + "/examples/";
const std::string kNewcomerData = kNewcomerSource + "/data/";

// A fresh folder of this test's own.
std::filesystem::path newcomer_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hetsched_newcomer_" + std::to_string(::getpid()) + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string newcomer_file(const std::filesystem::path& dir, const std::string& name,
                          const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << text;
  return (dir / name).string();
}

void expect_one_line_status_2(const CliResult& r, const std::string& needle,
                              const std::string& what) {
  EXPECT_EQ(r.status, 2) << what << ": " << r.out << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << what << ": " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": " << r.err;
}

TEST(NewcomerPath, ADirectoryGivenAsAFileIsOneLine) {
  const std::string dir = newcomer_dir().string();
  expect_one_line_status_2(run_cli("validate " + dir), "directory", "validate DIR");
  expect_one_line_status_2(run_cli("simulate -q --workload " + dir), "directory",
                           "simulate --workload DIR");
  expect_one_line_status_2(run_cli("simulate -q --cluster " + dir), "directory",
                           "simulate --cluster DIR");
  expect_one_line_status_2(run_cli("simulate -q --failures " + dir), "directory",
                           "simulate --failures DIR");
  expect_one_line_status_2(run_cli("import " + dir), "directory", "import DIR");
}

TEST(NewcomerPath, StreamRoundAndMigrationTimesMustBeFinite) {
  const std::string stream = "simulate -q --workload " + kNewcomerExamples + "stream_small.yaml ";
  for (const std::string bad :
       {"--round-seconds 0", "--round-seconds -5", "--round-seconds nan", "--round-seconds 0.001",
        "--round-seconds 1e308", "--migration-seconds nan", "--migration-seconds -1",
        "--migration-seconds inf"})
    expect_one_line_status_2(run_cli(stream + bad), bad.substr(0, bad.find(' ')), bad);
}

TEST(NewcomerPath, StreamRunsRefuseWhatTheyCannotHonour) {
  const std::string stream = "simulate -q --workload " + kNewcomerExamples + "stream_small.yaml ";
  for (const std::string& option : {std::string("--mtbf-hours 10"), std::string("--power-cap 1000"),
                                    std::string("--thermal"), std::string("--clone-threshold 2")})
    expect_one_line_status_2(run_cli(stream + option), "cannot be used", option);
  // ... and task workloads refuse the stream options.
  expect_one_line_status_2(run_cli("simulate -q --round-seconds 100"), "job-stream options",
                           "--round-seconds on the built-in workload");
  expect_one_line_status_2(run_cli("simulate -q --gang-placement pack"), "job-stream options",
                           "--gang-placement on the built-in workload");
}

TEST(NewcomerPath, AStreamRunsOnAClusterFileWhenGivenOne) {
  const auto dir = newcomer_dir();
  const std::string jobs = newcomer_file(
      dir, "jobs.yaml",
      "kind: stream\njobs:\n"
      "  - {name: a, gang: 8, steps: 1000, rates: {H100-SXM: 10}}\n"
      "  - {name: b, gang: 4, steps: 1000, arrival: 5, rates: {A100-80GB: 3, TPU-v5e: 1}}\n");
  // The stream names no cluster of its own: it needs --cluster.
  expect_one_line_status_2(run_cli("simulate -q --workload " + jobs), "has no 'cluster'",
                           "a stream without a cluster");
  expect_one_line_status_2(run_cli("simulate -q --workload " + jobs + " --cluster /missing.yaml"),
                           "/missing.yaml", "a missing cluster file");
  // examples/cluster.yaml: 8 H100s on the dgx node plus the H100 sliced on `inference`.
  const CliResult r = run_cli(
      "simulate -q --format json --policy fifo --gang-placement pack "
      "--workload " +
      jobs + " --cluster " + kNewcomerExamples + "cluster.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out)["reports"][0];
  EXPECT_EQ(report["finished"], 2);
  EXPECT_TRUE(report["utilisation"].contains("H100-SXM")) << r.out;
  EXPECT_TRUE(report["utilisation"].contains("TPU-v5e")) << r.out;
  // Nine devices of a type fit no node of examples/cluster.yaml: packed, the gang is rejected.
  const std::string wide = newcomer_file(
      dir, "wide.yaml",
      "kind: stream\njobs:\n  - {name: w, gang: 9, steps: 10, rates: {H100-SXM: 1}}\n");
  const CliResult packed = run_cli(
      "simulate -q --format json --policy fifo --gang-placement pack "
      "--workload " +
      wide + " --cluster " + kNewcomerExamples + "cluster.yaml");
  ASSERT_EQ(packed.status, 0) << packed.err;
  const auto rejected = nlohmann::json::parse(packed.out)["reports"][0]["rejected"];
  ASSERT_EQ(rejected.size(), 1u) << packed.out;
  EXPECT_NE(rejected[0]["reason"].get<std::string>().find("largest node"), std::string::npos)
      << rejected;
}

TEST(NewcomerPath, StreamRunsWriteTheirReportToOut) {
  const auto dir = newcomer_dir();
  const CliResult r = run_cli("simulate -q --policy fifo --workload " + kNewcomerExamples +
                              "stream_small.yaml --out " + (dir / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream report(dir / "out" / "stream.report.json");
  ASSERT_TRUE(report.good());
  const auto json = nlohmann::json::parse(report);
  ASSERT_EQ(json["reports"].size(), 1u);
  EXPECT_EQ(json["reports"][0]["policy"], "fifo");
}

TEST(NewcomerPath, NumbersMustBeFiniteAndSeedsInRange) {
  expect_one_line_status_2(run_cli("simulate -q --power-cap nan"), "finite", "--power-cap nan");
  expect_one_line_status_2(run_cli("simulate -q --node-power-cap inf"), "finite",
                           "--node-power-cap inf");
  expect_one_line_status_2(run_cli("simulate -q --seed -1"), "seed", "--seed -1");
  expect_one_line_status_2(run_cli("simulate -q --seed 18446744073709551616"), "seed",
                           "--seed 2^64");
  expect_one_line_status_2(run_cli("bench dag --seed -1"), "seed", "bench dag --seed -1");
  const CliResult largest = run_cli("pareto --tasks 6 --seed 18446744073709551615");
  EXPECT_EQ(largest.status, 0) << largest.err;
}

TEST(NewcomerPath, HugeWorkloadNumbersAreRefusedWithTheirPosition) {
  const auto dir = newcomer_dir();
  for (const std::string field : {"flops", "bytes"}) {
    const std::string file =
        newcomer_file(dir, field + ".yaml",
                      "jobs:\n  - name: j\n    tasks:\n      - {name: t, kernel: dense_matmul, " +
                          field + ": 1e308}\n");
    expect_one_line_status_2(run_cli("validate " + file), field + ".yaml:4:", field);
  }
  const std::string late = newcomer_file(
      dir, "late.yaml",
      "jobs:\n  - name: j\n    arrival_seconds: 1e308\n    tasks: [{name: t, flops: 1e9}]\n");
  expect_one_line_status_2(run_cli("validate " + late), "late.yaml:3:", "arrival_seconds");
}

TEST(NewcomerPath, ValidateTellsEveryKindByContent) {
  const auto dir = newcomer_dir();
  // A cost matrix saved as JSON under an upper-case name: told by its fields.
  std::ifstream yaml(kNewcomerExamples + "topcuoglu.yaml");
  std::stringstream text;
  text << yaml.rdbuf();
  const std::string as_json = newcomer_file(dir, "TOPC.JSON", text.str());
  const struct {
    std::string file, kind;
  } cases[] = {
      {kNewcomerExamples + "cluster.yaml", "cluster"},
      {kNewcomerExamples + "cluster.json", "cluster"},
      {kNewcomerExamples + "workload.yaml", "workload"},  // on the cluster it names
      {kNewcomerExamples + "stream_small.yaml", "stream workload"},
      {kNewcomerExamples + "topcuoglu.yaml", "cost matrix"},
      {as_json, "cost matrix"},
      {kNewcomerData + "wfcommons/montage-chameleon-2mass-005d-001.json", "WfCommons workflow"},
      {kNewcomerData + "pegasus/Montage_25.xml", "Pegasus DAX workflow"}};
  for (const auto& c : cases) {
    const CliResult r = run_cli("validate --format json " + c.file);
    ASSERT_EQ(r.status, 0) << c.file << ": " << r.err;
    const auto json = nlohmann::json::parse(r.out);
    EXPECT_EQ(json["kind"], c.kind) << c.file;
    EXPECT_EQ(json["ok"], true) << c.file;
  }
  expect_one_line_status_2(run_cli("simulate -q --workload " + kNewcomerExamples + "cluster.yaml"),
                           "found a cluster", "a cluster as the workload");
}

TEST(NewcomerPath, AWorkloadWithoutItsClusterNamesTheUnknownNode) {
  // The example workload without its `cluster` field, read against the built-in cluster.
  const auto dir = newcomer_dir();
  std::ifstream example(kNewcomerExamples + "workload.yaml");
  std::stringstream text;
  text << example.rdbuf();
  std::string body = text.str();
  body.erase(body.find("cluster: cluster.yaml\n"), std::string("cluster: cluster.yaml\n").size());
  const std::string file = newcomer_file(dir, "workload.yaml", body);
  const CliResult r = run_cli("validate " + file);
  expect_one_line_status_2(r, "unknown node", "workload on the built-in cluster");
  EXPECT_NE(r.err.find("workload.yaml:"), std::string::npos) << r.err;
}

TEST(NewcomerPath, TheBuiltInWorkloadRunsOnAnyCluster) {
  const CliResult r = run_cli("simulate -q --policy greedy-eft --format json --cluster " +
                              kNewcomerExamples + "cluster.json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["reports"][0]["tasks_completed"], json["reports"][0]["tasks_total"]);
}

TEST(NewcomerPath, ACostMatrixIsScheduledAndItsScheduleWritten) {
  const auto dir = newcomer_dir();
  const std::string csv = (dir / "heft.csv").string();
  const CliResult r = run_cli("simulate -q --policy heft --format json --workload " +
                              kNewcomerExamples + "topcuoglu.yaml --schedule " + csv);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  // HEFT on Topcuoglu et al.'s graph: makespan 80, as in the paper.
  EXPECT_DOUBLE_EQ(json["reports"][0]["makespan_seconds"].get<double>(), 80.0);
  std::ifstream schedule(csv);
  std::string line;
  std::getline(schedule, line);
  EXPECT_EQ(line, "policy,job,task,device,node,pstate,start_seconds,finish_seconds");
  int rows = 0;
  double latest_finish = 0;
  while (std::getline(schedule, line)) {
    ++rows;
    latest_finish = std::max(latest_finish, std::stod(line.substr(line.rfind(',') + 1)));
  }
  EXPECT_EQ(rows, 10);
  EXPECT_DOUBLE_EQ(latest_finish, 80.0);
  // The matrix's columns are its devices: another cluster is refused.
  expect_one_line_status_2(
      run_cli("simulate -q --workload " + kNewcomerExamples + "topcuoglu.yaml --cluster " +
              kNewcomerExamples + "cluster.yaml"),
      "--cluster cannot be used", "cost matrix with --cluster");
}

TEST(NewcomerPath, ImportedWorkflowsAreSimulated) {
  for (const std::string& file : {kNewcomerData + "wfcommons/montage-chameleon-2mass-005d-001.json",
                                  kNewcomerData + "pegasus/Montage_25.xml"}) {
    const CliResult r =
        run_cli("simulate -q --policy heft --policy greedy-eft --format json --workload " + file);
    ASSERT_EQ(r.status, 0) << file << ": " << r.err;
    const auto json = nlohmann::json::parse(r.out);
    ASSERT_EQ(json["reports"].size(), 2u);
    for (const auto& report : json["reports"]) {
      EXPECT_EQ(report["tasks_completed"], report["tasks_total"]) << file;
      EXPECT_GT(report["tasks_total"].get<int>(), 20) << file;
    }
  }
}

TEST(NewcomerPath, ParetoWritesNothingUnlessAsked) {
  const auto dir = newcomer_dir();
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  const CliResult r = run_cli("pareto --tasks 8");
  std::filesystem::current_path(previous);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  expect_one_line_status_2(run_cli("pareto --tasks 8 --job nope"), "<built-in workflow>",
                           "pareto --job nope");
}

}  // namespace

namespace {

TEST(NewcomerPath, CommandLineHabits) {
  const CliResult version = run_cli("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("hetsched ", 0), 0u) << version.out;
  const CliResult help = run_cli("help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("simulate"), std::string::npos);
  expect_one_line_status_2(run_cli("simulat"), "closest: simulate", "hetsched simulat");
  expect_one_line_status_2(run_cli("simulate --polcy x"), "closest: --policy", "simulate --polcy");
  expect_one_line_status_2(run_cli("bench dagg"), "closest: dag", "bench dagg");
  const CliResult policies = run_cli("policies --format json");
  ASSERT_EQ(policies.status, 0) << policies.err;
  const auto json = nlohmann::json::parse(policies.out);
  EXPECT_GT(json["task_policies"].size(), 10u);
  EXPECT_GT(json["stream_policies"].size(), 3u);
}

TEST(NewcomerPath, APolicyOfTheOtherRegistryIsNamedAsSuch) {
  expect_one_line_status_2(run_cli("simulate -q --policy fifo"), "job-stream policy",
                           "fifo on a task workload");
  expect_one_line_status_2(
      run_cli("simulate -q --policy heft --workload " + kNewcomerExamples + "stream_small.yaml"),
      "task-scheduling policy", "heft on a job stream");
}

}  // namespace

namespace {

TEST(NewcomerPath, BenchClusterChecksItsOptionsBeforeRunning) {
  expect_one_line_status_2(run_cli("bench cluster -q --aware-policy nope"), "stream policy 'nope'",
                           "--aware-policy nope");
  expect_one_line_status_2(run_cli("bench cluster -q --rate 3.3"), "no published figures",
                           "--rate 3.3");
  expect_one_line_status_2(run_cli("bench cluster -q --data /nonexistent"), "/nonexistent",
                           "--data /nonexistent");
  expect_one_line_status_2(run_cli("bench dag -q --data /nonexistent"), "/nonexistent",
                           "bench dag --data /nonexistent");
}

}  // namespace

namespace {

TEST(NewcomerPath, ChromeTraceNetworkRowsNeverOverlap) {
  const auto dir = newcomer_dir();
  const CliResult r = run_cli("simulate -q --policy greedy-eft --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream file(dir / "greedy-eft.trace.json");
  const auto trace = nlohmann::json::parse(file);
  std::map<std::pair<int, std::int64_t>, std::vector<std::pair<double, double>>> rows;
  std::size_t transfers = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "transfer") continue;
    ++transfers;
    rows[{e["pid"].get<int>(), e["tid"].get<std::int64_t>()}].emplace_back(
        e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
  }
  ASSERT_GT(transfers, 10u);
  EXPECT_GT(rows.size(), 1u);  // concurrent transfers needed more than one row
  for (auto& [row, spans] : rows) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_GE(spans[i].first, spans[i - 1].second - 1e-6)
          << "node " << row.first << " row " << row.second;
  }
}

}  // namespace

namespace {

TEST(NewcomerPath, WorkloadViolationsPointAtTheTask) {
  const auto dir = newcomer_dir();
  const std::string cycle = newcomer_file(dir, "cycle.yaml",
                                          "jobs:\n"
                                          "  - name: j\n"
                                          "    tasks:\n"
                                          "      - {name: a, flops: 1e9, after: [b]}\n"
                                          "      - {name: b, flops: 1e9, after: [a]}\n");
  expect_one_line_status_2(run_cli("validate " + cycle), "cycle.yaml:4:", "a dependency cycle");
  const std::string nowhere =
      newcomer_file(dir, "nowhere.yaml",
                    "jobs:\n"
                    "  - name: j\n"
                    "    tasks:\n"
                    "      - {name: ok, flops: 1e9}\n"
                    "      - {name: huge, flops: 1e9, memory_bytes: 1e20}\n");
  expect_one_line_status_2(run_cli("validate " + nowhere),
                           "nowhere.yaml:5:", "a task no device can run");
}

}  // namespace

namespace {

TEST(NewcomerPath, DeepNestingAndBinaryInputAreOneClearLine) {
  const auto dir = newcomer_dir();
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  const std::string workload = newcomer_file(dir, "deep.yaml", "jobs: " + deep + "\n");
  expect_one_line_status_2(run_cli("validate " + workload), "nesting deeper than", "workload");
  const std::string json = newcomer_file(dir, "deep.json", "{\"jobs\": " + deep + "}\n");
  expect_one_line_status_2(run_cli("validate " + json), "nesting deeper than", "JSON workload");
  const std::string stream =
      newcomer_file(dir, "stream.yaml", "kind: stream\ncluster: " + deep + "\n");
  expect_one_line_status_2(run_cli("validate " + stream), "nesting deeper than", "stream");
  const std::string fault = newcomer_file(dir, "fault.yaml", "model: " + deep + "\n");
  expect_one_line_status_2(run_cli("simulate -q --failures " + fault), "nesting deeper than",
                           "fault file");
  // Bytes that are not UTF-8 come back escaped, never raw.
  const std::string binary =
      newcomer_file(dir, "binary.yaml", std::string("jobs:\n  - name: \xFF\xFE\x01\n", 20));
  const CliResult r = run_cli("validate " + binary);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.find('\xFF'), std::string::npos) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  // A WfCommons file without its schema version points at its start.
  const std::string workflow =
      newcomer_file(dir, "nosv.json", "{\"name\": \"x\", \"workflow\": {\"specification\": {}}}");
  expect_one_line_status_2(run_cli("validate " + workflow), "nosv.json:1:1: no 'schemaVersion'",
                           "WfCommons without schemaVersion");
}

}  // namespace

namespace {

TEST(NewcomerPath, AFileThatDoesNotParseGetsItsSyntaxError) {
  const auto dir = newcomer_dir();
  const std::string broken = newcomer_file(dir, "broken.json", "{\"jobs\": [,]");
  expect_one_line_status_2(run_cli("validate " + broken), "broken.json:1:", "broken JSON");
  expect_one_line_status_2(run_cli("simulate -q --workload " + broken), "JSON syntax error",
                           "simulate on broken JSON");
}

}  // namespace
