// The learned-policy benchmark's lower bound on each job's completion time: worked by hand
// where the job's external input decides it and where its work spread decides it, and
// never above what a policy achieves in the twin on a stream on the default cluster.
#include <gtest/gtest.h>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/learn/learned_policy.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/training/learning_scenario.hpp"
#include "learned_benchmark.hpp"

namespace hetsched {
namespace {

// Two nodes of one device each, their NICs at 1 byte/s, the link inside a node free.
Cluster two_nodes_with_slow_nics() {
  Cluster cluster;
  const DeviceSpec& cpu = *find_catalog_part("EPYC-9654");
  for (int n = 0; n < 2; ++n) {
    Node node;
    node.name = "node" + std::to_string(n);
    node.link = IntraNodeLink{"free", 1e300, 0.0};
    node.nic_bandwidth = 1.0;
    cluster.add_node(node, {cpu});
  }
  cluster.network().latency_seconds = 0;
  return cluster;
}

Task task_costing(std::vector<double> seconds, double input_bytes = 0) {
  Task task;
  task.name = "t" + std::to_string(seconds.front());
  task.cost_seconds = std::move(seconds);
  task.input_bytes = input_bytes;
  return task;
}

std::vector<double> job_responses(const LearningScenario& s, SchedulingPolicy& policy) {
  const RooflineModel perf(s.cluster);
  Simulator simulator(s.cluster, s.workload, perf, policy, s.simulation);
  std::vector<double> responses;
  for (const JobResult& job : simulator.run().jobs) responses.push_back(job.response_seconds());
  return responses;
}

TEST(CompletionLowerBound, AnExternalInputKeepsTheFirstTaskByItsData) {
  // a reads 4 bytes held on node 0: 3 s on device 0 (the input is there at once), or 4 s
  // of NIC then 1 s on device 1; b follows a, 2 s anywhere. With transfers free the path
  // would be 1 + 2 = 3 s; with the input it is 3 + 2 = 5 s. Spread fractionally the work
  // takes 1.5 s (a on device 1, b split 3:1). So 5 s, what greedy-eft does in the twin.
  LearningScenario s{.name = "input", .cluster = two_nodes_with_slow_nics()};
  Job job;
  job.name = "job";
  job.data_node = 0;
  job.tasks = {task_costing({3, 1}, 4), task_costing({2, 2})};
  job.edges = {Edge{0, 1, 1}};
  s.workload.jobs = {job};
  const std::vector<double> bounds = completion_lower_bounds(s);
  ASSERT_EQ(bounds.size(), 1u);
  EXPECT_DOUBLE_EQ(bounds[0], 5.0);
  auto greedy = make_policy("greedy-eft", PolicyOptions{});
  EXPECT_DOUBLE_EQ(job_responses(s, *greedy)[0], 5.0);
}

TEST(CompletionLowerBound, WorkSpreadOverTheDevicesBoundsAWideJob) {
  // Four independent 2 s tasks without inputs on two devices: the path is 2 s, the spread
  // 4 s; a second job arriving later has its own bound, measured from its arrival.
  LearningScenario s{.name = "wide", .cluster = two_nodes_with_slow_nics()};
  Job wide;
  wide.name = "wide";
  for (int i = 0; i < 4; ++i) wide.tasks.push_back(task_costing({2, 2}));
  Job late;
  late.name = "late";
  late.arrival_seconds = 10;
  late.tasks = {task_costing({1, 6})};
  s.workload.jobs = {wide, late};
  const std::vector<double> bounds = completion_lower_bounds(s);
  ASSERT_EQ(bounds.size(), 2u);
  EXPECT_DOUBLE_EQ(bounds[0], 4.0);
  EXPECT_DOUBLE_EQ(bounds[1], 1.0);
}

TEST(CompletionLowerBound, NoPolicyBeatsItOnAStreamOnTheDefaultCluster) {
  DagStreamScenarioSpace space;
  space.jobs = 8;
  space.mean_interarrival_seconds = 0.5;
  space.cluster = default_cluster();
  Rng rng(7);
  const LearningScenario s = draw_dag_stream_scenario(space, rng);
  const std::vector<double> bounds = completion_lower_bounds(s);
  ASSERT_EQ(bounds.size(), s.workload.jobs.size());
  PolicyOptions shared;
  shared.plan_network = NetworkModel::one_port_nics;
  std::vector<std::unique_ptr<SchedulingPolicy>> policies;
  policies.push_back(make_policy("greedy-eft", PolicyOptions{}));
  policies.push_back(make_policy("heft", shared));
  policies.push_back(std::make_unique<LearnedPolicy>(builtin_policy_network()));
  for (const auto& policy : policies) {
    const std::vector<double> responses = job_responses(s, *policy);
    for (std::size_t j = 0; j < bounds.size(); ++j) {
      EXPECT_GT(bounds[j], 0) << j;
      EXPECT_GE(responses[j], bounds[j]) << policy->name() << ", job " << j;
    }
  }
}

}  // namespace
}  // namespace hetsched
