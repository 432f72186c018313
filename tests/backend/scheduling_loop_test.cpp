// The SchedulingLoop in an open-ended world: jobs appended to a growing TaskGraph
// while it runs, each with its own policy; nodes joining the cluster; a planned task
// whose device goes down placed again by its static planner; and the verdict that
// separates "not now" (unschedulable) from "never" (unresolvable).
#include "hetsched/backend/scheduling_loop.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/io/workload_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"

namespace hetsched {
namespace {

class RecordingBackend final : public Backend {
 public:
  std::string_view name() const override { return "recording"; }
  void launch(const Assignment& a) override { launched.push_back(a); }
  std::vector<Assignment> launched;
};

Cluster gpus(std::size_t nodes) {
  Cluster cluster;
  for (std::size_t n = 0; n < nodes; ++n) {
    Node node;
    node.name = "gpu-" + std::to_string(n);
    cluster.add_node(std::move(node), {*find_catalog_part("H100-SXM")});
  }
  return cluster;
}

constexpr const char* kChain = R"(
jobs:
  - name: chain
    tasks:
      - {name: a, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e9}
      - {name: b, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e9, after: [a]}
      - {name: c, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e9, after: [a]}
      - {name: d, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e9, after: [b, c]}
)";

constexpr const char* kBag = R"(
jobs:
  - name: bag
    tasks:
      - {name: x, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e9}
      - {name: y, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e9}
)";

Job parse_one(const char* text, const Cluster& cluster) {
  return parse_workload(text, "test", cluster).jobs.front();
}

std::set<std::pair<TaskIndex, double>> edges(std::span<const Dependency> list) {
  std::set<std::pair<TaskIndex, double>> out;
  for (const Dependency& d : list) out.insert({d.task, d.bytes});
  return out;
}

TEST(TaskGraph, AppendedJobsNumberAndLinkTheirTasksAsAWholeWorkloadDoes) {
  const Cluster cluster = gpus(2);
  Workload whole;
  // Jobs without edges before, between and after those with edges.
  whole.jobs = {parse_one(kBag, cluster),   parse_one(kChain, cluster), parse_one(kBag, cluster),
                parse_one(kChain, cluster), parse_one(kChain, cluster), parse_one(kBag, cluster)};
  const TaskGraph built(whole);
  TaskGraph grown;
  EXPECT_EQ(grown.task_count(), 0u);
  EXPECT_EQ(grown.job_count(), 0u);
  for (const Job& job : whole.jobs) {
    const TaskIndex before = static_cast<TaskIndex>(grown.task_count());
    const JobIndex j = grown.append_job(job);
    EXPECT_EQ(grown.first_task(j), before);
  }
  ASSERT_EQ(grown.task_count(), built.task_count());
  ASSERT_EQ(grown.job_count(), built.job_count());
  EXPECT_EQ(grown.edge_count(), built.edge_count());
  for (TaskIndex t = 0; t < built.task_count(); ++t) {
    EXPECT_EQ(grown.job_of(t), built.job_of(t));
    EXPECT_EQ(grown.task(t).name, built.task(t).name);
    EXPECT_EQ(edges(grown.predecessors(t)), edges(built.predecessors(t))) << t;
    EXPECT_EQ(edges(grown.successors(t)), edges(built.successors(t))) << t;
  }
  EXPECT_EQ(grown.edge_count(), 12u);
  ASSERT_EQ(built.predecessors(3).size(), 1u);  // the first chain's b, after its a
  EXPECT_EQ(built.predecessors(3).front().task, 2u);
  EXPECT_TRUE(built.predecessors(0).empty());
  EXPECT_TRUE(built.successors(17).empty());  // the last bag's last task
  EXPECT_EQ(grown.topological_order(3), built.topological_order(3));
  EXPECT_EQ(grown.topological_order(5), built.topological_order(5));
}

TEST(TaskGraph, IndependentTasksHaveNoEdges) {
  const Cluster cluster = gpus(1);
  Workload bags;
  bags.jobs = {parse_one(kBag, cluster), parse_one(kBag, cluster)};
  const TaskGraph graph(bags);
  ASSERT_EQ(graph.task_count(), 4u);
  EXPECT_EQ(graph.edge_count(), 0u);
  for (TaskIndex t = 0; t < graph.task_count(); ++t) {
    EXPECT_TRUE(graph.predecessors(t).empty());
    EXPECT_TRUE(graph.successors(t).empty());
  }
  EXPECT_EQ(graph.topological_order(1), (std::vector<TaskIndex>{2, 3}));
}

