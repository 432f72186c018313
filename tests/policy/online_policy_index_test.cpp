// The online policies find their device without scanning the cluster: work stealing
// through the earliest-finish index, random and round-robin through the lists of the
// devices that can run a task. These tests run each against the straightforward scan
// of every device, which they replaced: round-robin and random must place every task
// where the scan would; work stealing must pick the same owner and a thief of the same
// gain (among thieves of equal gain the index looks at fewer), on the built-in mix with
// run times that drift from the predictions and devices that fail.
#include <gtest/gtest.h>

#include <algorithm>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/runnable_devices.hpp"
#include "hetsched/policy/work_stealing_rule.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/feasibility.hpp"
#include "hetsched/workload/generators.hpp"
#include "support/checked_policy.hpp"

namespace hetsched {
namespace {

// The runs: the built-in mix as predicted, with drifting run times, and with failures.
std::vector<SimulationOptions> run_options() {
  return {SimulationOptions{}, drifting_run_times(), failing_devices(0.01, 30)};
}

// Tasks some device of the cluster cannot run: the lists are more than every device.
std::size_t tasks_not_runnable_everywhere(const Cluster& cluster, const Workload& workload) {
  std::size_t count = 0;
  for (const Job& job : workload.jobs)
    for (const Task& task : job.tasks)
      count += std::any_of(cluster.devices().begin(), cluster.devices().end(),
                           [&](const Device& d) { return !can_run(task, d); });
  return count;
}

class ScanningRoundRobin final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "round-robin"; }
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    const auto& devices = snapshot.cluster.devices();
    for (TaskIndex t : ready)
      for (std::size_t tried = 0; tried < devices.size(); ++tried) {
        const auto d = static_cast<DeviceId>(next_++ % devices.size());
        if (can_run(snapshot.graph.task(t), devices[d])) {
          out.assign(Assignment{t, d});
          break;
        }
      }
  }

 private:
  std::size_t next_ = 0;
};

class ScanningRandom final : public SchedulingPolicy {
 public:
  explicit ScanningRandom(std::uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "random"; }
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    for (TaskIndex t : ready) {
      std::vector<DeviceId> candidates;
      for (const Device& d : snapshot.cluster.devices())
        if (can_run(snapshot.graph.task(t), d)) candidates.push_back(d.id);
      if (!candidates.empty()) out.assign(Assignment{t, candidates[rng_.below(candidates.size())]});
    }
  }

 private:
  Rng rng_;
};

void expect_same_schedule(const RunReport& a, const RunReport& b) {
  ASSERT_GT(a.tasks_completed, 0u);
  EXPECT_EQ(a.tasks_completed, b.tasks_completed);
  EXPECT_EQ(a.makespan_seconds, b.makespan_seconds);
  ASSERT_EQ(a.schedule.size(), b.schedule.size());
  for (std::size_t i = 0; i < a.schedule.size(); ++i) {
    ASSERT_EQ(a.schedule[i].task, b.schedule[i].task) << i;
    ASSERT_EQ(a.schedule[i].device, b.schedule[i].device) << i;
    ASSERT_EQ(a.schedule[i].start_seconds, b.schedule[i].start_seconds) << i;
  }
}

TEST(OnlinePolicyIndex, RoundRobinAndRandomPlaceLikeAScan) {
  const Cluster cluster = default_cluster();
  const Workload workload = default_workload(3);
  ASSERT_GT(tasks_not_runnable_everywhere(cluster, workload), 0u);
  const RooflineModel perf(cluster);
  for (const SimulationOptions& options : run_options()) {
    auto round_robin = make_policy("round-robin", {});
    ScanningRoundRobin scanning_round_robin;
    expect_same_schedule(Simulator(cluster, workload, perf, *round_robin, options).run(),
                         Simulator(cluster, workload, perf, scanning_round_robin, options).run());
    auto random = make_policy("random", PolicyOptions{9});
    ScanningRandom scanning_random(9);
    expect_same_schedule(Simulator(cluster, workload, perf, *random, options).run(),
                         Simulator(cluster, workload, perf, scanning_random, options).run());
  }
}

