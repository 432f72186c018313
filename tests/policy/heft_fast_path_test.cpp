// HEFT's fast second phase (earliest_finish_schedule: data-ready times in
// O(in-degree + devices) on a uniform network, finish bounds in one vector pass,
// the timeline's probe that proves "no gap fits" in O(1), lowest-bound-first
// pruning) against the plain algorithm written out here: for every task in rank
// order, every device, data-ready time as the latest input arrival, the first
// idle gap of a sorted interval list that holds the task, earliest finish, ties to
// the lowest device id. The schedules must be identical to the last bit, on random
// DAGs of several sizes, shapes and CCRs (some devices unable to run some tasks,
// devices busy at the start), and on the shared real workflows on the default
// cluster, whose network is not uniform.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "random_dag.hpp"
#include "workflow_suite.hpp"

namespace hetsched {
namespace {

// HEFT's second phase without any of the speed-ups.
StaticSchedule plain_earliest_finish_schedule(const DagInstance& instance,
                                              std::span<const std::uint32_t> order,
                                              std::span<const double> device_free_seconds) {
  const std::size_t devices = instance.device_count();
  std::vector<std::vector<std::pair<double, double>>> busy(devices);  // sorted by start
  StaticSchedule schedule;
  schedule.tasks.assign(instance.task_count(), PlannedTask{kNoDevice, 0, 0});
  for (const std::uint32_t t : order) {
    PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
    for (DeviceId d = 0; d < devices; ++d) {
      const double run = instance.compute_seconds(t, d);
      if (run == kCannotRun) continue;
      double ready = 0;
      for (const DagNeighbor& p : instance.predecessors(t)) {
        const PlannedTask& producer = schedule.tasks[p.task];
        if (producer.device == kNoDevice) continue;
        ready = std::max(
            ready, producer.finish_seconds + instance.comm_seconds(p.edge, producer.device, d));
      }
      double start = std::max(ready, d < device_free_seconds.size() ? device_free_seconds[d] : 0.0);
      for (const auto& [busy_start, busy_finish] : busy[d]) {
        if (start + run <= busy_start) break;
        start = std::max(start, busy_finish);
      }
      if (start + run < best.finish_seconds) best = PlannedTask{d, start, start + run};
    }
    if (best.device == kNoDevice) continue;
    schedule.tasks[t] = best;
    auto& lane = busy[best.device];
    lane.insert(
        std::upper_bound(lane.begin(), lane.end(), std::make_pair(best.start_seconds, kCannotRun)),
        {best.start_seconds, best.finish_seconds});
  }
  for (const PlannedTask& p : schedule.tasks)
    if (p.device != kNoDevice)
      schedule.makespan_seconds = std::max(schedule.makespan_seconds, p.finish_seconds);
  return schedule;
}

void expect_same_schedule(const DagInstance& instance, std::span<const double> free) {
  const std::vector<std::uint32_t> order = order_by_decreasing(instance, upward_ranks(instance));
  const StaticSchedule fast =
      earliest_finish_schedule(instance, order, ScheduleLimits{.device_free_seconds = free});
  const StaticSchedule plain = plain_earliest_finish_schedule(instance, order, free);
  ASSERT_EQ(fast.tasks.size(), plain.tasks.size());
  for (std::size_t t = 0; t < fast.tasks.size(); ++t) {
    ASSERT_EQ(fast.tasks[t].device, plain.tasks[t].device) << "task " << t;
    ASSERT_EQ(fast.tasks[t].start_seconds, plain.tasks[t].start_seconds) << "task " << t;
    ASSERT_EQ(fast.tasks[t].finish_seconds, plain.tasks[t].finish_seconds) << "task " << t;
  }
  EXPECT_EQ(fast.makespan_seconds, plain.makespan_seconds);
  if (free.empty()) {
    EXPECT_EQ(heft_plan(instance, ScheduleLimits{}).makespan_seconds, plain.makespan_seconds);
  }
}

TEST(HeftFastPath, SameScheduleAsThePlainInsertionSearchOnRandomDags) {
  Rng rng(2024);
  int case_index = 0;
  for (const std::size_t tasks : {10, 60, 300, 1500})
    for (const double ccr : {0.1, 1.0, 10.0}) {
      RandomDagParams p;
      p.tasks = tasks;
      p.ccr = ccr;
      p.heterogeneity = std::array{0.1, 1.0, 2.0}[rng.below(3)];
      p.shape = std::array{0.5, 1.0, 2.0}[rng.below(3)];
      p.out_degree = static_cast<double>(1 + rng.below(5));
      p.devices = std::array<std::size_t, 5>{1, 3, 8, 24, 64}[rng.below(5)];
      Rng graph_rng = rng.split();
      RandomDag dag = generate_random_dag(p, graph_rng);
      const bool some_cannot_run = case_index % 3 == 1 && p.devices > 1;
      if (some_cannot_run)
        for (auto& row : dag.compute_seconds) row[rng.below(p.devices)] = kCannotRun;
      std::vector<double> free;
      if (case_index % 4 == 2)
        for (std::size_t d = 0; d < p.devices; ++d) free.push_back(rng.uniform(0, 200));
      SCOPED_TRACE("v=" + std::to_string(tasks) + " ccr=" + std::to_string(ccr) +
                   " p=" + std::to_string(p.devices) + " case " + std::to_string(case_index));
      expect_same_schedule(dag.instance(), free);
      ++case_index;
    }
}

// More devices than one 64-bit word of candidates: the masks run over several words,
// and the lowest bound may sit in any of them.
TEST(HeftFastPath, SameScheduleWithMoreDevicesThanOneWord) {
  Rng rng(77);
  for (const std::size_t devices : {65, 130}) {
    RandomDagParams p;
    p.tasks = 800;
    p.ccr = 0.5;
    p.heterogeneity = 2.0;
    p.out_degree = 3;
    p.devices = devices;
    Rng graph_rng = rng.split();
    RandomDag dag = generate_random_dag(p, graph_rng);
    // Only the last few devices can run every other task, so the best device is
    // often past the first word.
    for (std::size_t t = 0; t < dag.compute_seconds.size(); t += 2)
      for (std::size_t d = 0; d + 3 < devices; ++d) dag.compute_seconds[t][d] = kCannotRun;
    SCOPED_TRACE("p=" + std::to_string(devices));
    expect_same_schedule(dag.instance(), {});
  }
}

TEST(HeftFastPath, SameScheduleAsThePlainInsertionSearchOnRealWorkflows) {
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  const std::vector<DagBenchmarkInstance> workflows =
      workflow_suite_instances(HETSCHED_DATA_DIR, perf);
  ASSERT_FALSE(workflows.empty());
  for (const DagBenchmarkInstance& workflow : workflows) {
    if (workflow.instance.task_count() > 2000) continue;  // keeps the plain search fast
    SCOPED_TRACE(workflow.name);
    ASSERT_FALSE(workflow.instance.uniform_network());
    expect_same_schedule(workflow.instance, {});
  }
}

// order_by_decreasing (HEFT's rank order) sorts large task sets by radix (one byte
// of a 64-bit image of the key at a time, stable, starting from the topological
// order) and small ones by comparison. The radix order must equal the comparison
// order exactly — keys descending, ties in topological order — including ties, -0
// against +0, negative keys and infinities, which the image has to order like the
// doubles.
std::vector<std::uint32_t> order_by_comparison(const DagInstance& instance,
                                               const std::vector<double>& key) {
  const std::vector<std::uint32_t> position = topological_positions(instance);
  std::vector<std::uint32_t> order(instance.topological_order());
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return key[a] != key[b] ? key[a] > key[b] : position[a] < position[b];
  });
  return order;
}

