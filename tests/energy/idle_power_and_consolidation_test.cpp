// Idle power management, device consolidation and the energy benchmark on the
// random-DAG suite: energies computed by hand for released devices, sleeping gaps
// and a job consolidated onto one device; the stretch bound held in the simulator;
// the benchmark deterministic.
#include <gtest/gtest.h>

#include "../support/dvfs_plan_checks.hpp"
#include "energy/device_consolidation.hpp"
#include "energy_benchmark.hpp"
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "random_dag.hpp"

namespace hetsched {
namespace {

const std::vector<PState> kOneState{{1.0, 1.0, 1.0}};

DvfsSchedule at_full_speed(const StaticSchedule& s) {
  return DvfsSchedule{s, std::vector<std::uint8_t>(s.tasks.size(), 0)};
}

TEST(IdlePowerManagement, ReleasedDevicesAreNotCharged) {
  // One 2 s task on device 0 (110 W busy); device 1 (10 W idle) runs nothing.
  const DagInstance instance({{2, 3}}, {});
  JobEnergyModel model(instance, {10, 10}, {110, 110}, kOneState);
  const StaticSchedule s = insertion_eft_schedule(model);
  ASSERT_EQ(s.tasks[0].device, 0u);
  EXPECT_DOUBLE_EQ(model.energy(at_full_speed(s)).total_joules(), 2 * 110 + 2 * 10);
  model.set_release_unused_devices(true);
  EXPECT_DOUBLE_EQ(model.energy(at_full_speed(s)).total_joules(), 2 * 110);
}

TEST(IdlePowerManagement, LongGapsSleepShortOnesIdle) {
  // Device 0: tasks at [0, 1] and [100, 101]; device 1: [0, 1] and [9, 10]; makespan
  // 101. Idle 10 W, asleep 1 W, 5 s to suspend and 5 s to resume (break-even: 10 s).
  const DagInstance instance({{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {});
  JobEnergyModel model(instance, {10, 10}, {110, 110}, kOneState);
  model.set_sleep_states({{1, 5}, {1, 5}});
  StaticSchedule s;
  s.tasks = {{0, 0, 1}, {0, 100, 101}, {1, 0, 1}, {1, 9, 10}};
  s.makespan_seconds = 101;
  const std::vector<double> idle = model.idle_joules_by_device(at_full_speed(s));
  // Device 0: one 99 s gap: 10 s of transitions at 10 W + 89 s asleep at 1 W.
  EXPECT_DOUBLE_EQ(idle[0], 10 * 10 + 89 * 1);
  // Device 1: an 8 s gap (too short: 80 J idle), then 91 s after its last task
  // (10 s × 10 W + 81 s × 1 W).
  EXPECT_DOUBLE_EQ(idle[1], 8 * 10 + 10 * 10 + 81 * 1);
  EXPECT_DOUBLE_EQ(model.gap_joules(0, 10), 100);  // at break-even both cost the same
  EXPECT_DOUBLE_EQ(model.gap_joules(0, 9.5), 95);
  const ScheduleEnergy e = model.energy(at_full_speed(s));
  EXPECT_DOUBLE_EQ(e.task_joules, 4 * 110);
  EXPECT_DOUBLE_EQ(e.idle_joules, idle[0] + idle[1]);
}

TEST(DeviceConsolidation, OneDeviceWhenTheStretchAllowsItByHand) {
  // Two identical devices (idle 50 W, busy 150 W), independent tasks of 10 s and 1 s.
  // EFT runs them side by side: 10 s × 150 + 1 s × 150 + 9 s idle × 50 = 2100 J,
  // makespan 10 s. Both on one device end at 11 s (+10 %) and cost 11 × 150 = 1650 J
  // when the other device is released.
  const DagInstance instance({{10, 10}, {1, 1}}, {});
  JobEnergyModel model(instance, {50, 50}, {150, 150}, kOneState);
  model.set_release_unused_devices(true);
  const StaticSchedule eft = insertion_eft_schedule(model);
  ASSERT_NE(eft.tasks[0].device, eft.tasks[1].device);
  EXPECT_DOUBLE_EQ(model.energy(at_full_speed(eft)).total_joules(), 2100);
  const std::optional<ConsolidationResult> fewer = consolidate_devices(model, 11);
  ASSERT_TRUE(fewer.has_value());
  EXPECT_EQ(fewer->devices_used, 1u);
  EXPECT_NEAR(fewer->remap.after.total_joules(), 1650, 1e-9);
  const EnergyAwarePlan ten_percent = plan_energy_aware(model, 11, eft);
  EXPECT_NEAR(ten_percent.energy.total_joules(), 1650, 1e-9);
  EXPECT_LE(ten_percent.energy.makespan_seconds, 11 + 1e-9);
  expect_valid_dvfs_plan(model, ten_percent.plan);
  // Within +5 % (10.5 s) one device cannot hold both: nothing to save.
  EXPECT_FALSE(consolidate_devices(model, 10.5).has_value());
  const EnergyAwarePlan five_percent = plan_energy_aware(model, 10.5, eft);
  EXPECT_NEAR(five_percent.energy.total_joules(), 2100, 1e-9);
  EXPECT_LE(five_percent.energy.makespan_seconds, 10.5 + 1e-9);
}

TEST(EnergyRemapping, RemapsJobsBeyondTheOldTaskDeviceCap) {
  // 100 tasks × 16 devices = 1,600 task-device pairs (the planner used to skip
  // re-mapping above 1,024). Devices with the power of H100, A100, V100, EPYC in turn.
  RandomDagParams p;
  p.tasks = 100;
  p.devices = 16;
  Rng rng(3);
  Workload workload;
  workload.jobs.push_back(generate_random_dag(p, rng).as_job("big"));
  const Cluster cluster = random_dag_energy_cluster(p.devices);
  const RooflineModel perf(cluster);
  const TaskGraph graph(workload);
  const DagInstance instance(graph, 0, perf);
  const JobEnergyModel model(instance, graph, 0, perf);
  ASSERT_GT(model.task_count() * model.device_count(), 1024u);
  const StaticSchedule eft = insertion_eft_schedule(model);
  const EnergyRemapResult r = minimise_energy_within(model, eft, 0.05);
  EXPECT_GT(r.tasks_moved, 0u);
  EXPECT_LE(r.after.makespan_seconds, eft.makespan_seconds * 1.05 * (1 + 1e-12));
  EXPECT_LE(r.after.total_joules(), reclaim_slack(model, eft, 0.05).after.total_joules());
  expect_valid_dvfs_plan(model, r.plan);
}

EnergyBenchmarkParams one_small_random_dag() {
  EnergyBenchmarkParams params;
  params.dags = 4;              // graphs 0, 150, 300, 450 of the 600 …
  params.max_graph_tasks = 20;  // … of which only graph 0 has 20 tasks
  return params;
}

TEST(EnergyBenchmark, RandomDagSuiteHoldsTheBoundInTheSimulator) {
  const EnergyBenchmarkResult r = run_energy_benchmark(one_small_random_dag());
  EXPECT_EQ(r.suite, "random-dag");
  ASSERT_EQ(r.dags, 1u);
  EXPECT_EQ(r.tasks, 20u);
  ASSERT_TRUE(r.simulated);
  EXPECT_GT(r.energy_saved_stretch, 0);
  EXPECT_GE(r.energy_saved_stretch, r.energy_saved_no_stretch - 1e-12);
  EXPECT_LE(r.max_makespan_increase_no_stretch, 1e-9);
  EXPECT_LE(r.max_makespan_increase_stretch, 0.05 + 1e-9);
  // Measured on the simulated runs, not only predicted.
  EXPECT_LE(r.max_simulated_makespan_increase_no_stretch, 1e-9);
  EXPECT_LE(r.max_simulated_makespan_increase_stretch, 0.05 + 1e-9);
  EXPECT_LT(r.max_simulation_vs_plan_gap, 1e-9);
  EXPECT_NEAR(r.simulated_energy_saved_stretch, r.energy_saved_stretch, 1e-9);
}

TEST(EnergyBenchmark, RandomDagSuiteIsDeterministic) {
  EnergyBenchmarkParams params = one_small_random_dag();
  params.simulate = false;
  const EnergyBenchmarkResult a = run_energy_benchmark(params);
  const EnergyBenchmarkResult b = run_energy_benchmark(params);
  EXPECT_EQ(a.baseline_joules, b.baseline_joules);
  EXPECT_EQ(a.energy_saved_no_stretch, b.energy_saved_no_stretch);
  EXPECT_EQ(a.energy_saved_stretch, b.energy_saved_stretch);
  EXPECT_EQ(a.tasks_moved_stretch, b.tasks_moved_stretch);
}

}  // namespace
}  // namespace hetsched
