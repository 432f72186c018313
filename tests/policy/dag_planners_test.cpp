// The static DAG planners: the known answers of Topcuoglu et al. 2002 on their
// 10-task example, valid schedules from every planner on random DAGs (some devices
// unable to run some tasks, devices busy at the start), heft-ils never behind
// HEFT and deterministic, and planned makespans equal to simulated ones on a
// network without contention.
#include "hetsched/policy/dag_planners.hpp"

#include <gtest/gtest.h>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/policy/schedule_metrics.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "random_dag.hpp"

namespace hetsched {
namespace {

// Topcuoglu, Hariri, Wu 2002, Fig. 2 (see shared/data/README.md).
DagInstance paper_instance() {
  std::vector<std::vector<double>> compute{{14, 16, 9},  {13, 19, 18}, {11, 13, 19}, {13, 8, 17},
                                           {12, 13, 10}, {13, 16, 9},  {7, 15, 11},  {5, 11, 14},
                                           {18, 12, 20}, {21, 7, 16}};
  std::vector<DagEdge> edges{{0, 1, 18}, {0, 2, 12}, {0, 3, 9},  {0, 4, 11}, {0, 5, 14},
                             {1, 7, 19}, {1, 8, 16}, {2, 6, 23}, {3, 7, 27}, {3, 8, 23},
                             {4, 8, 13}, {5, 7, 15}, {6, 9, 17}, {7, 9, 11}, {8, 9, 13}};
  return DagInstance(std::move(compute), std::move(edges));
}

const std::vector<std::string> kPlanners{"heft",     "cpop",    "peft",     "heft-lookahead",
                                         "heft-ils", "olb",     "met",      "mct",
                                         "min-min",  "max-min", "sufferage"};

TEST(DagPlanners, PaperGraphUpwardRanks) {
  const std::vector<double> rank = upward_ranks(paper_instance());
  const std::vector<double> expected{108, 77, 80, 80, 69, 63.333, 42.667, 35.667, 44.333, 14.667};
  ASSERT_EQ(rank.size(), expected.size());
  for (std::size_t t = 0; t < rank.size(); ++t) EXPECT_NEAR(rank[t], expected[t], 1e-3) << t;
}

TEST(DagPlanners, PaperGraphHeftAndCpopMakespans) {
  const DagInstance instance = paper_instance();
  const StaticSchedule heft = heft_plan(instance, ScheduleLimits{});
  EXPECT_EQ(error_text(check_schedule(instance, heft)), "");
  EXPECT_DOUBLE_EQ(heft.makespan_seconds, 80);
  const StaticSchedule cpop = cpop_plan(instance, ScheduleLimits{});
  EXPECT_EQ(error_text(check_schedule(instance, cpop)), "");
  EXPECT_DOUBLE_EQ(cpop.makespan_seconds, 86);
}

TEST(DagPlanners, PaperGraphEveryPlannerIsValidAndIlsNotBehindHeft) {
  const DagInstance instance = paper_instance();
  for (const std::string& name : kPlanners) {
    SCOPED_TRACE(name);
    const StaticSchedule s = make_static_planner(name, PolicyOptions{3})->plan(instance, {});
    EXPECT_EQ(error_text(check_schedule(instance, s)), "");
    if (name == "heft-ils") {
      EXPECT_LE(s.makespan_seconds, 80);
    }
  }
}

TEST(DagPlanners, PaperGraphMetrics) {
  const DagInstance instance = paper_instance();
  const ScheduleMetrics m = schedule_metrics(instance, heft_plan(instance, ScheduleLimits{}));
  // Min-cost critical path T1→T2→T9→T10: 9 + 13 + 12 + 7.
  EXPECT_DOUBLE_EQ(min_cost_critical_path_seconds(instance), 41);
  EXPECT_DOUBLE_EQ(m.slr, 80.0 / 41);
  EXPECT_DOUBLE_EQ(m.speedup, 127.0 / 80);  // all on P1: 127
  EXPECT_DOUBLE_EQ(m.efficiency, 127.0 / 80 / 3);
  EXPECT_DOUBLE_EQ(m.lower_bound_seconds, 41);  // > total min work 91 / 3
  EXPECT_DOUBLE_EQ(m.gap_to_lower_bound, 80.0 / 41 - 1);
}

DagInstance random_instance(std::uint64_t seed, bool restricted) {
  Rng rng(seed);
  RandomDagParams p;
  p.tasks = 20 + rng.below(60);
  p.shape = std::array{0.5, 1.0, 2.0}[rng.below(3)];
  p.ccr = std::array{0.1, 1.0, 10.0}[rng.below(3)];
  p.heterogeneity = std::array{0.1, 1.0, 2.0}[rng.below(3)];
  p.devices = 2 + rng.below(6);
  RandomDag dag = generate_random_dag(p, rng);
  if (restricted)  // every task keeps device 0; others lose a device at random
    for (std::size_t t = 0; t < dag.compute_seconds.size(); ++t)
      dag.compute_seconds[t][1 + rng.below(p.devices - 1)] = kCannotRun;
  return dag.instance();
}

TEST(DagPlanners, EveryPlannerGivesValidSchedulesOnRandomDags) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const DagInstance instance = random_instance(seed, seed % 2 == 0);
    std::vector<double> free(instance.device_count(), 0.0);
    if (seed % 3 == 0)
      for (std::size_t d = 0; d < free.size(); ++d) free[d] = 7.0 * static_cast<double>(d);
    for (const std::string& name : kPlanners) {
      SCOPED_TRACE(name + " seed " + std::to_string(seed));
      const StaticSchedule s = make_static_planner(name, PolicyOptions{seed, 0, 200})
                                   ->plan(instance, ScheduleLimits{.device_free_seconds = free});
      ASSERT_EQ(error_text(check_schedule(instance, s)), "");
      for (std::size_t t = 0; t < s.tasks.size(); ++t)
        EXPECT_GE(s.tasks[t].start_seconds, free[s.tasks[t].device]);
    }
  }
}