DagInstance random_order_instance(std::size_t tasks, std::uint64_t seed) {
  RandomDagParams params;
  params.tasks = tasks;
  params.devices = 3;
  Rng rng(seed);
  return generate_random_dag(params, rng).instance();
}

TEST(OrderByDecreasing, RadixOrderEqualsTheComparisonOrder) {
  const DagInstance instance = random_order_instance(2000, 5);
  const std::vector<double> ranks = upward_ranks(instance);
  EXPECT_EQ(order_by_decreasing(instance, ranks), order_by_comparison(instance, ranks));

  // Many ties, both zeros, negative keys, infinities.
  Rng rng(9);
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             1e-300,
                             -1e-300};
  std::vector<double> mixed(instance.task_count());
  for (double& k : mixed)
    k = rng.uniform() < 0.5 ? specials[rng.below(std::size(specials))]
                            : static_cast<double>(rng.below(40)) - 20.0 + 0.25 * rng.uniform();
  const std::vector<std::uint32_t> radix = order_by_decreasing(instance, mixed);
  EXPECT_EQ(radix, order_by_comparison(instance, mixed));
  // Not vacuous: the keys really are out of topological order and tied.
  EXPECT_NE(radix, instance.topological_order());

  // All keys equal: the topological order itself.
  const std::vector<double> flat(instance.task_count(), 7.0);
  EXPECT_EQ(order_by_decreasing(instance, flat), instance.topological_order());
}

TEST(OrderByDecreasing, SmallAndLargeSetsAgreeAcrossTheThreshold) {
  for (const std::size_t tasks : {10, 255, 256, 257, 600}) {
    const DagInstance instance = random_order_instance(tasks, tasks);
    const std::vector<double> ranks = downward_ranks(instance);
    EXPECT_EQ(order_by_decreasing(instance, ranks), order_by_comparison(instance, ranks))
        << tasks << " tasks";
  }
}

}  // namespace
}  // namespace hetsched