TEST(SchedulingLoop, JobsArriveWhileItRunsEachDecidedByItsOwnPolicy) {
  const Cluster cluster = gpus(2);
  const RooflineModel perf(cluster);
  TaskGraph graph;
  RecordingBackend backend;
  const auto heft = make_policy("heft", {});
  const auto greedy = make_policy("greedy-eft", {});
  SchedulingLoop loop(cluster, graph, perf, *heft, backend);

  // A static planner places the whole job when it arrives.
  const JobIndex planned = graph.append_job(parse_one(kChain, cluster));
  loop.job_arrived(planned, 0.0);
  loop.decide(0.0);
  EXPECT_EQ(backend.launched.size(), 4u);

  // An online policy is offered a task once its inputs are done.
  const JobIndex online = graph.append_job(parse_one(kChain, cluster));
  loop.job_arrived(online, 1.0, greedy.get());
  loop.decide(1.0);
  ASSERT_EQ(backend.launched.size(), 5u);
  const TaskIndex a = graph.first_task(online);
  EXPECT_EQ(backend.launched.back().task, a);
  EXPECT_EQ(backend.launched.back().planned_start_seconds, kAppend);      // greedy-eft's mark
  EXPECT_EQ(loop.verdict(a + 1).status, PlacementStatus::unschedulable);  // waits for a
  loop.task_started(a, 2.0);
  loop.task_finished(a, 3.0);
  loop.decide(3.0);
  EXPECT_EQ(backend.launched.size(), 7u);  // b and c
  for (TaskIndex t = a; t < a + 3; ++t) EXPECT_NE(loop.placement(t), kUnplaced);
  EXPECT_EQ(loop.placement(a + 3), kUnplaced);
}

TEST(SchedulingLoop, ANodeThatJoinsMakesAnUnresolvableTaskPlaceable) {
  Cluster cluster = gpus(1);
  const RooflineModel perf(cluster);
  TaskGraph graph;
  RecordingBackend backend;
  const auto policy = make_policy("greedy-eft", {});
  SchedulingLoop loop(cluster, graph, perf, *policy, backend);
  Job tpu_job;
  tpu_job.name = "tpu";
  Task task;
  task.name = "on-tpu";
  task.kernel = KernelClass::dense_matmul;
  task.precision = Precision::fp16;
  task.flops = 1e12;
  task.bytes = 1e9;
  task.allowed_kinds = DeviceKindSet::none();
  task.allowed_kinds.insert(DeviceKind::tpu);
  tpu_job.tasks.push_back(task);
  const JobIndex j = graph.append_job(tpu_job);
  loop.job_arrived(j, 0.0);
  loop.decide(0.0);
  EXPECT_TRUE(backend.launched.empty());
  const PlacementVerdict never = loop.verdict(graph.first_task(j));
  EXPECT_EQ(never.status, PlacementStatus::unresolvable);
  EXPECT_NE(never.reason.find("on-tpu"), std::string::npos) << never.reason;

  Node node;
  node.name = "tpu-0";
  const NodeId added = cluster.add_node(std::move(node), {*find_catalog_part("TPU-v5p")});
  loop.cluster_grew(5.0);
  const DeviceId tpu = cluster.node(added).devices.front();
  loop.device_down(tpu, 5.0);
  const PlacementVerdict not_now = loop.verdict(graph.first_task(j));
  EXPECT_EQ(not_now.status, PlacementStatus::unschedulable);
  EXPECT_NE(not_now.reason.find("is up"), std::string::npos) << not_now.reason;
  loop.device_up(tpu, 6.0);
  loop.decide(6.0);
  ASSERT_EQ(backend.launched.size(), 1u);
  EXPECT_EQ(backend.launched.front().device, tpu);
  EXPECT_EQ(loop.verdict(graph.first_task(j)).status, PlacementStatus::placed);
}

TEST(SchedulingLoop, AStaticPlannersTasksOffADownedDeviceArePlacedAgainOnTheOneLeft) {
  const Cluster cluster = gpus(2);
  const RooflineModel perf(cluster);
  TaskGraph graph;
  RecordingBackend backend;
  const auto heft = make_policy("heft", {});
  SchedulingLoop loop(cluster, graph, perf, *heft, backend);
  const JobIndex j = graph.append_job(parse_one(R"(
jobs:
  - name: four
    tasks:
      - {name: t0, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9}
      - {name: t1, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9}
      - {name: t2, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9}
      - {name: t3, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9}
)",
                                                cluster));
  loop.job_arrived(j, 0.0);
  loop.decide(0.0);
  ASSERT_EQ(backend.launched.size(), 4u);
  const TaskIndex first = graph.first_task(j);
  std::size_t on_one = 0;
  for (TaskIndex t = first; t < first + 4; ++t) on_one += loop.placement(t) == 1;
  ASSERT_EQ(on_one, 2u);  // HEFT spreads them, two per GPU
  const std::vector<TaskIndex> moved = loop.device_down(1, 0.5);
  ASSERT_EQ(moved.size(), 2u);
  for (TaskIndex t : moved) EXPECT_EQ(loop.placement(t), kUnplaced);
  loop.decide(0.5);
  for (TaskIndex t = first; t < first + 4; ++t) EXPECT_EQ(loop.placement(t), 0u) << t;
  EXPECT_EQ(backend.launched.size(), 6u);
  EXPECT_EQ(loop.refused_count(), 0u);
}

}  // namespace
}  // namespace hetsched
