// The one-include library (include/hetsched/hetsched.hpp) is enough for a program to do what
// `hetsched simulate` does: this file includes nothing else of hetsched's (it is compiled
// alone, outside the unity batches), runs the example cluster and workload under two
// policies, and finds the CLI's figures.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli_runner.hpp"
#include "hetsched/hetsched.hpp"

namespace {

using hetsched::testing::CliResult;
using hetsched::testing::run_cli;

const std::string kFacadeExamples = std::string(HETSCHED_SOURCE_DIR) + "/examples/";

hetsched::RunReport simulate_through_the_facade(const std::string& policy_name) {
  const hetsched::Cluster cluster = hetsched::load_cluster_file(kFacadeExamples + "cluster.yaml");
  const hetsched::Workload workload =
      hetsched::load_workload_file(kFacadeExamples + "workload.yaml", cluster);
  const hetsched::RooflineModel perf(cluster);
  const auto policy = hetsched::make_policy(policy_name, {});
  hetsched::Simulator twin(cluster, workload, perf, *policy);
  return twin.run();
}

TEST(LibraryFacade, SimulatesAsTheCliDoes) {
  for (const std::string policy : {"heft", "greedy-eft"}) {
    const hetsched::RunReport report = simulate_through_the_facade(policy);
    EXPECT_GT(report.makespan_seconds, 0.0) << policy;
    const CliResult cli =
        run_cli("simulate -q --format json --policy " + policy + " --cluster " + kFacadeExamples +
                "cluster.yaml --workload " + kFacadeExamples + "workload.yaml");
    ASSERT_EQ(cli.status, 0) << cli.err;
    const auto json = nlohmann::json::parse(cli.out);
    EXPECT_DOUBLE_EQ(json["reports"][0]["makespan_seconds"].get<double>(), report.makespan_seconds)
        << policy;
    EXPECT_EQ(json["reports"][0]["tasks_completed"].get<std::size_t>(), report.tasks_completed)
        << policy;
  }
}

TEST(LibraryFacade, BadInputIsAnInputErrorWithItsFile) {
  try {
    (void)hetsched::load_cluster_file(kFacadeExamples + "no_such_cluster.yaml");
    FAIL() << "a missing cluster file was accepted";
  } catch (const hetsched::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_cluster.yaml"), std::string::npos) << e.what();
  }
}

}  // namespace
