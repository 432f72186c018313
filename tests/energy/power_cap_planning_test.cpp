// Node power caps in the simulator and planning within caps: the node cap holds at
// every task start of a run (tasks slow down or wait), a node cap below a node's
// idle power is bad input; the planner re-times a plan under the caps by hand
// (slower clocks where that finishes no later than waiting), and the power-capped
// energy-aware policy's run needs less enforcement than the plan that ignores the cap.
#include "hetsched/energy/power_cap_planning.hpp"

#include <gtest/gtest.h>

#include "../support/energy_fixtures.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/energy/dvfs_slack_reclamation.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

// Two nodes of two GPUs each.
Cluster two_capped_nodes() {
  Cluster cluster;
  for (const char* name : {"n0", "n1"}) {
    Node node;
    node.name = name;
    cluster.add_node(node, {test_gpu_with_four_pstates(), test_gpu_with_four_pstates()});
  }
  return cluster;
}

// The highest draw of any node at any task start, from the recorded schedule.
double peak_node_draw(const RunReport& r, const Cluster& cluster, const RooflineModel& perf,
                      const TaskGraph& graph) {
  double peak = 0;
  for (const TaskRecord& at : r.schedule)
    for (NodeId n = 0; n < cluster.node_count(); ++n) {
      double draw = 0;
      for (DeviceId d : cluster.node(n).devices) {
        draw += cluster.device(d).spec.idle_watts;
        for (const TaskRecord& t : r.schedule)
          if (t.device == d && t.start_seconds <= at.start_seconds &&
              at.start_seconds < t.finish_seconds)
            draw += perf.task_watts(graph.task(t.task), cluster.device(d), t.pstate) -
                    cluster.device(d).spec.idle_watts;
      }
      peak = std::max(peak, draw);
    }
  return peak;
}

TEST(NodePowerCap, HoldsAtEveryInstantOfARun) {
  const Cluster cluster = two_capped_nodes();
  const RooflineModel perf(cluster);
  const Workload workload = independent_matmuls(12, 2e13);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  // Each node idles at 100 W; one task at full speed adds 0.75 × 300 W = 225 W (the
  // roofline's matmul activity on a GPU is 0.75): 400 W fits one full-speed task and
  // a slowed one, not two at full speed.
  SimulationOptions options;
  options.node_power_cap_watts = 400;
  Simulator sim(cluster, workload, perf, *policy, options);
  const RunReport r = sim.run();
  EXPECT_EQ(r.tasks_completed, 12u);
  EXPECT_GT(r.power_cap_slowdowns + r.power_cap_waits, 0u);
  EXPECT_LE(r.peak_node_power_watts, 400 + 1e-9);
  EXPECT_LE(peak_node_draw(r, cluster, perf, sim.graph()), 400 + 1e-9);
  EXPECT_DOUBLE_EQ(r.node_power_cap_watts, 400);
  // Uncapped, two full-speed tasks run on a node at once.
  auto again = make_policy("greedy-eft", PolicyOptions{});
  Simulator free_run(cluster, workload, perf, *again);
  EXPECT_GT(free_run.run().peak_node_power_watts, 400);
}

TEST(NodePowerCap, BelowANodesIdlePowerIsBadInput) {
  const Cluster cluster = two_capped_nodes();
  const RooflineModel perf(cluster);
  const Workload workload = independent_matmuls(1, 1e12);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  SimulationOptions options;
  options.node_power_cap_watts = 90;
  try {
    Simulator sim(cluster, workload, perf, *policy, options);
    FAIL() << "a node cap below idle power was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("below the idle power of node n0"), std::string::npos)
        << e.what();
  }
}

