// Energy-aware re-mapping within a makespan budget: a task moves to the device
// where it costs less energy when the bound allows it (by hand), the result never
// ends past its bound, is a valid schedule, and never uses more energy than slack
// reclamation alone on random DAGs; stepwise slack reclamation keeps the bound.
#include "hetsched/energy/energy_remapping.hpp"

#include <gtest/gtest.h>

#include "../support/dvfs_plan_checks.hpp"
#include "../support/energy_fixtures.hpp"
#include "energy_benchmark.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

void expect_valid_remapped_plan(const JobEnergyModel& model, const DvfsSchedule& plan) {
  expect_valid_dvfs_plan(model, plan);
  for (std::uint32_t t = 0; t < model.instance().task_count(); ++t) {
    const PlannedTask& p = plan.schedule.tasks[t];
    EXPECT_GE(p.start_seconds + 1e-9, model.release_seconds(t, p.device));
  }
}

TEST(EnergyRemapping, MovesATaskToTheFrugalDeviceWhenTheBoundAllows) {
  // Device 0 is fast and frugal (110 W busy), device 1 slow and hungry (1010 W).
  // Task 0 takes 4 s on device 0; task 1 takes 1 s there or 2 s on device 1.
  // EFT puts task 1 on device 1 (it finishes at 2 s rather than 5 s): makespan 4 s.
  const DagInstance instance({{4, 20}, {1, 2}}, {});
  const JobEnergyModel model(instance, {10, 10}, {110, 1010}, kThreePstates);
  const StaticSchedule eft = insertion_eft_schedule(model);
  ASSERT_EQ(eft.tasks[1].device, 1u);
  ASSERT_DOUBLE_EQ(eft.makespan_seconds, 4);
  // Before: 4 s × 110 W + 2 s × 1010 W + 2 s idle × 10 W = 2480 J.
  // With +25 % the bound is 5 s: task 1 after task 0 on device 0 ends at 5 s, and
  // costs 5 s × 110 W + 5 s idle on device 1 × 10 W = 600 J.
  const EnergyRemapResult r = minimise_energy_within(model, eft, 0.25);
  EXPECT_DOUBLE_EQ(r.before.total_joules(), 2480);
  EXPECT_EQ(r.plan.schedule.tasks[1].device, 0u);
  EXPECT_EQ(r.tasks_moved, 1u);
  EXPECT_LE(r.after.makespan_seconds, 5 + 1e-9);
  EXPECT_NEAR(r.after.total_joules(), 600, 1e-6);
  // Slack reclamation alone cannot move it: task 0 at 0.8 speed (5 s at 70 W = 350 J),
  // task 1 at half speed on device 1 (4 s at 260 W = 1040 J), 1 s idle (10 J): 1400 J.
  const SlackReclamationResult alone = reclaim_slack(model, eft, 0.25);
  EXPECT_NEAR(alone.after.total_joules(), 1400, 1e-6);
  expect_valid_remapped_plan(model, r.plan);
  // Without stretch the move would end at 5 s > 4 s: it is not made.
  const EnergyRemapResult tight = minimise_energy_within(model, eft, 0.0);
  EXPECT_EQ(tight.plan.schedule.tasks[1].device, 1u);
  EXPECT_LE(tight.after.makespan_seconds, 4 + 1e-9);
}

TEST(EnergyRemapping, WithinTheBoundAndNeverWorseThanSlackReclamationOnRandomDags) {
  const Cluster cluster = energy_benchmark_cluster();
  const RooflineModel perf(cluster);
  Rng rng(7);
  for (int i = 0; i < 3; ++i) {
    Workload workload;
    workload.jobs.push_back(workflow_job({"wf", 20, 4, 0.0}, rng));
    const TaskGraph graph(workload);
    const DagInstance instance(graph, 0, perf);
    const JobEnergyModel model(instance, graph, 0, perf);
    const StaticSchedule baseline = insertion_eft_schedule(model);
    for (double stretch : {0.0, 0.05}) {
      const EnergyRemapResult r = minimise_energy_within(model, baseline, stretch);
      const SlackReclamationResult alone = reclaim_slack(model, baseline, stretch);
      EXPECT_LE(r.after.makespan_seconds, baseline.makespan_seconds * (1 + stretch) + 1e-9);
      EXPECT_LE(r.after.total_joules(), alone.after.total_joules() + 1e-9);
      EXPECT_LE(r.after.total_joules(), r.before.total_joules() + 1e-9);
      EXPECT_NEAR(r.before.total_joules(),
                  model.energy({baseline, std::vector<std::uint8_t>(baseline.tasks.size(), 0)})
                      .total_joules(),
                  1e-9);
      expect_valid_remapped_plan(model, r.plan);
      const SlackReclamationResult step = reclaim_slack_stepwise(
          model, {baseline, std::vector<std::uint8_t>(baseline.tasks.size(), 0)},
          baseline.makespan_seconds * (1 + stretch));
      EXPECT_LE(step.after.makespan_seconds, baseline.makespan_seconds * (1 + stretch) + 1e-9);
      EXPECT_LE(step.after.total_joules(), step.before.total_joules() + 1e-9);
      expect_valid_remapped_plan(model, step.plan);
    }
  }
}

TEST(EnergyRemapping, StepwiseReclamationUsesSlackOnlyWhereThereIsSome) {
  const DagInstance instance({{1}}, {});
  const JobEnergyModel model(instance, {10}, {110}, kThreePstates);
  DvfsSchedule plan{StaticSchedule{{{0, 0, 1}}, 1}, {0}};
  const SlackReclamationResult r = reclaim_slack_stepwise(model, plan, 1.0);
  // Compute-bound (the matrix model stretches all time): no slack, nothing changes.
  EXPECT_EQ(r.plan.pstates[0], 0);
  const SlackReclamationResult roomy = reclaim_slack_stepwise(model, plan, 2.0);
  EXPECT_EQ(roomy.plan.pstates[0], 2);  // 2 s at 35 W = 70 J < 1 s at 110 W
  EXPECT_NEAR(roomy.after.total_joules(), 70, 1e-9);
}

}  // namespace
}  // namespace hetsched
