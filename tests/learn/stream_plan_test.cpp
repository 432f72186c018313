// The stream's plans (StreamPlan): jobs are planned one after the other in the order
// given, each around the plans before it; tasks already placed stay where they are and
// their successors are planned around them; each device's sequence lists the planned
// tasks not yet placed, job by job, and its head skips those placed since. The expected
// plans are worked out by hand on two devices with explicit run times and a network that
// moves one byte a second.
#include "hetsched/learn/stream_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "hetsched/perf/roofline_model.hpp"
#include "random_dag.hpp"

namespace hetsched {
namespace {

Job job_of(const std::string& name, std::vector<std::vector<double>> costs,
           std::vector<Edge> edges = {}) {
  Job job;
  job.name = name;
  for (std::vector<double>& cost : costs) {
    Task task;
    task.name = name + std::to_string(job.tasks.size());
    task.cost_seconds = std::move(cost);
    job.tasks.push_back(std::move(task));
  }
  job.edges = std::move(edges);
  return job;
}

// The snapshot's state, every task pending and every device free unless a test says so.
struct StreamFixture {
  Cluster cluster = uniform_cost_cluster(2);
  RooflineModel perf{cluster};
  Workload workload;  // the graph views it
  TaskGraph graph;
  std::vector<double> available{0.0, 0.0};
  std::vector<DeviceId> placement;
  std::vector<std::uint8_t> pstate;
  std::vector<TaskState> state;
  std::vector<double> finish;

  explicit StreamFixture(Workload jobs) : workload(std::move(jobs)), graph(workload) {
    const std::size_t n = graph.task_count();
    placement.assign(n, kUnplaced);
    pstate.assign(n, 0);
    state.assign(n, TaskState::pending);
    finish.assign(n, 0.0);
  }
  ClusterSnapshot at(double now) const {
    return {now, cluster, graph, perf, available, placement, pstate, state, finish};
  }
};

std::vector<TaskIndex> in(std::span<const TaskIndex> sequence) {
  return {sequence.begin(), sequence.end()};
}

// The planned device of each of the graph's first `tasks` tasks.
std::vector<DeviceId> devices_of(const StreamPlan& plan, TaskIndex tasks) {
  std::vector<DeviceId> devices;
  for (TaskIndex t = 0; t < tasks; ++t) devices.push_back(plan.device(t));
  return devices;
}

TEST(StreamPlan, EachJobIsPlannedAroundThePlansOfTheJobsBeforeIt) {
  // Job 0 (task 0): 1 s on device 0, 4 s on device 1. Job 1 (tasks 1 and 2, independent):
  // 1 s on device 0, 1.5 s on device 1.
  StreamFixture f(
      Workload{.jobs = {job_of("short", {{1, 4}}), job_of("long", {{1, 1.5}, {1, 1.5}})}});
  StreamPlan plan;
  const JobIndex short_first[] = {0, 1};
  plan.plan(f.at(0), short_first);
  // Task 0 holds device 0 for [0, 1]; then task 1 finishes first on device 1 (1.5 against
  // 2) and task 2 on device 0 after task 0 (2 against 3).
  EXPECT_EQ(devices_of(plan, 3), (std::vector<DeviceId>{0, 1, 0}));
  EXPECT_DOUBLE_EQ(plan.start_seconds(2), 1.0);
  EXPECT_EQ(in(plan.sequence(0)), (std::vector<TaskIndex>{0, 2}));
  EXPECT_EQ(in(plan.sequence(1)), (std::vector<TaskIndex>{1}));

  // The other order: job 1 over free devices (task 1 on device 0, task 2 on device 1),
  // then task 0 on device 0 after task 1 (finish 2 against 5.5 on device 1).
  const JobIndex long_first[] = {1, 0};
  plan.plan(f.at(0), long_first);
  EXPECT_EQ(devices_of(plan, 3), (std::vector<DeviceId>{0, 0, 1}));
  EXPECT_DOUBLE_EQ(plan.start_seconds(0), 1.0);
  EXPECT_EQ(in(plan.sequence(0)), (std::vector<TaskIndex>{1, 0}));
  EXPECT_EQ(in(plan.sequence(1)), (std::vector<TaskIndex>{2}));
}

TEST(StreamPlan, TasksAlreadyPlacedStayAndTheRestIsPlannedAroundThem) {
  // A chain: task 0 → task 1, 2 bytes (2 s between devices), 1 s each on either device.
  // At time 1, task 0 runs on device 1 until 3; device 0 is free.
  StreamFixture f(Workload{.jobs = {job_of("chain", {{1, 1}, {1, 1}}, {Edge{0, 1, 2.0}})}});
  f.placement[0] = 1;
  f.state[0] = TaskState::running;
  f.finish[0] = 3.0;
  f.available = {1.0, 3.0};
  StreamPlan plan;
  const JobIndex jobs[] = {0};
  plan.plan(f.at(1.0), jobs);
  // Task 1 on device 1 starts when task 0 ends (3), on device 0 only when its input has
  // moved (5): device 1. Without task 0's placement it would start at once on device 0.
  EXPECT_EQ(plan.device(1), 1u);
  EXPECT_DOUBLE_EQ(plan.start_seconds(1), 3.0);
  EXPECT_TRUE(plan.sequence(0).empty());
  EXPECT_EQ(in(plan.sequence(1)), (std::vector<TaskIndex>{1}));
  EXPECT_EQ(plan.device(0), kNoDevice);  // placed before any plan: none of its own
}

TEST(StreamPlan, TheHeadIsTheFirstTaskOfTheSequenceNotYetPlaced) {
  StreamFixture f(
      Workload{.jobs = {job_of("short", {{1, 4}}), job_of("long", {{1, 1.5}, {1, 1.5}})}});
  StreamPlan plan;
  EXPECT_EQ(plan.head(f.at(0), 0), StreamPlan::kNoTask);  // nothing planned yet
  const JobIndex jobs[] = {0, 1};
  plan.plan(f.at(0), jobs);
  EXPECT_EQ(plan.head(f.at(0), 0), 0u);
  EXPECT_TRUE(plan.is_head(f.at(0), 0));
  EXPECT_FALSE(plan.is_head(f.at(0), 2));
  f.placement[0] = 0;
  EXPECT_EQ(plan.head(f.at(0), 0), 2u);
  EXPECT_TRUE(plan.is_head(f.at(0), 2));
  f.placement[2] = 0;
  EXPECT_EQ(plan.head(f.at(0), 0), StreamPlan::kNoTask);
  EXPECT_EQ(plan.head(f.at(0), 1), 1u);
  EXPECT_EQ(plan.head(f.at(0), 7), StreamPlan::kNoTask);  // no such device
}

}  // namespace
}  // namespace hetsched
