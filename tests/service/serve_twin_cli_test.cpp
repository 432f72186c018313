// The twin predicts what the service does, through the command line: the example
// workload (jobs arriving over a minute) is submitted in one request over REST to `hetsched serve
// --engine sim:examples/cluster.yaml --time-scale max`, and `hetsched simulate` runs it
// on the same cluster with the same policy and seed; every task has the same device,
// start and finish in both — for a static planner and an online policy.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "../support/cli_runner.hpp"
#include "hetsched/core/text_file.hpp"
#include "service_test_support.hpp"
#include "support/serve_process.hpp"
#include "support/service_deployment.hpp"

namespace hetsched {
namespace {

class ServeTwinCli : public ::testing::TestWithParam<std::string> {};

TEST_P(ServeTwinCli, ServeOnTheTwinAndSimulateGiveTheSameSchedule) {
  const std::string policy = GetParam();
  testing::TempDir dir;
  const std::string source(HETSCHED_SOURCE_DIR);
  const std::string cluster_file = source + "/examples/cluster.yaml";
  const std::string workload = testing::example_workload_without_cluster();
  std::ofstream(dir.file("workload.yaml")) << workload;
  const std::string token = "twin-cli-test-token-0123456789";
  std::ofstream(dir.file("token")) << token << "\n";

  // hetsched simulate --schedule: every task's device, start and finish.
  const testing::CliResult simulated = testing::run_cli(
      "simulate --cluster " + cluster_file + " --workload " + dir.file("workload.yaml") +
      " --policy " + policy + " --seed 1 --quiet --schedule " + dir.file("schedule.json"));
  ASSERT_EQ(simulated.status, 0) << simulated.err;
  const nlohmann::json schedule =
      nlohmann::json::parse(read_text_file(dir.file("schedule.json"), "schedule")).at(0);

  // hetsched serve on the twin, as fast as it goes.
  ServeProcess serve(HETSCHED_CLI_PATH, {"--state", "sqlite:" + dir.file("state.db"), "--engine",
                                         "sim:" + cluster_file, "--time-scale", "max", "--policy",
                                         policy, "--token-file", dir.file("token")});
  const HttpAnswer created = http_call(serve.address(), "POST", "/v1/jobs", token, workload);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::vector<std::uint64_t> ids =
      nlohmann::json::parse(created.body).at("ids").get<std::vector<std::uint64_t>>();
  std::map<std::string, nlohmann::json> served;  // "job/task" -> the task's record
  for (const nlohmann::json& job : testing::ended_jobs(serve.address(), token, ids)) {
    ASSERT_EQ(job.at("state"), "completed") << job.dump(2);
    for (const nlohmann::json& task : job.at("tasks"))
      served[job.at("name").get<std::string>() + "/" + task.at("name").get<std::string>()] = task;
  }

  ASSERT_EQ(schedule.at("tasks").size(), served.size());
  for (const nlohmann::json& run : schedule.at("tasks")) {
    const std::string name =
        run.at("job").get<std::string>() + "/" + run.at("task").get<std::string>();
    SCOPED_TRACE(name);
    ASSERT_EQ(served.count(name), 1u);
    const nlohmann::json& task = served.at(name);
    EXPECT_EQ(task.at("device"), run.at("device"));
    EXPECT_EQ(task.at("started_seconds").get<double>(), run.at("start_seconds").get<double>());
    EXPECT_EQ(task.at("finished_seconds").get<double>(), run.at("finish_seconds").get<double>());
  }
}

INSTANTIATE_TEST_SUITE_P(StaticAndOnline, ServeTwinCli,
                         ::testing::Values(std::string("heft"), std::string("greedy-eft")),
                         testing::policy_test_name<::testing::TestParamInfo<std::string>>);

}  // namespace
}  // namespace hetsched
