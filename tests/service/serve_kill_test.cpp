// `hetsched serve` as a child process: kill -9 at a point the seeded Rng draws, during
// submissions from several client threads; after the restart every acknowledged job is
// there and runs to completion. Also: bad flags are one line and exit status 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "../support/cli_runner.hpp"
#include "hetsched/service/service_benchmark.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::TempDir;

TEST(ServeProcess, KillNineDuringSubmissionsLosesNoAcknowledgedJob) {
  TempDir dir;
  const std::string token = "kill-test-token-0123456789";
  {
    std::FILE* f = std::fopen(dir.file("token").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "%s\n", token.c_str());
    std::fclose(f);
  }
  RestartDeployment deployment(HETSCHED_CLI_PATH,
                               {"--state", "sqlite:" + dir.file("state.db"), "--engine", "sim",
                                "--token-file", dir.file("token"), "--time-scale", "1000000"},
                               token);
  Rng rng(2026);
  const AckedLossResult result = measure_acked_loss(deployment, 150, 4, rng);
  EXPECT_EQ(result.acknowledged, 150u);  // every submission was retried until accepted
  EXPECT_GT(result.killed_after, 0u);
  EXPECT_EQ(result.lost, 0u);
  const std::set<std::uint64_t> acknowledged(result.acknowledged_ids.begin(),
                                             result.acknowledged_ids.end());
  // Every acknowledged job completes after the restart.
  const std::string address = deployment.addresses().at(0);
  std::size_t completed = 0;
  HttpAnswer last;
  ASSERT_TRUE(eventually([&] {
    const HttpAnswer answer = http_call(address, "GET", "/v1/jobs", token);
    last = answer;
    if (answer.status != 200) return false;
    completed = 0;
    const nlohmann::json listing = nlohmann::json::parse(answer.body);
    for (const auto& job : listing.at("jobs"))
      if (acknowledged.count(job.at("id").get<std::uint64_t>()) && job.at("state") == "completed")
        ++completed;
    return completed == acknowledged.size();
  })) << completed
      << " of " << acknowledged.size() << " completed; " << address << " answered " << last.status
      << ": " << last.body.substr(0, 300);
}

TEST(ServeProcess, BadFlagsAreOneLineAndExitStatusTwo) {
  for (const char* flags :
       {"--state etcdd://127.0.0.1:2379", "--engine slurmm", "--listen nonsense",
        "--policy hefty --state sqlite:/tmp/hetsched-x/s.db", "--time-scale -1",
        "--time-scale maximum", "--engine slurm --time-scale max"}) {
    const auto r = testing::run_cli(std::string("serve ") + flags);
    EXPECT_EQ(r.status, 2) << flags << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
  }
}

}  // namespace
}  // namespace hetsched