TEST(PowerCapPlanning, SlowsRatherThanWaitsByHand) {
  // Two independent 1-s tasks on two devices (10 W idle, 110 W busy) planned side by
  // side: 20 + 200 = 220 W. Under a 150 W cap (130 W above idle) both cannot run at
  // full speed together. The second either waits for the first (ends at 2 s) or runs
  // at half speed beside it (25 W above idle, ends at 2 s too, with less energy).
  const DagInstance instance({{1, kCannotRun}, {kCannotRun, 1}}, {});
  const JobEnergyModel model(instance, {10, 10}, {110, 110}, kThreePstates);
  const DvfsSchedule plan{StaticSchedule{{{0, 0, 1}, {1, 0, 1}}, 1}, {0, 0}};
  const PowerCappedPlan capped = fit_to_power_caps(model, plan, {150, 0}, {0, 0});
  ASSERT_TRUE(capped.feasible) << capped.message;
  EXPECT_EQ(capped.plan.pstates[0], 0);
  EXPECT_EQ(capped.plan.pstates[1], 2);
  EXPECT_DOUBLE_EQ(capped.plan.schedule.makespan_seconds, 2);
  EXPECT_LE(capped.peak_watts, 150 + 1e-9);
  EXPECT_EQ(capped.tasks_slowed, 1u);
  // Each device on its own node with a 100 W node cap (90 W above idle): neither
  // fits at full speed (100 W above idle); 0.8 speed adds 60 W and fits.
  const PowerCappedPlan per_node = fit_to_power_caps(model, plan, {0, 100}, {0, 1});
  ASSERT_TRUE(per_node.feasible) << per_node.message;
  EXPECT_EQ(per_node.plan.pstates[0], 1);
  EXPECT_EQ(per_node.plan.pstates[1], 1);
  EXPECT_DOUBLE_EQ(per_node.plan.schedule.makespan_seconds, 1.25);
  EXPECT_LE(per_node.peak_node_watts, 100 + 1e-9);
  // A cap below idle power is an answer, not a crash.
  const PowerCappedPlan below = fit_to_power_caps(model, plan, {15, 0}, {0, 0});
  EXPECT_FALSE(below.feasible);
  EXPECT_NE(below.message.find("below the idle power"), std::string::npos);
  // A task that fits no P-state (25 W at its slowest, 20 W left) is reported.
  const PowerCappedPlan tight = fit_to_power_caps(model, plan, {40, 0}, {0, 0});
  EXPECT_FALSE(tight.feasible);
  EXPECT_NE(tight.message.find("slowest P-state"), std::string::npos);
}

TEST(PowerCapPlanning, CappedEnergyAwarePolicyPlansWithinTheCap) {
  const Cluster cluster = two_capped_nodes();
  const RooflineModel perf(cluster);
  const Workload workload = independent_matmuls(8, 2e13);
  const PowerCaps caps{700, 0};  // 200 W idle + 500 W: two full-speed tasks at most
  SimulationOptions options;
  options.power_cap_watts = caps.cluster_watts;
  auto planned = make_power_capped_energy_aware_policy(PolicyOptions{}, caps);
  Simulator sim(cluster, workload, perf, *planned, options);
  const RunReport r = sim.run();
  auto unaware = make_policy("energy-aware", PolicyOptions{});
  Simulator plain(cluster, workload, perf, *unaware, options);
  const RunReport p = plain.run();
  EXPECT_EQ(r.tasks_completed, 8u);
  EXPECT_LE(r.peak_power_watts, 700 + 1e-9);
  // Planned within the cap, the run needs less correction by the simulator's
  // enforcement than the plan that ignores the cap.
  EXPECT_LT(r.power_cap_slowdowns + r.power_cap_waits, p.power_cap_slowdowns + p.power_cap_waits);
}

TEST(EnergyPlanners, PlanAroundDevicesBusyWithEarlierJobs) {
  // Two identical GPUs; a long job arrives first and a short one while it runs. Every
  // energy planner times the second job's plan from each device's free time, so it
  // runs on the idle GPU at once rather than queueing behind the first job.
  Cluster cluster;
  Node node;
  node.name = "n0";
  cluster.add_node(node, {test_gpu_with_four_pstates(), test_gpu_with_four_pstates()});
  const RooflineModel perf(cluster);
  Workload workload = independent_matmuls(1, 1e15);  // about 100 s
  workload.jobs[0].name = "long";
  Job short_job = independent_matmuls(1, 1e13).jobs[0];  // about 1 s
  short_job.name = "short";
  short_job.arrival_seconds = 5;
  workload.jobs.push_back(short_job);
  for (const char* name : {"energy-aware", "pareto"}) {
    SCOPED_TRACE(name);
    auto policy = make_policy(name, PolicyOptions{});
    Simulator sim(cluster, workload, perf, *policy);
    const RunReport r = sim.run();
    ASSERT_EQ(r.tasks_completed, 2u);
    ASSERT_EQ(r.jobs.size(), 2u);
    EXPECT_DOUBLE_EQ(r.jobs[1].first_start_seconds, 5);
    EXPECT_LT(r.jobs[1].completion_seconds, 20);
  }
  // Under a power cap that leaves room for both, the capped planner does the same.
  auto capped = make_power_capped_energy_aware_policy(PolicyOptions{}, PowerCaps{1000, 0});
  Simulator sim(cluster, workload, perf, *capped);
  const RunReport r = sim.run();
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_seconds, 5);
}

}  // namespace
}  // namespace hetsched
