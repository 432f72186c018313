// DVFS slack reclamation and energy-aware placement: the makespan never grows past
// its bound, energy never rises and falls where there is slack, accounting of task
// and idle energy by hand, and the answer for a deadline no schedule can meet.
#include <gtest/gtest.h>

#include "../support/dvfs_plan_checks.hpp"
#include "../support/energy_fixtures.hpp"
#include "energy_benchmark.hpp"
#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/energy/dvfs_slack_reclamation.hpp"
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

TEST(JobEnergyModel, TaskAndIdleEnergyByHand) {
  // Two independent tasks: 2 s on device 0 and 1 s on device 1 (matrix instance).
  const DagInstance instance({{2, kCannotRun}, {kCannotRun, 1}}, {});
  const JobEnergyModel model(instance, {10, 20}, {110, 220}, kThreePstates);
  DvfsSchedule plan{StaticSchedule{{{0, 0, 2}, {1, 0, 1}}, 2}, {0, 0}};
  const ScheduleEnergy e = model.energy(plan);
  EXPECT_DOUBLE_EQ(e.task_joules, 110 * 2 + 220 * 1);
  EXPECT_DOUBLE_EQ(e.idle_joules, 20 * 1);  // device 1 idles for 1 s of the 2
  // Task 1 at P-state 2: 2 s at 20 + 200 × 0.25 = 70 W, and no idle time left.
  plan.pstates[1] = 2;
  plan.schedule = model.retime(
      plan.schedule, start_order(model.instance(), plan.schedule, StartTies::finish_then_index),
      plan.pstates);
  const ScheduleEnergy slowed = model.energy(plan);
  EXPECT_DOUBLE_EQ(slowed.makespan_seconds, 2);
  EXPECT_DOUBLE_EQ(slowed.task_joules, 110 * 2 + 70 * 2);
  EXPECT_DOUBLE_EQ(slowed.idle_joules, 0);
}

TEST(JobEnergyModel, DeviceBusyWithEarlierWorkTakesTasksOnlyOnceFree) {
  // Task 0 runs only on device 0 (2 s), task 1 anywhere (1 s); device 0 is busy with
  // other work for 3 s more. Task 0 starts at 3; task 1 goes to device 1 at once.
  const DagInstance instance({{2, kCannotRun}, {1, 1}}, {});
  JobEnergyModel model(instance, {10, 20}, {110, 220}, kThreePstates);
  model.set_device_free_seconds(std::vector<double>{3, 0});
  EXPECT_DOUBLE_EQ(model.release_seconds(0, 0), 3);
  EXPECT_DOUBLE_EQ(model.release_seconds(1, 1), 0);
  const StaticSchedule fastest = insertion_eft_schedule(model);
  EXPECT_EQ(fastest.tasks[0].device, 0u);
  EXPECT_DOUBLE_EQ(fastest.tasks[0].start_seconds, 3);
  EXPECT_EQ(fastest.tasks[1].device, 1u);
  EXPECT_DOUBLE_EQ(fastest.tasks[1].start_seconds, 0);
  EXPECT_DOUBLE_EQ(fastest.makespan_seconds, 5);
  // Device 0 is the job's from 3 s on and busy with it throughout; device 1 idles 4 s.
  DvfsSchedule plan{fastest, {0, 0}};
  const ScheduleEnergy e = model.energy(plan);
  EXPECT_DOUBLE_EQ(e.task_joules, 110 * 2 + 220 * 1);
  EXPECT_DOUBLE_EQ(e.idle_joules, 20 * 4);
  // Re-timed at a slower P-state, task 0 still waits for its device.
  plan.pstates[0] = 2;
  plan.schedule = model.retime(plan.schedule,
                               start_order(instance, plan.schedule, StartTies::finish_then_index),
                               plan.pstates);
  EXPECT_DOUBLE_EQ(plan.schedule.tasks[0].start_seconds, 3);
  EXPECT_DOUBLE_EQ(plan.schedule.makespan_seconds, 3 + 2 / 0.5);
}

