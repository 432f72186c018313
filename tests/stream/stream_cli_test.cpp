// `hetsched simulate` on a stream workload file, as a user meets it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli_runner.hpp"

namespace {

using StreamCliResult = hetsched::testing::CliResult;

StreamCliResult run_stream_cli(const std::string& arguments) {
  return hetsched::testing::run_cli(arguments);
}

const std::string kExample = std::string(HETSCHED_SOURCE_DIR) + "/examples/stream_small.yaml";

TEST(StreamCli, SimulatePrintsTheStreamMetricsAndTheRejections) {
  const StreamCliResult r = run_stream_cli("simulate --workload " + kExample +
                                           " --policy fifo --policy aware-las --backfill --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rejected at submission: too-big: asks for 64 devices"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("rejected at submission: typo: unknown device type 'V10O'"),
            std::string::npos)
      << r.out;
  for (const char* metric : {"avg JCT", "p99 JCT", "avg wait", "makespan", "utilisation K80",
                             "Jain fairness", "SLO violations", "cost"})
    EXPECT_NE(r.out.find(metric), std::string::npos) << metric;
}

TEST(StreamCli, JsonIsDeterministic) {
  const std::string args = "simulate --workload " + kExample + " --format json --quiet";
  const StreamCliResult first = run_stream_cli(args);
  const StreamCliResult second = run_stream_cli(args);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
  const auto json = nlohmann::json::parse(first.out);
  ASSERT_EQ(json["reports"].size(), 3u);
  EXPECT_EQ(json["reports"][0]["finished"], 5);
  EXPECT_EQ(json["reports"][0]["rejected"].size(), 2u);
}

TEST(StreamCli, BadStreamFileIsOneLineWithPositionAndStatus2) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hetsched_bad_stream_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "kind: stream\ncluster:\n  devices: {V100: 2}\njobs:\n  - {steps: -5}\n";
  const StreamCliResult r = run_stream_cli("simulate --quiet --workload " + path.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(path.string() + ":5:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'steps' expects a number > 0, got '-5'"), std::string::npos) << r.err;
  const StreamCliResult unknown =
      run_stream_cli("simulate --quiet --workload " + kExample + " --policy aware-lass");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("closest: aware-las"), std::string::npos) << unknown.err;
  std::filesystem::remove(path);
}

}  // namespace