TEST(DagPlanners, HeftIlsNeverBehindHeftAndDeterministic) {
  int strictly_better = 0;
  for (std::uint64_t seed = 20; seed < 30; ++seed) {
    const DagInstance instance = random_instance(seed, false);
    const double heft = heft_plan(instance, ScheduleLimits{}).makespan_seconds;
    const PolicyOptions options{seed, 0, 150};
    const StaticSchedule a = heft_ils_plan(instance, ScheduleLimits{}, options);
    const StaticSchedule b = heft_ils_plan(instance, ScheduleLimits{}, options);
    EXPECT_EQ(error_text(check_schedule(instance, a)), "");
    EXPECT_LE(a.makespan_seconds, heft) << "seed " << seed;
    if (a.makespan_seconds < heft) ++strictly_better;
    ASSERT_EQ(a.tasks.size(), b.tasks.size());
    for (std::size_t t = 0; t < a.tasks.size(); ++t) {
      EXPECT_EQ(a.tasks[t].device, b.tasks[t].device);
      EXPECT_EQ(a.tasks[t].start_seconds, b.tasks[t].start_seconds);
    }
  }
  EXPECT_GE(strictly_better, 5);  // the search must actually find improvements
}

TEST(DagPlanners, PlannedMakespanEqualsSimulatedWithoutContention) {
  Rng rng(5);
  RandomDagParams p;
  p.tasks = 60;
  p.devices = 5;
  p.ccr = 2;
  const RandomDag dag = generate_random_dag(p, rng);
  const Cluster cluster = uniform_cost_cluster(p.devices);
  const RooflineModel perf(cluster);
  Workload workload;
  workload.jobs.push_back(dag.as_job("random"));
  const DagInstance instance = dag.instance();
  for (const std::string name : {"heft", "peft", "cpop", "heft-ils", "min-min", "heft-lookahead"}) {
    SCOPED_TRACE(name);
    const PolicyOptions options{4, 0, 200};
    const double planned = make_static_planner(name, options)->plan(instance, {}).makespan_seconds;
    auto policy = make_static_planner(name, options);
    Simulator sim(cluster, workload, perf, *policy, SimulationOptions{.seed = 1});
    const RunReport report = sim.run();
    ASSERT_EQ(report.tasks_completed, instance.task_count());
    EXPECT_NEAR(report.makespan_seconds, planned, 1e-6 * planned);
  }
}

TEST(DagPlanners, InstanceFromAClusterHoldsTheModelsTimeOnEveryDevice) {
  // The default cluster repeats its parts, so the roofline model is asked once per spec
  // class; a task with explicit costs is still looked up per device.
  const Cluster cluster = default_cluster();
  ASSERT_LT(cluster.spec_class_count(), cluster.device_count());
  const RooflineModel perf(cluster);
  Rng rng(3);
  RandomDagParams p;
  p.tasks = 12;
  p.devices = cluster.device_count();
  Workload workload;
  workload.jobs.push_back(generate_random_dag(p, rng).as_job("costed"));
  Job modelled = workload.jobs.front();
  modelled.name = "modelled";
  for (Task& task : modelled.tasks) task.cost_seconds.clear();
  workload.jobs.push_back(modelled);
  const TaskGraph graph(workload);
  for (JobIndex job = 0; job < 2; ++job) {
    const DagInstance instance(graph, job, perf);
    for (std::uint32_t t = 0; t < instance.task_count(); ++t)
      for (const Device& d : cluster.devices())
        ASSERT_EQ(instance.compute_seconds(t, d.id),
                  perf.task_seconds(graph.task(instance.global_task(t)), d, 0))
            << "job " << job << " task " << t << " on " << d.name;
  }
  for (const Device& d : cluster.devices())
    EXPECT_EQ(cluster.device(cluster.spec_class_device(cluster.spec_class(d.id))).spec, d.spec);
}

}  // namespace
}  // namespace hetsched