TEST(SlackReclamation, SlowsOnlyTheTaskOffTheCriticalPath) {
  // Fork: 0 → {1, 2} → 3 on two devices with free communication. Task 1 (4 s) and
  // task 2 (1 s) run side by side, so task 2 has 3 s of slack; the rest is critical.
  const DagInstance instance({{1, 1}, {4, 4}, {1, 1}, {1, 1}},
                             {{0, 1, 0}, {0, 2, 0}, {1, 3, 0}, {2, 3, 0}});
  const JobEnergyModel model(instance, {10, 10}, {110, 110}, kThreePstates);
  const StaticSchedule schedule = insertion_eft_schedule(model);
  EXPECT_DOUBLE_EQ(schedule.makespan_seconds, 6);
  const SlackReclamationResult r = reclaim_slack(model, schedule, 0.0);
  EXPECT_DOUBLE_EQ(r.after.makespan_seconds, 6);
  EXPECT_EQ(r.plan.pstates[2], 2);  // 1 s → 2 s at half speed, within its 3 s of slack
  EXPECT_EQ(r.plan.pstates[0], 0);
  EXPECT_EQ(r.plan.pstates[1], 0);
  EXPECT_EQ(r.plan.pstates[3], 0);
  EXPECT_LT(r.after.total_joules(), r.before.total_joules());
  expect_valid_dvfs_plan(model, r.plan);
}

TEST(SlackReclamation, NeverLengthensTheMakespanAndLowersEnergyOnRandomDags) {
  const Cluster cluster = energy_benchmark_cluster();
  const RooflineModel perf(cluster);
  Rng rng(5);
  for (int i = 0; i < 4; ++i) {
    Workload w;
    w.jobs.push_back(workflow_job({"wf", 30, 5, 0.0}, rng));
    const TaskGraph graph(w);
    const DagInstance instance(graph, 0, perf);
    const JobEnergyModel model(instance, graph, 0, perf);
    const StaticSchedule schedule = insertion_eft_schedule(model);
    ASSERT_EQ(error_text(check_schedule(instance, schedule)), "");
    for (double stretch : {0.0, 0.05, 0.2}) {
      SCOPED_TRACE(stretch);
      const SlackReclamationResult r = reclaim_slack(model, schedule, stretch);
      EXPECT_LE(r.after.makespan_seconds, schedule.makespan_seconds * (1 + stretch) + 1e-9);
      EXPECT_LT(r.after.total_joules(), r.before.total_joules());
      EXPECT_GT(r.tasks_slowed, 0u);
      expect_valid_dvfs_plan(model, r.plan);
    }
  }
}

TEST(EnergyAwarePlanner, UnreachableDeadlineSaysByHowMuch) {
  const DagInstance instance({{2, 3}, {2, 3}}, {{0, 1, 0}});  // a chain: at least 4 s
  const JobEnergyModel model(instance, {10, 10}, {110, 60}, kThreePstates);
  const EnergyAwarePlan p = plan_energy_aware(model, 3.0);
  EXPECT_FALSE(p.deadline_met);
  EXPECT_DOUBLE_EQ(p.critical_path_lower_bound_seconds, 4);
  EXPECT_DOUBLE_EQ(p.deadline_shortfall_seconds, 1);
  EXPECT_NE(p.message.find("cannot be met by any schedule"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("1 s too late"), std::string::npos) << p.message;
  // A generous deadline is met with less energy than the fastest schedule.
  const EnergyAwarePlan loose = plan_energy_aware(model, 10.0);
  EXPECT_TRUE(loose.deadline_met);
  EXPECT_TRUE(loose.message.empty());
  EXPECT_LE(loose.energy.makespan_seconds, 10.0);
  EXPECT_LT(loose.energy.total_joules(), loose.fastest_energy.total_joules());
  expect_valid_dvfs_plan(model, loose.plan);
}

TEST(EnergyAwarePlanner, NoDeviceIsAnAnswerNotACrash) {
  const DagInstance instance({{2, kCannotRun}, {kCannotRun, kCannotRun}}, {});
  const JobEnergyModel model(instance, {10, 10}, {110, 60}, kThreePstates);
  const EnergyAwarePlan p = plan_energy_aware(model, 10.0);
  EXPECT_FALSE(p.deadline_met);
  EXPECT_NE(p.message.find("task 1 can run on no device"), std::string::npos) << p.message;
  const DagInstance empty(std::vector<std::vector<double>>{}, {});
  const JobEnergyModel none(empty, {}, {}, kThreePstates);
  EXPECT_NE(plan_energy_aware(none, 1.0).message.find("empty"), std::string::npos);
}

TEST(EnergyBenchmark, SmallSuiteReportsConsistentFigures) {
  EnergyBenchmarkParams params;
  params.suite = EnergySuite::workflow;
  params.dags = 2;
  params.tasks_per_dag = 20;
  const EnergyBenchmarkResult r = run_energy_benchmark(params);
  EXPECT_EQ(r.tasks, 40u);
  EXPECT_GT(r.energy_saved_no_stretch, 0);
  EXPECT_GE(r.energy_saved_stretch, r.energy_saved_no_stretch);
  EXPECT_LE(r.max_makespan_increase_no_stretch, 1e-9);
  EXPECT_LE(r.max_makespan_increase_stretch, 0.05 + 1e-9);
}

}  // namespace
}  // namespace hetsched