TEST(OnlinePolicyIndex, RunnableDevicesAreTheScanAndFollowTheClusterAsItGrows) {
  Cluster cluster = default_cluster();
  const Workload workload = default_workload(4);
  RunnableDevices runnable;
  const auto expect_scan = [&](const Task& task) {
    std::vector<DeviceId> scan;
    for (const Device& d : cluster.devices())
      if (can_run(task, d)) scan.push_back(d.id);
    const std::span<const DeviceId> listed = runnable.of(cluster, task);
    EXPECT_EQ(std::vector<DeviceId>(listed.begin(), listed.end()), scan) << task.name;
  };
  for (const Job& job : workload.jobs)
    for (const Task& task : job.tasks) expect_scan(task);
  // A node of the cluster's first node's parts joins: the lists grow with it.
  const Node& first = cluster.node(0);
  std::vector<DeviceSpec> parts;
  for (DeviceId d : first.devices) parts.push_back(cluster.device(d).spec);
  Node joining = first;
  joining.name = "joined";
  joining.devices.clear();
  cluster.add_node(joining, parts);
  for (const Job& job : workload.jobs)
    for (const Task& task : job.tasks) expect_scan(task);
}

// A work-stealing assignment against a scan of every device: its owner (the device of its
// largest placed input that can run it, else the one that frees up first) and the largest
// gain of an idle thief.
void expect_owner_or_best_thief(const ClusterSnapshot& s, const Assignment& a,
                                std::size_t& stolen) {
  const Task& task = s.graph.task(a.task);
  DeviceId owner = kUnplaced;
  double largest_input = -1;
  for (const Dependency& p : s.graph.predecessors(a.task)) {
    const DeviceId d = s.placement[p.task];
    if (d != kUnplaced && p.bytes > largest_input && can_run(task, s.cluster.device(d))) {
      owner = d;
      largest_input = p.bytes;
    }
  }
  if (owner == kUnplaced)
    for (const Device& d : s.cluster.devices())
      if (can_run(task, d) && (owner == kUnplaced || s.device_available_seconds[d.id] <
                                                         s.device_available_seconds[owner]))
        owner = d.id;
  const double now = s.now_seconds;
  const double owner_finish =
      std::max(s.device_available_seconds[owner], s.data_ready_seconds(a.task, owner)) +
      s.perf.task_seconds(task, s.cluster.device(owner));
  const auto gain = [&](DeviceId thief) {
    const double transfer = std::max(0.0, s.data_ready_seconds(a.task, thief) - now);
    return estimate_steal(now, owner_finish - now, 1.0,
                          s.perf.task_seconds(task, s.cluster.device(thief)), transfer, 1.0)
        .gain_seconds();
  };
  double best_gain = 0;
  for (const Device& thief : s.cluster.devices())
    if (thief.id != owner && s.device_available_seconds[thief.id] <= now && can_run(task, thief))
      best_gain = std::max(best_gain, gain(thief.id));
  if (best_gain > 0) {
    EXPECT_NE(a.device, owner) << "task " << a.task << " not stolen";
    if (a.device != owner) {
      EXPECT_EQ(gain(a.device), best_gain) << "task " << a.task;
    }
    stolen += a.device != owner;
  } else {
    EXPECT_EQ(a.device, owner) << "task " << a.task;
  }
}

TEST(OnlinePolicyIndex, WorkStealingTakesTheOwnerAndTheBestThiefOfAScan) {
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  Rng rng(23);
  Workload dags;
  for (int j = 0; j < 6; ++j)
    dags.jobs.push_back(workflow_job({"wf" + std::to_string(j), 50, 6, 3.0 * j}, rng));
  for (const Workload& workload : {default_workload(2), dags})
    for (const SimulationOptions& options : run_options()) {
      std::size_t stolen = 0;
      CheckedPolicy checked("work-stealing", [&](const ClusterSnapshot& s, const Assignment& a) {
        expect_owner_or_best_thief(s, a, stolen);
      });
      const RunReport report = Simulator(cluster, workload, perf, checked, options).run();
      // A job may fail under failures (its task out of retries), never a task be lost.
      EXPECT_EQ(report.tasks_completed + report.unfinished_tasks.size(), workload.task_count());
      EXPECT_GE(report.tasks_completed, workload.task_count() * 9 / 10);
      EXPECT_GE(checked.checked, report.tasks_completed);
      EXPECT_GT(stolen, 0u);
    }
}

}  // namespace
}  // namespace hetsched
