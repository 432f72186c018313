// The extender asks the brain: the same cluster state is built twice, as a Cluster
// and workload by hand and as kube-scheduler's ExtenderArgs (a v1.NodeList and a
// v1.Pod), and for every registry policy the node the extender ranks first must be
// the node the policy chooses when the simulator runs the pod's task on that cluster.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/service/kube/kube_extender.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

using nlohmann::json;

// A node of the shared state: name, nvidia.com/gpu allocatable, product label, the
// catalog part that label names.
struct PolicyRankNode {
  const char* name;
  int gpus;
  const char* product;
  const char* part;
};

// A100s listed first and most plentiful, the fastest part (H100) second, T4s last.
constexpr PolicyRankNode kPolicyRankNodes[] = {
    {"gpu-a100", 8, "NVIDIA-A100-SXM4-80GB", "A100-80GB"},
    {"gpu-h100", 2, "NVIDIA-H100-80GB-HBM3", "H100-SXM"},
    {"gpu-t4", 4, "Tesla-T4", "T4"},
};

json policy_rank_node_list() {
  json items = json::array();
  for (const PolicyRankNode& node : kPolicyRankNodes)
    items.push_back(
        {{"metadata",
          {{"name", node.name}, {"labels", {{"nvidia.com/gpu.product", node.product}}}}},
         {"status",
          {{"allocatable",
            {{"cpu", "64"},
             {"memory", "512Gi"},
             {"nvidia.com/gpu", std::to_string(node.gpus)}}}}}});
  // A node without GPUs: filtered out (unresolvable) and scored 0, never in the snapshot.
  items.push_back({{"metadata", {{"name", "cpu-only"}}},
                   {"status", {{"allocatable", {{"cpu", "128"}, {"memory", "1Ti"}}}}}});
  return {{"kind", "NodeList"}, {"apiVersion", "v1"}, {"items", items}};
}

// One pod asking for one GPU for 2 PFLOP of fp16 matrix work holding 8 GiB.
json policy_rank_args() {
  json pod = {
      {"metadata",
       {{"name", "train-0"},
        {"namespace", "ml"},
        {"uid", "policy-rank-pod"},
        {"annotations",
         {{"hetsched.io/kernel-class", "dense_matmul"},
          {"hetsched.io/precision", "fp16"},
          {"hetsched.io/flops", "2e15"},
          {"hetsched.io/device-memory", "8Gi"}}}}},
      {"spec",
       {{"containers",
         {{{"name", "trainer"},
           {"resources",
            {{"requests", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}}}}}}}}}};
  return {{"Pod", pod}, {"Nodes", policy_rank_node_list()}, {"NodeNames", nullptr}};
}

// The same state by hand: one node per GPU node with one device per free GPU (the pod
// asks for one), and the pod's work as one task.
struct PolicyRankCluster {
  Cluster cluster;
  Workload workload;
  PolicyRankCluster() {
    for (const PolicyRankNode& node : kPolicyRankNodes) {
      Node n;
      n.name = node.name;
      cluster.add_node(n, std::vector<DeviceSpec>(node.gpus, *find_catalog_part(node.part)));
    }
    Task task;
    task.name = "ml/train-0";
    task.kernel = KernelClass::dense_matmul;
    task.precision = Precision::fp16;
    task.flops = 2e15;
    task.memory_bytes = 8.0 * 1024 * 1024 * 1024;
    Job job;
    job.name = "ml/train-0";
    job.tasks.push_back(task);
    workload.jobs.push_back(job);
  }
};

// The node the policy places the task on when the simulator runs it.
std::string policy_rank_choice(const PolicyRankCluster& state, std::string_view policy_name) {
  const RooflineModel perf(state.cluster);
  PolicyOptions options;
  options.time_budget_seconds = 0;
  const auto policy = make_policy(policy_name, options);
  Simulator simulator(state.cluster, state.workload, perf, *policy);
  const RunReport report = simulator.run();
  if (report.schedule.size() != 1) return "(unplaced)";
  return state.cluster.node(state.cluster.device(report.schedule[0].device).node).name;
}

std::map<std::string, int> policy_rank_scores(std::string_view policy_name) {
  KubeExtender extender(nullptr, policy_name);
  const ExtenderAnswer answer = extender.prioritize(policy_rank_args().dump());
  EXPECT_EQ(answer.http_status, 200) << answer.body;
  std::map<std::string, int> scores;
  for (const auto& entry : json::parse(answer.body)) scores[entry["Host"]] = entry["Score"];
  return scores;
}

TEST(KubeExtenderPolicy, TopRankedNodeIsTheNodeThePolicyChooses) {
  const PolicyRankCluster state;
  for (const PolicyInfo& info : policy_registry()) {
    SCOPED_TRACE(std::string(info.name));
    const std::string chosen = policy_rank_choice(state, info.name);
    const auto scores = policy_rank_scores(info.name);
    ASSERT_EQ(scores.size(), 4u);
    EXPECT_EQ(scores.at(chosen), kMaxExtenderPriority);
    for (const auto& [host, score] : scores) {
      if (host != chosen) {
        EXPECT_LT(score, kMaxExtenderPriority) << host;
      }
      EXPECT_GE(score, 0) << host;
    }
    EXPECT_EQ(scores.at("cpu-only"), 0);
  }
}

TEST(KubeExtenderPolicy, PolicyChangesTheRanking) {
  // greedy-eft: every GPU is free, so the earliest finish is the fastest part's.
  const auto eft = policy_rank_scores("greedy-eft");
  EXPECT_EQ(eft.at("gpu-h100"), kMaxExtenderPriority);
  EXPECT_LT(eft.at("gpu-a100"), eft.at("gpu-h100"));
  EXPECT_LT(eft.at("gpu-t4"), eft.at("gpu-a100"));
  // round-robin: the first device in turn, on the first node sent; the others keep
  // the order of their predicted finish.
  const auto turn = policy_rank_scores("round-robin");
  EXPECT_EQ(turn.at("gpu-a100"), kMaxExtenderPriority);
  EXPECT_LT(turn.at("gpu-h100"), kMaxExtenderPriority);
  EXPECT_GT(turn.at("gpu-h100"), turn.at("gpu-t4"));
  // The default policy is greedy-eft.
  KubeExtender default_extender;
  KubeExtender named(nullptr, "greedy-eft");
  EXPECT_EQ(default_extender.prioritize(policy_rank_args().dump()).body,
            named.prioritize(policy_rank_args().dump()).body);
}

TEST(KubeExtenderPolicy, UnknownPolicyNamesTheClosestOnes) {
  try {
    KubeExtender extender(nullptr, "greedy-ef");
    FAIL() << "an unknown policy was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("greedy-eft"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetsched
