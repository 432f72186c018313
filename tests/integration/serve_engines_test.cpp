// `hetsched serve` end to end on the loopback testbed: DAG jobs submitted over REST
// run on the real Slurm where the policy placed them (checked with scontrol), every
// registered policy keeps the conformance invariants there, a node
// drained mid-run has its waiting work moved, and replicas on the real etcd hand
// leadership over after kill -9 of the leader without losing an acknowledged job.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "hetsched/core/rng.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "service_benchmark.hpp"
#include "support/replica_deployment.hpp"
#include "support/serve_process.hpp"
#include "testbed.hpp"

namespace hetsched {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::eventually;
using testing::unique_word;

constexpr const char* kToken = "integration-test-token-0123456789abcdef";

// A fresh directory with a token file, removed afterwards.
struct ServeDir {
  fs::path path = fs::temp_directory_path() / unique_word("hetsched-serve");
  ServeDir() {
    fs::create_directories(path);
    std::ofstream(path / "token") << kToken << "\n";
    fs::permissions(path / "token", fs::perms::owner_read | fs::perms::owner_write,
                    fs::perm_options::replace);
  }
  ~ServeDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string token_file() const { return (path / "token").string(); }
};

std::vector<std::string> slurm_serve_arguments(const ServeDir& dir, const std::string& tag) {
  return {"--state",         "sqlite:" + (dir.path / "state.db").string(),
          "--engine",        "slurm:" + testing::slurm_conf_path(),
          "--slurm-job-tag", tag,
          "--token-file",    dir.token_file(),
          "--policy",        "heft"};
}

// Submits over REST (with ?policy=NAME when one is given); the job's id.
std::uint64_t submit(const std::string& address, const std::string& yaml,
                     const std::string& policy = "") {
  const std::string path = policy.empty() ? "/v1/jobs" : "/v1/jobs?policy=" + policy;
  const HttpAnswer answer = http_call(address, "POST", path, kToken, yaml);
  EXPECT_EQ(answer.status, 201) << answer.body;
  return json::parse(answer.body).at("ids").at(0).get<std::uint64_t>();
}

json job_view(const std::string& address, std::uint64_t id) {
  const HttpAnswer answer = http_call(address, "GET", "/v1/jobs/" + std::to_string(id), kToken);
  if (answer.status != 200) return json::object();
  return json::parse(answer.body, nullptr, false);
}

bool job_ended(const json& job) {
  const std::string state = job.value("state", "");
  return state == "completed" || state == "failed" || state == "cancelled";
}

// Whether the job ended within `limit`; `job` holds its last view either way.
bool ended_within(const std::string& address, std::uint64_t id, std::chrono::seconds limit,
                  json& job) {
  return eventually(
      [&] {
        job = job_view(address, id);
        return job_ended(job);
      },
      limit);
}

std::map<std::string, std::string> scontrol_show_job(const std::string& job_id) {
  ProcessRequest request;
  request.argv = {"scontrol", "show", "job", job_id};
  request.environment = {{"SLURM_CONF", testing::slurm_conf_path()}};
  const ProcessResult result = run_process(request);
  std::map<std::string, std::string> fields;
  static const std::regex pair(R"(([A-Za-z:/]+)=(\S*))");
  for (std::sregex_iterator it(result.standard_output.begin(), result.standard_output.end(), pair),
       end;
       it != end; ++it) {
    fields.emplace((*it)[1].str(), (*it)[2].str());
  }
  return fields;
}

// The GRES word the testbed gives each node's accelerators.
std::string gres_of_testbed_node(const std::string& node) {
  if (node == "node1") return "gpu:h100";
  if (node == "node2") return "gpu:a100";
  return "tpu:v4";
}

TEST(ServeOnSlurm, DagJobRunsToCompletionWhereThePolicyPlacedIt) {
  ServeDir dir;
  ServeProcess server(HETSCHED_CLI_PATH, slurm_serve_arguments(dir, unique_word("serve-dag")));
  // A diamond: a → (b, c) → d, about a second each on these parts.
  const std::string yaml =
      "jobs:\n"
      "  - name: diamond\n"
      "    tasks:\n"
      "      - {name: a, kernel: dense_matmul, flops: 4.0e13, bytes: 1.0e9, kinds: [gpu, tpu]}\n"
      "      - {name: b, kernel: dense_matmul, flops: 4.0e13, bytes: 1.0e9, after: [a], kinds: "
      "[gpu, tpu]}\n"
      "      - {name: c, kernel: dense_matmul, flops: 4.0e13, bytes: 1.0e9, after: [a], kinds: "
      "[gpu, tpu]}\n"
      "      - {name: d, kernel: elementwise, flops: 1.0e11, bytes: 1.0e10, after: [b, c], kinds: "
      "[gpu, tpu]}\n";
  const std::uint64_t id = submit(server.address(), yaml);
  json job;
  ASSERT_TRUE(ended_within(server.address(), id, std::chrono::seconds(90), job)) << job.dump(2);
  ASSERT_EQ(job.at("state"), "completed") << job.dump(2);
  std::map<std::string, double> started, finished;
  for (const json& task : job.at("tasks")) {
    const std::string node = task.at("node");
    const std::string engine_id = task.at("engine_id");
    ASSERT_FALSE(engine_id.empty()) << task.dump();
    // Slurm's own view: the job of this task ran on the node the policy chose, with
    // the devices it chose, and completed.
    const auto slurm = scontrol_show_job(engine_id);
    EXPECT_EQ(slurm.at("JobName"), task.at("launch_key")) << task.dump();
    EXPECT_EQ(slurm.at("NodeList"), node) << task.dump();
    EXPECT_EQ(slurm.at("JobState"), "COMPLETED") << task.dump();
    EXPECT_NE(slurm.at("TresPerNode").find(gres_of_testbed_node(node)), std::string::npos)
        << slurm.at("TresPerNode") << " on " << node;
    started[task.at("name")] = task.at("started_at").get<double>();
    finished[task.at("name")] = task.at("finished_at").get<double>();
  }
  // Dependencies held on the real cluster.
  EXPECT_GE(started["b"], finished["a"]);
  EXPECT_GE(started["c"], finished["a"]);
  EXPECT_GE(started["d"], std::max(finished["b"], finished["c"]));
}

TEST(ServeOnSlurm, StreamGangRunsOnOneNodeWithItsGresAndCpuTasksGetCpus) {
  ServeDir dir;
  ServeProcess server(HETSCHED_CLI_PATH, slurm_serve_arguments(dir, unique_word("serve-gang")));
  // A gang of three under fifo, which is heterogeneity-agnostic as in the simulator: the
  // type with the most free devices, a tie here that the first type (node1's H100s) wins.
  const std::uint64_t gang = submit(server.address(),
                                    "kind: stream\njobs:\n  - {name: gang, gang: 3, steps: 2,\n"
                                    "     rates: {H100-SXM: 2, A100-80GB: 1}}\n");
  // A CPU-only task: it can run only on the nodes' CPUs, which Slurm's inventory gives.
  const std::uint64_t cpu =
      submit(server.address(),
             "jobs:\n  - name: on-cpu\n    tasks:\n      - {name: t, "
             "kernel: elementwise, flops: 1.0e9, bytes: 1.0e9, kinds: [cpu]}\n");
  json gang_job, cpu_job;
  ASSERT_TRUE(eventually(
      [&] {
        gang_job = job_view(server.address(), gang);
        cpu_job = job_view(server.address(), cpu);
        return job_ended(gang_job) && job_ended(cpu_job);
      },
      std::chrono::seconds(90)))
      << gang_job.dump(2) << cpu_job.dump(2);
  ASSERT_EQ(gang_job.at("state"), "completed") << gang_job.dump(2);
  ASSERT_EQ(cpu_job.at("state"), "completed") << cpu_job.dump(2);

  const json& gang_task = gang_job.at("tasks").at(0);
  EXPECT_EQ(gang_job.at("kind"), "stream");
  EXPECT_EQ(gang_task.at("node"), "node1");
  EXPECT_EQ(gang_task.at("gang_devices").size(), 3u);
  const auto gang_in_slurm = scontrol_show_job(gang_task.at("engine_id"));
  EXPECT_EQ(gang_in_slurm.at("JobName"), gang_task.at("launch_key"));
  EXPECT_EQ(gang_in_slurm.at("NodeList"), "node1");
  EXPECT_EQ(gang_in_slurm.at("JobState"), "COMPLETED");
  EXPECT_NE(gang_in_slurm.at("TresPerNode").find("gpu:h100:3"), std::string::npos)
      << gang_in_slurm.at("TresPerNode");

  const json& cpu_task = cpu_job.at("tasks").at(0);
  EXPECT_NE(cpu_task.at("device").get<std::string>().find(" core"), std::string::npos)
      << cpu_task.dump();
  const auto cpu_in_slurm = scontrol_show_job(cpu_task.at("engine_id"));
  EXPECT_EQ(cpu_in_slurm.at("NodeList"), cpu_task.at("node"));
  EXPECT_EQ(cpu_in_slurm.at("JobState"), "COMPLETED");
  EXPECT_EQ(cpu_in_slurm.at("CPUs/Task"), "1");
  EXPECT_EQ(cpu_in_slurm.count("TresPerNode"), 0u) << "a CPU task asked for GRES";
}

// A round-mode stream policy on Slurm, as Gavel runs on a cluster: a lease (one Slurm job)
// per round, each for one round of the model clock or until the job's work is done.
TEST(ServeOnSlurm, RoundModeStreamJobRunsAsOneSlurmJobPerRound) {
  ServeDir dir;
  std::vector<std::string> arguments = slurm_serve_arguments(dir, unique_word("serve-rounds"));
  arguments.insert(arguments.end(), {"--round-seconds", "1"});
  ServeProcess server(HETSCHED_CLI_PATH, arguments);
  // 25 steps at 10 steps/s: leases of 1 s, 1 s and 0.5 s.
  const std::uint64_t id =
      submit(server.address(),
             "kind: stream\njobs:\n  - {name: rounds, gang: 2, steps: 25, rates: {H100-SXM: 10}}\n",
             "las");
  json job;
  ASSERT_TRUE(eventually(
      [&] {
        job = job_view(server.address(), id);
        return job_ended(job);
      },
      std::chrono::seconds(90)))
      << job.dump(2);
  ASSERT_EQ(job.at("state"), "completed") << job.dump(2);
  const json& gang = job.at("tasks").at(0);
  std::set<std::string> lease_ids;
  int rounds = 0;
  for (const json& event : gang.at("history")) {
    if (event.at("event") == "round") ++rounds;
    if (event.at("event") == "launched") lease_ids.insert(event.at("detail").get<std::string>());
  }
  EXPECT_EQ(rounds, 3) << gang.dump(2);
  EXPECT_EQ(lease_ids.size(), 3u) << gang.dump(2);
  EXPECT_EQ(gang.at("attempts"), 3);
  const auto last_in_slurm = scontrol_show_job(gang.at("engine_id"));
  EXPECT_EQ(last_in_slurm.at("NodeList"), "node1");
  EXPECT_EQ(last_in_slurm.at("JobState"), "COMPLETED");
}

TEST(ServeOnSlurm, DrainingANodeMidRunMovesItsWaitingWork) {
  ServeDir dir;
  const std::string tag = unique_word("serve-drain");
  ServeProcess server(HETSCHED_CLI_PATH, slurm_serve_arguments(dir, tag));
  // Sixteen independent GPU tasks for eight GPUs: both GPU nodes get a queue.
  std::string yaml = "jobs:\n  - name: wide\n    tasks:\n";
  for (int t = 0; t < 16; ++t) {
    yaml += fmt::format(
        "      - {{name: t{}, kernel: dense_matmul, flops: 6.0e13, bytes: 1.0e9, kinds: [gpu]}}\n",
        t);
  }
  const std::uint64_t id = submit(server.address(), yaml);

  // As soon as the plan shows a node with tasks planned but not yet started, drain it.
  std::string drained;
  std::set<std::string> planned_there;
  json job;
  ASSERT_TRUE(eventually(
      [&] {
        job = job_view(server.address(), id);
        if (!job.contains("tasks")) return false;
        std::map<std::string, std::set<std::string>> planned_on;
        for (const json& task : job.at("tasks")) {
          if (task.at("state") == "planned") planned_on[task.at("node")].insert(task.at("name"));
        }
        if (planned_on.empty()) return false;
        drained = planned_on.begin()->first;
        planned_there = planned_on.begin()->second;
        return true;
      },
      std::chrono::seconds(30)))
      << job.dump(2);
  SlurmEngine slurm(testing::testbed_slurm_options(unique_word("drain-helper")));
  slurm.drain_node(drained, "hetsched integration test");
  // What had been handed to Slurm on that node by now may finish there.
  std::set<std::string> handed_over_before_drain;
  job = job_view(server.address(), id);
  for (const json& task : job.at("tasks")) {
    if (task.at("node") == drained && task.at("state") != "planned" &&
        task.at("state") != "waiting") {
      handed_over_before_drain.insert(task.at("name"));
    }
  }
  const bool ended = eventually(
      [&] {
        job = job_view(server.address(), id);
        return job_ended(job);
      },
      std::chrono::seconds(110));
  slurm.resume_node(drained);
  ASSERT_TRUE(ended) << job.dump(2);
  ASSERT_EQ(job.at("state"), "completed") << job.dump(2);
  std::size_t moved = 0;
  for (const json& task : job.at("tasks")) {
    const std::string name = task.at("name");
    const auto slurm_view = scontrol_show_job(task.at("engine_id"));
    EXPECT_EQ(slurm_view.at("NodeList"), task.at("node")) << name;
    if (slurm_view.at("NodeList") == drained) {
      EXPECT_TRUE(handed_over_before_drain.count(name))
          << name << " started on " << drained << " after it was drained";
    } else if (planned_there.count(name)) {
      ++moved;
    }
  }
  EXPECT_GT(moved, 0u) << "no task planned on " << drained << " moved elsewhere";
}

// The registry's conformance suite on the Slurm body: each registered policy decides a
// fork-join job (submitted with ?policy=NAME) through serve on the real Slurm, and it
// must complete with every task on a device that can run it (Slurm's own NodeList and
// GRES agree), after its inputs, and no device held by two tasks at once. One policy
// per test: a few Slurm jobs at a time, as Slurm's scheduler cycles allow in a timeout.
class SlurmBody : public ::testing::TestWithParam<std::string> {};

TEST_P(SlurmBody, EveryRegisteredPolicyKeepsTheInvariantsOnTheRealCluster) {
  ServeDir dir;
  ServeProcess server(HETSCHED_CLI_PATH, slurm_serve_arguments(dir, unique_word("serve-every")));
  const std::string yaml =
      "jobs:\n"
      "  - name: fork-join\n"
      "    tasks:\n"
      "      - {name: a, kernel: dense_matmul, flops: 1.0e13, bytes: 1.0e9, kinds: [gpu, tpu]}\n"
      "      - {name: b, kernel: dense_matmul, flops: 1.0e13, bytes: 1.0e9, after: [a], kinds: "
      "[gpu]}\n"
      "      - {name: c, kernel: dense_matmul, flops: 1.0e13, bytes: 1.0e9, after: [a], kinds: "
      "[gpu, tpu]}\n"
      "      - {name: d, kernel: elementwise, flops: 1.0e11, bytes: 1.0e9, after: [b, c], kinds: "
      "[gpu, tpu]}\n";
  const std::uint64_t id = submit(server.address(), yaml, GetParam());
  json job;
  ASSERT_TRUE(ended_within(server.address(), id, std::chrono::seconds(90), job)) << job.dump(2);
  ASSERT_EQ(job.at("state"), "completed") << job.dump(2);
  std::map<std::string, double> started, finished;
  std::map<std::string, std::vector<std::pair<double, double>>> held;  // by device
  for (const json& task : job.at("tasks")) {
    const std::string name = task.at("name");
    const std::string node = task.at("node");
    const auto slurm = scontrol_show_job(task.at("engine_id"));
    EXPECT_EQ(slurm.at("NodeList"), node) << task.dump();
    EXPECT_EQ(slurm.at("JobState"), "COMPLETED") << task.dump();
    EXPECT_NE(slurm.at("TresPerNode").find(gres_of_testbed_node(node)), std::string::npos);
    if (name == "b") {
      EXPECT_NE(node, "node3") << "b may run on GPUs only";
    }
    started[name] = task.at("started_at").get<double>();
    finished[name] = task.at("finished_at").get<double>();
    held[task.at("device")].emplace_back(started[name], finished[name]);
  }
  EXPECT_GE(started["b"], finished["a"]);
  EXPECT_GE(started["c"], finished["a"]);
  EXPECT_GE(started["d"], std::max(finished["b"], finished["c"]));
  for (auto& [device, spans] : held) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first) << "two tasks at once on " << device;
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, SlurmBody, ::testing::ValuesIn(policy_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

std::vector<std::string> etcd_serve_arguments(const ServeDir& dir, const std::string& space) {
  std::string endpoints;
  for (const auto& endpoint : testing::etcd_endpoints()) {
    endpoints += (endpoints.empty() ? "" : ",") + endpoint;
  }
  return {"--state",      "etcd://" + endpoints + "/" + space,
          "--engine",     "sim",
          "--token-file", dir.token_file(),
          "--time-scale", "1000"};
}

TEST(ServeOnEtcd, KillingTheLeaderHandsOverWithinFiveSecondsAndLosesNoAcknowledgedJob) {
  ServeDir dir;
  ReplicaDeployment replicas(HETSCHED_CLI_PATH, etcd_serve_arguments(dir, unique_word("handover")),
                             kToken, 2);
  const std::string first_leader = replicas.wait_for_leader(std::chrono::seconds(10));
  ASSERT_FALSE(first_leader.empty());
  // A follower redirects writes to the leader (once its election poll has seen the
  // leader's key: until then it answers 503, no leader known).
  for (const auto& address : replicas.addresses()) {
    if (address == first_leader) continue;
    HttpAnswer redirected;
    EXPECT_TRUE(eventually(
        [&] {
          redirected =
              http_call(address, "POST", "/v1/jobs", kToken, "jobs: []\n", "application/yaml");
          return redirected.status != 503;
        },
        std::chrono::seconds(5)));
    EXPECT_EQ(redirected.status, 307) << redirected.body;
    EXPECT_EQ(redirected.location.rfind(first_leader, 0), 0u) << redirected.location;
  }
  std::set<std::uint64_t> acknowledged;
  for (int i = 0; i < 20; ++i) {
    acknowledged.insert(submit(first_leader, fmt::format("jobs:\n  - name: before-{}\n    tasks:\n"
                                                         "      - {{name: t, kernel: elementwise, "
                                                         "flops: 1.0e9, bytes: 1.0e9}}\n",
                                                         i)));
  }
  // A follower answers reads from the leader's state: it redirects them there, and the
  // leader's answer lists every acknowledged job (a follower's own view would be empty).
  for (const auto& address : replicas.addresses()) {
    if (address == first_leader) continue;
    const HttpAnswer redirected = http_call(address, "GET", "/v1/jobs", kToken);
    ASSERT_EQ(redirected.status, 307) << redirected.body;
    ASSERT_EQ(redirected.location, first_leader + "/v1/jobs");
    const HttpAnswer followed = http_call(first_leader, "GET", "/v1/jobs", kToken);
    ASSERT_EQ(followed.status, 200);
    std::set<std::uint64_t> listed;
    const json listing = json::parse(followed.body);
    for (const json& job : listing.at("jobs")) listed.insert(job.at("id").get<std::uint64_t>());
    for (std::uint64_t id : acknowledged) EXPECT_TRUE(listed.count(id)) << "job " << id;
    const std::uint64_t one = *acknowledged.begin();
    EXPECT_EQ(http_call(address, "GET", "/v1/jobs/" + std::to_string(one), kToken).location,
              first_leader + "/v1/jobs/" + std::to_string(one));
  }
  replicas.kill_leader();
  const std::string next_leader = replicas.wait_for_leader(std::chrono::seconds(5));
  ASSERT_FALSE(next_leader.empty()) << "no follower took over within 5 s";
  EXPECT_NE(next_leader, first_leader);
  const HttpAnswer listed = http_call(next_leader, "GET", "/v1/jobs", kToken);
  ASSERT_EQ(listed.status, 200);
  std::set<std::uint64_t> present;
  const json listing = json::parse(listed.body);
  for (const json& job : listing.at("jobs")) present.insert(job.at("id").get<std::uint64_t>());
  for (std::uint64_t id : acknowledged) EXPECT_TRUE(present.count(id)) << "job " << id << " lost";
}

// A chain of `tasks` small tasks, replicated `count` times, as one workload text.
std::string chain_workload(const std::string& name, int tasks, int count) {
  std::string yaml = fmt::format("jobs:\n  - name: {}\n    count: {}\n    tasks:\n", name, count);
  for (int t = 0; t < tasks; ++t)
    yaml +=
        fmt::format("      - {{name: t{}, kernel: elementwise, flops: 1.0e6, bytes: 1.0e6{}}}\n", t,
                    t == 0 ? "" : fmt::format(", after: [t{}]", t - 1));
  return yaml;
}

TEST(ServeOnEtcd, LargeAcceptedJobsNeverWedgeTheLeader) {
  // The issue's case: 50 replicas of a 100-task chain (their records once made one
  // transaction over etcd's 2 MiB message limit, and every later step failed), and one
  // job of 5,000 tasks whose own record is over etcd's request limit. Every job, and a
  // one-task job sent after them, completes.
  ServeDir dir;
  std::vector<std::string> arguments = etcd_serve_arguments(dir, unique_word("large"));
  arguments.back() = "max";  // --time-scale: the twin runs from event to event
  ReplicaDeployment replica(HETSCHED_CLI_PATH, arguments, kToken, 1);
  const std::string leader = replica.wait_for_leader(std::chrono::seconds(10));
  ASSERT_FALSE(leader.empty());
  const HttpAnswer replicated =
      http_call(leader, "POST", "/v1/jobs", kToken, chain_workload("replicated", 100, 50));
  ASSERT_EQ(replicated.status, 201) << replicated.body;
  const std::uint64_t large = submit(leader, chain_workload("large", 5000, 1));
  const std::uint64_t small = submit(leader, chain_workload("small", 1, 1));
  json job;
  ASSERT_TRUE(ended_within(leader, small, std::chrono::seconds(60), job)) << job.dump();
  EXPECT_EQ(job.at("state"), "completed") << job.value("reason", "");
  ASSERT_TRUE(ended_within(leader, large, std::chrono::seconds(120), job)) << job.dump();
  EXPECT_EQ(job.at("state"), "completed") << job.value("reason", "");
  const json replicated_ids = json::parse(replicated.body).at("ids");
  for (const json& id : replicated_ids) {
    ASSERT_TRUE(ended_within(leader, id.get<std::uint64_t>(), std::chrono::seconds(60), job));
    EXPECT_EQ(job.at("state"), "completed") << job.value("reason", "");
  }
}

TEST(ServeOnEtcd, KillNineDuringSubmissionsLosesNoAcknowledgedJob) {
  ServeDir dir;
  ReplicaDeployment replicas(HETSCHED_CLI_PATH, etcd_serve_arguments(dir, unique_word("kill")),
                             kToken, 2);
  Rng rng(7);
  const AckedLossResult loss = measure_acked_loss(replicas, 200, 4, rng);
  EXPECT_GT(loss.killed_after, 0u);
  EXPECT_GT(loss.acknowledged, loss.killed_after);
  EXPECT_EQ(loss.lost, 0u);
}

}  // namespace
}  // namespace hetsched
