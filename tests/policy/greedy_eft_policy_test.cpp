// greedy-eft keeps heaps of devices and classes so that it never scans the whole
// cluster. These tests run the simulator under it and under a plain reference that
// computes the same rule the straightforward way, with no heaps: for each ready
// task, the groups of identical parts in order of run time; in each group the
// classes (identical parts on one node) sorted by their first free time, each one
// represented by its member that frees up first, looked at while they can still
// beat the best finish; then the devices that hold an input. Every placement,
// start and finish must agree, and so must the run's totals.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

class ScanningEftPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "greedy-eft"; }

  void on_tasks_ready(const ClusterSnapshot& s, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    if (groups_.empty()) build(s.cluster);
    for (TaskIndex t : ready) {
      const Task& task = s.graph.task(t);
      DeviceId best = kUnplaced;
      double best_finish = kCannotRun;
      const auto consider = [&](DeviceId d, double run) {
        if (run == kCannotRun) return;
        const double finish =
            std::max(s.device_available_seconds[d], s.data_ready_seconds(t, d)) + run;
        if (finish < best_finish || (finish == best_finish && d < best)) {
          best = d;
          best_finish = finish;
        }
      };
      if (task.cost_seconds.empty()) {
        std::vector<std::pair<double, std::size_t>> runs;
        for (std::size_t g = 0; g < groups_.size(); ++g) {
          const double run = s.perf.task_seconds(task, s.cluster.device(groups_[g].front()[0]), 0);
          if (run != kCannotRun) runs.emplace_back(run, g);
        }
        std::sort(runs.begin(), runs.end());
        for (const auto& [run, g] : runs) {
          // Each class's first free member: the least (free time, device id).
          std::vector<std::pair<std::pair<double, std::size_t>, DeviceId>> order;
          for (std::size_t c = 0; c < groups_[g].size(); ++c) {
            DeviceId first = groups_[g][c][0];
            for (DeviceId d : groups_[g][c])
              if (std::pair(s.device_available_seconds[d], d) <
                  std::pair(s.device_available_seconds[first], first))
                first = d;
            order.push_back({{s.device_available_seconds[first], class_index_[g][c]}, first});
          }
          std::sort(order.begin(), order.end());
          for (const auto& [key, d] : order) {
            if (std::max(key.first, s.now_seconds) + run >= best_finish) break;
            consider(d, run);
          }
        }
        for (const Dependency& p : s.graph.predecessors(t))
          if (s.placement[p.task] != kUnplaced)
            consider(s.placement[p.task],
                     s.perf.task_seconds(task, s.cluster.device(s.placement[p.task]), 0));
      } else {
        for (const Device& d : s.cluster.devices()) consider(d.id, s.perf.task_seconds(task, d, 0));
      }
      if (best == kUnplaced) continue;
      out.assign(Assignment{.task = t,
                            .device = best,
                            .pstate = 0,
                            .planned_start_seconds = kAppend,
                            .predicted_finish_seconds = best_finish});
    }
  }

 private:
  // Classes numbered node by node, groups in order of their first class: the
  // numbering ties are broken by.
  void build(const Cluster& cluster) {
    std::vector<std::vector<DeviceId>> classes;
    for (const Node& node : cluster.nodes()) {
      const std::size_t first = classes.size();
      for (DeviceId d : node.devices) {
        std::size_t c = first;
        while (c < classes.size() &&
               !(cluster.device(classes[c][0]).spec == cluster.device(d).spec))
          ++c;
        if (c == classes.size()) classes.emplace_back();
        classes[c].push_back(d);
      }
    }
    for (std::size_t c = 0; c < classes.size(); ++c) {
      std::size_t g = 0;
      while (g < groups_.size() &&
             !(cluster.device(groups_[g][0][0]).spec == cluster.device(classes[c][0]).spec))
        ++g;
      if (g == groups_.size()) groups_.emplace_back(), class_index_.emplace_back();
      groups_[g].push_back(classes[c]);
      class_index_[g].push_back(c);
    }
  }

  std::vector<std::vector<std::vector<DeviceId>>> groups_;  // group → class → devices
  std::vector<std::vector<std::size_t>> class_index_;       // group → class → class number
};

void expect_same_run(const Cluster& cluster, const Workload& workload) {
  const RooflineModel perf(cluster);
  auto fast = make_policy("greedy-eft", {});
  ScanningEftPolicy reference;
  const SimReport a = Simulator(cluster, workload, perf, *fast).run();
  const SimReport b = Simulator(cluster, workload, perf, reference).run();
  ASSERT_GT(a.tasks_completed, 0u);
  EXPECT_EQ(a.tasks_completed, b.tasks_completed);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.transfer_count, b.transfer_count);
  EXPECT_EQ(a.makespan_seconds, b.makespan_seconds);
  EXPECT_EQ(a.energy_joules, b.energy_joules);
  ASSERT_EQ(a.schedule.size(), b.schedule.size());
  for (std::size_t i = 0; i < a.schedule.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.schedule[i].task, b.schedule[i].task);
    EXPECT_EQ(a.schedule[i].device, b.schedule[i].device);
    EXPECT_EQ(a.schedule[i].start_seconds, b.schedule[i].start_seconds);
    EXPECT_EQ(a.schedule[i].finish_seconds, b.schedule[i].finish_seconds);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(GreedyEftPolicy, PlacesLikeAPlainScanOnTheDefaultWorkload) {
  for (std::uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    expect_same_run(default_cluster(), default_workload(seed));
  }
}

TEST(GreedyEftPolicy, PlacesLikeAPlainScanOnIndependentTasksWithInputs) {
  // The speed benchmark's shape, small: tasks that read their input from the node
  // of their job, on many identical devices; jobs arrive at three instants, so the
  // heaps see devices drain and free times reset between decisions.
  const Cluster cluster = benchmark_cluster(6, 3);
  Rng rng(5);
  Workload workload;
  for (std::size_t j = 0; j < 12; ++j) {
    Job job;
    job.name = "batch" + std::to_string(j);
    job.data_node = static_cast<NodeId>(j % 6);
    job.arrival_seconds = static_cast<double>(j % 3) * 20.0;
    job.tasks.resize(60);
    for (Task& task : job.tasks) {
      task.kernel = j % 2 ? KernelClass::elementwise : KernelClass::dense_matmul;
      task.precision = Precision::fp32;
      task.flops = rng.uniform(1e11, 1e13);
      task.bytes = rng.uniform(1e8, 1e9);
      task.memory_bytes = 1e9;
      task.input_bytes = rng.uniform(1e6, 1e8);
    }
    workload.jobs.push_back(std::move(job));
  }
  expect_same_run(cluster, workload);
}

}  // namespace
}  // namespace hetsched
