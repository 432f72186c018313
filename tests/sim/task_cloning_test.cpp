// Task cloning against stragglers in the simulator: a task on a device slowed ten
// times is cloned on an idle device once it has run 1.5 × its predicted time; the
// clone wins, the original is cancelled and its device time and energy are counted.
// Without a straggler nothing is cloned, and a threshold of 1 or less is bad input.
#include <gtest/gtest.h>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

Cluster h100_and_a100() {
  Cluster cluster;
  Node node;
  node.name = "n0";
  cluster.add_node(node, {*find_catalog_part("H100-SXM"), *find_catalog_part("A100-80GB")});
  return cluster;
}

Workload one_matmul() {
  Workload workload;
  Job job;
  job.name = "job";
  job.arrival_seconds = 1;  // after the straggler struck
  Task task;
  task.name = "matmul";
  task.kernel = KernelClass::dense_matmul;
  task.precision = Precision::fp16;
  task.flops = 1e15;
  job.tasks.push_back(task);
  workload.jobs.push_back(job);
  return workload;
}

FaultOptions straggler_on_h100(double slowdown) {
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;
  if (slowdown > 1)
    o.explicit_failures.push_back(FailureEvent{0, FailureKind::straggler, 0, 1e6, slowdown});
  return o;
}

RunReport run_with_faults(const Cluster& cluster, const Workload& workload, FaultOptions faults) {
  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  Simulator sim(cluster, workload, perf, *policy, SimulationOptions{.faults = std::move(faults)});
  return sim.run();
}

TEST(TaskCloning, CloneOnAnIdleDeviceBeatsTheStraggler) {
  const Cluster cluster = h100_and_a100();
  const Workload workload = one_matmul();
  const RooflineModel perf(cluster);
  const double on_h100 = perf.task_seconds(workload.jobs[0].tasks[0], cluster.device(0), 0);
  const double on_a100 = perf.task_seconds(workload.jobs[0].tasks[0], cluster.device(1), 0);
  ASSERT_LT(on_h100, on_a100);  // greedy-eft puts it on the H100
  ASSERT_LT(1.5 * on_h100 + on_a100, 10 * on_h100);

  const RunReport slow = run_with_faults(cluster, workload, straggler_on_h100(10));
  ASSERT_EQ(slow.tasks_completed, 1u);
  EXPECT_NEAR(slow.makespan_seconds, 1 + 10 * on_h100, 1e-9);
  EXPECT_EQ(slow.faults->clones_started, 0u);

  FaultOptions cloning = straggler_on_h100(10);
  cloning.clone.enabled = true;
  cloning.clone.threshold = 1.5;
  const RunReport cloned = run_with_faults(cluster, workload, cloning);
  ASSERT_EQ(cloned.tasks_completed, 1u);
  // The clone starts at 1 + 1.5 × the H100's time and runs the A100's time.
  EXPECT_NEAR(cloned.makespan_seconds, 1 + 1.5 * on_h100 + on_a100, 1e-9);
  EXPECT_EQ(cloned.faults->clones_started, 1u);
  EXPECT_EQ(cloned.faults->clones_won, 1u);
  EXPECT_EQ(cloned.faults->replicas_cancelled, 1u);
  EXPECT_EQ(cloned.schedule.at(0).device, 1u);
  // The cancelled original ran from 1 s until the clone finished: that is the cost.
  EXPECT_NEAR(cloned.faults->replica_device_seconds, 1.5 * on_h100 + on_a100, 1e-9);
  EXPECT_GT(cloned.faults->replica_joules, 0);
}

TEST(TaskCloning, NoStragglerNoClone) {
  const Cluster cluster = h100_and_a100();
  FaultOptions cloning = straggler_on_h100(1);
  cloning.clone.enabled = true;
  const RunReport r = run_with_faults(cluster, one_matmul(), cloning);
  EXPECT_EQ(r.tasks_completed, 1u);
  EXPECT_EQ(r.faults->clones_started, 0u);
  EXPECT_EQ(r.faults->replica_device_seconds, 0);
}

TEST(TaskCloning, CloneOnlyWhenItWouldFinishFirst) {
  // A slowdown of 2: at 1.5 × the H100's time the original has a quarter of its
  // work left (0.5 × H100 time), less than a whole run on the A100: no clone.
  const Cluster cluster = h100_and_a100();
  FaultOptions cloning = straggler_on_h100(2);
  cloning.clone.enabled = true;
  cloning.clone.threshold = 1.5;
  const RunReport r = run_with_faults(cluster, one_matmul(), cloning);
  EXPECT_EQ(r.tasks_completed, 1u);
  EXPECT_EQ(r.faults->clones_started, 0u);
}

TEST(TaskCloning, ThresholdOfOneOrLessIsBadInput) {
  const Cluster cluster = h100_and_a100();
  FaultOptions cloning = straggler_on_h100(10);
  cloning.clone.enabled = true;
  cloning.clone.threshold = 1.0;
  EXPECT_THROW(run_with_faults(cluster, one_matmul(), cloning), InputError);
}

}  // namespace
}  // namespace hetsched
