// The twin predicts what the service does for job streams too, through the command line: a
// stream is submitted over REST to `hetsched serve --engine sim:C --time-scale max`, and
// `hetsched simulate --cluster C --gang-placement pack --schedule F` runs it; every job has
// the same first node and device type, start, finish and number of moves in both — for a
// queue-mode policy with EASY backfilling, for a round-mode (Gavel-style) policy, and for a
// queue-mode policy under the fragmentation-aware device placement (`--device-placement`).
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

constexpr const char* kCliStreamCluster = R"(nodes:
  - {name: h100, count: 2, rack: r0, devices: [{model: H100-SXM, count: 4}]}
  - {name: a100, rack: r1, devices: [{model: A100-80GB, count: 4}]}
)";

constexpr const char* kCliStreamJobs = R"(kind: stream
jobs:
  - {name: resnet, user: ann, gang: 4, steps: 40000, arrival: 0, rates: {H100-SXM: 20, A100-80GB: 11}}
  - {name: bert, user: bob, gang: 2, steps: 30000, arrival: 0, rates: {H100-SXM: 12, A100-80GB: 9}}
  - {name: gpt, user: cy, gang: 4, steps: 90000, arrival: 60, rates: {H100-SXM: 30, A100-80GB: 14}}
  - {name: rec, user: bob, gang: 1, steps: 8000, arrival: 60, rates: {H100-SXM: 6, A100-80GB: 5.5}}
  - {name: lm, user: cy, gang: 4, steps: 60000, arrival: 120, rates: {H100-SXM: 25, A100-80GB: 12}}
  - {name: unet, user: dee, gang: 2, steps: 20000, arrival: 200, rates: {A100-80GB: 7}}
  - {name: late, user: dee, gang: 2, steps: 10000, arrival: 900, rates: {H100-SXM: 8, A100-80GB: 6}}
)";

struct CliStreamCase {
  std::string policy;
  bool backfill = false;
  std::string device_placement = "most-free-type";
};

class ServeTwinStreamCli : public ::testing::TestWithParam<CliStreamCase> {};

TEST_P(ServeTwinStreamCli, ServeOnTheTwinAndSimulateGiveTheSameStreamSchedule) {
  const auto& [policy, backfill, device_placement] = GetParam();
  testing::TempDir dir;
  std::ofstream(dir.file("cluster.yaml")) << kCliStreamCluster;
  std::ofstream(dir.file("jobs.yaml")) << kCliStreamJobs;
  const std::string token = "twin-stream-cli-token-0123456789";
  std::ofstream(dir.file("token")) << token << "\n";
  const std::string easy =
      (backfill ? " --backfill" : "") + std::string(" --device-placement ") + device_placement;

  const testing::CliResult simulated =
      testing::run_cli("simulate --cluster " + dir.file("cluster.yaml") + " --workload " +
                       dir.file("jobs.yaml") + " --gang-placement pack --policy " + policy + easy +
                       " --quiet --schedule " + dir.file("schedule.json"));
  ASSERT_EQ(simulated.status, 0) << simulated.err;
  const nlohmann::json schedule =
      nlohmann::json::parse(read_text_file(dir.file("schedule.json"), "schedule")).at(0);
  ASSERT_EQ(schedule.at("policy"), policy);

  std::vector<std::string> arguments{"--state",         "sqlite:" + dir.file("state.db"),
                                     "--engine",        "sim:" + dir.file("cluster.yaml"),
                                     "--time-scale",    "max",
                                     "--stream-policy", policy,
                                     "--token-file",    dir.file("token")};
  if (backfill) arguments.push_back("--backfill");
  arguments.insert(arguments.end(), {"--device-placement", device_placement});
  ServeProcess serve(HETSCHED_CLI_PATH, arguments);
  const HttpAnswer created = http_call(serve.address(), "POST", "/v1/jobs", token, kCliStreamJobs);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::vector<std::uint64_t> ids =
      nlohmann::json::parse(created.body).at("ids").get<std::vector<std::uint64_t>>();
  std::map<std::string, nlohmann::json> served;  // by job name
  for (const nlohmann::json& job : testing::ended_jobs(serve.address(), token, ids)) {
    ASSERT_EQ(job.at("state"), "completed") << job.dump(2);
    served[job.at("name").get<std::string>()] = job.at("tasks").at(0);
  }

  ASSERT_EQ(schedule.at("jobs").size(), served.size());
  int moves_in_all = 0;
  for (const nlohmann::json& run : schedule.at("jobs")) {
    const std::string name = run.at("job");
    SCOPED_TRACE(name);
    ASSERT_EQ(served.count(name), 1u);
    const nlohmann::json& gang = served.at(name);
    // The first placement: the gang, or the first round's lease.
    nlohmann::json first;
    int moves = 0;
    for (const nlohmann::json& event : gang.at("history")) {
      const std::string kind = event.at("event");
      if (first.is_null() && (kind == "planned" || kind == "round")) first = event;
      if (kind == "round" &&
          event.at("detail").get<std::string>().find("moved") != std::string::npos)
        ++moves;
    }
    ASSERT_FALSE(first.is_null()) << gang.dump(2);
    EXPECT_EQ(first.at("node"), run.at("node"));
    EXPECT_NE(first.at("device").get<std::string>().find(run.at("device_type").get<std::string>()),
              std::string::npos);
    EXPECT_EQ(gang.at("started_seconds").get<double>(), run.at("start_seconds").get<double>());
    EXPECT_EQ(gang.at("finished_seconds").get<double>(), run.at("finish_seconds").get<double>());
    EXPECT_EQ(moves, run.at("migrations").get<int>());
    moves_in_all += moves;
  }
  if (policy == "aware-las") {
    EXPECT_GT(moves_in_all, 0) << "rounds should move some job";
  }
}

INSTANTIATE_TEST_SUITE_P(QueueAndRounds, ServeTwinStreamCli,
                         ::testing::Values(CliStreamCase{"fifo", true}, CliStreamCase{"aware-las"},
                                           CliStreamCase{"fifo", false, "fragmentation-aware"}),
                         [](const ::testing::TestParamInfo<CliStreamCase>& info) {
                           std::string name = info.param.policy;
                           if (info.param.device_placement != "most-free-type")
                             name += "_" + info.param.device_placement;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name + (info.param.backfill ? "_easy" : "");
                         });

}  // namespace
}  // namespace hetsched
