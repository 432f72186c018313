// greedy-eft keeps heaps of devices and classes so that it never scans the whole
// cluster. These tests run the simulator under it and under a plain reference that
// computes the same rule the straightforward way, with no heaps: for each ready
// task, the groups of identical parts in order of run time; in each group the
// classes (identical parts on one node) sorted by their first free time, each one
// represented by its member that frees up first, looked at while they can still
// beat the best finish (for a task with an input: first the data node's classes,
// then per group all of them and then those of the data node's rack, bounded by the input's
// soonest arrival there); then the devices that hold an input. Every placement,
// start and finish must agree, and so must the run's totals. And every choice is
// the earliest finish over every device of the cluster, racks, NICs and spine
// notwithstanding.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/generators.hpp"
#include "support/checked_policy.hpp"

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
        const auto run_on = [&](DeviceId d) {
          return s.perf.task_seconds(task, s.cluster.device(d), 0);
        };
        // The classes of group g (on the rack when it is given), in order of their first
        // free member, looked at while they can beat the best finish.
        const auto walk = [&](std::size_t g, double run, double inputs_arrive, int rack) {
          std::vector<std::pair<std::pair<double, std::size_t>, DeviceId>> order;
          for (std::size_t c = 0; c < groups_[g].size(); ++c) {
            const DeviceId first = first_free(s, groups_[g][c]);
            if (rack >= 0 && s.cluster.rack_index(s.cluster.device(first).node) != unsigned(rack))
              continue;
            order.push_back({{s.device_available_seconds[first], class_index_[g][c]}, first});
          }
          std::sort(order.begin(), order.end());
          for (const auto& [key, d] : order) {
            if (std::max(key.first, inputs_arrive) + run >= best_finish) break;
            consider(d, run);
          }
        };
        // Nodes that hold an input: every class there, first free member.
        const NodeId data_node = s.graph.job(s.graph.job_of(t)).data_node;
        std::vector<NodeId> near;
        if (task.input_bytes > 0) near.push_back(data_node);
        for (const Dependency& p : s.graph.predecessors(t))
          if (s.placement[p.task] != kUnplaced)
            near.push_back(s.cluster.device(s.placement[p.task]).node);
        for (std::size_t g = 0; g < groups_.size(); ++g)
          for (const std::vector<DeviceId>& members : groups_[g])
            if (std::find(near.begin(), near.end(), s.cluster.device(members[0]).node) !=
                near.end())
              consider(first_free(s, members), run_on(members[0]));
        // The racks that hold an input: the data node's, then the predecessors' devices'.
        std::vector<int> near_racks;
        if (task.input_bytes > 0)
          near_racks.push_back(static_cast<int>(s.cluster.rack_index(data_node)));
        for (const Dependency& p : s.graph.predecessors(t))
          if (s.placement[p.task] != kUnplaced) {
            const int r =
                static_cast<int>(s.cluster.rack_index(s.cluster.device(s.placement[p.task]).node));
            if (std::find(near_racks.begin(), near_racks.end(), r) == near_racks.end())
              near_racks.push_back(r);
          }
        for (const auto& [run, g] : runs) {
          double widest_nic = 0;  // of the group's nodes
          for (const std::vector<DeviceId>& members : groups_[g])
            widest_nic = std::max(widest_nic,
                                  s.cluster.node(s.cluster.device(members[0]).node).nic_bandwidth);
          // The soonest every input reaches a node of `in_rack` holding none (-1: of a rack
          // holding none): from that rack at the in-rack bound, from others across racks.
          const auto arrive = [&](int in_rack) {
            double at = s.now_seconds;
            const auto bound = [&](const Cluster::RemoteInputBounds& b, NodeId from) {
              return s.cluster.rack_index(from) == unsigned(in_rack) ? b.same_rack : b.other_racks;
            };
            if (task.input_bytes > 0)
              at = s.now_seconds + bound(s.cluster.remote_host_to_device_lower_bounds(
                                             task.input_bytes, data_node, widest_nic),
                                         data_node);
            for (const Dependency& p : s.graph.predecessors(t)) {
              if (s.placement[p.task] == kUnplaced) continue;
              const NodeId from = s.cluster.device(s.placement[p.task]).node;
              at = std::max(at, std::max(s.now_seconds, s.finish_seconds[p.task]) +
                                    bound(s.cluster.remote_host_to_device_lower_bounds(
                                              p.bytes, from, widest_nic),
                                          from));
            }
            return at;
          };
          walk(g, run, arrive(-1), -1);
          for (int r : near_racks) walk(g, run, arrive(r), r);
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

  // A class's first free member: the least (free time, device id).
  static DeviceId first_free(const ClusterSnapshot& s, const std::vector<DeviceId>& members) {
    DeviceId first = members[0];
    for (DeviceId d : members)
      if (std::pair(s.device_available_seconds[d], d) <
          std::pair(s.device_available_seconds[first], first))
        first = d;
    return first;
  }

  std::vector<std::vector<std::vector<DeviceId>>> groups_;  // group → class → devices
  std::vector<std::vector<std::size_t>> class_index_;       // group → class → class number
};

void expect_same_run(const Cluster& cluster, const Workload& workload) {
  const RooflineModel perf(cluster);
  auto fast = make_policy("greedy-eft", {});
  ScanningEftPolicy reference;
  const RunReport a = Simulator(cluster, workload, perf, *fast).run();
  const RunReport b = Simulator(cluster, workload, perf, reference).run();
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

// The speed benchmark's shape, small: tasks that read their input from the node of their
// job; jobs arrive at a few instants, so the heaps see devices drain and free times reset
// between decisions.
struct InputTasks {
  std::size_t nodes = 1, jobs = 1, tasks_per_job = 1;
  std::size_t node_stride = 1;  // job j's data node: j × stride mod nodes
  std::size_t instants = 3;     // arrivals at 0, step, 2 step, ...
  double step_seconds = 20;
  double min_input_bytes = 1e6, max_input_bytes = 1e8;
  std::uint64_t seed = 5;
};

Workload tasks_with_inputs(const InputTasks& p) {
  Rng rng(p.seed);
  Workload workload;
  for (std::size_t j = 0; j < p.jobs; ++j) {
    Job job;
    job.name = "batch" + std::to_string(j);
    job.data_node = static_cast<NodeId>((j * p.node_stride) % p.nodes);
    job.arrival_seconds = static_cast<double>(j % p.instants) * p.step_seconds;
    job.tasks.resize(p.tasks_per_job);
    for (Task& task : job.tasks) {
      task.kernel = j % 2 ? KernelClass::elementwise : KernelClass::dense_matmul;
      task.precision = Precision::fp32;
      task.flops = rng.uniform(1e11, 1e13);
      task.bytes = rng.uniform(1e8, 1e9);
      task.memory_bytes = 1e9;
      task.input_bytes = rng.uniform(p.min_input_bytes, p.max_input_bytes);
    }
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

// Inputs of seconds on the wire, more across racks.
Workload long_inputs(std::size_t nodes, std::size_t jobs, std::size_t tasks_per_job) {
  return tasks_with_inputs({.nodes = nodes,
                            .jobs = jobs,
                            .tasks_per_job = tasks_per_job,
                            .node_stride = 5,
                            .instants = 4,
                            .step_seconds = 15,
                            .min_input_bytes = 1e8,
                            .max_input_bytes = 5e10,
                            .seed = 7});
}

TEST(GreedyEftPolicy, PlacesLikeAPlainScanOnIndependentTasksWithInputs) {
  expect_same_run(benchmark_cluster(6, 3),
                  tasks_with_inputs({.nodes = 6, .jobs = 12, .tasks_per_job = 60}));
}

// Every greedy-eft choice, as it is made, against every device of the cluster: its
// predicted finish must be the earliest there is.
void expect_earliest_finish(const ClusterSnapshot& s, const Assignment& a) {
  double earliest = kCannotRun;
  for (const Device& d : s.cluster.devices()) {
    const double run = s.perf.task_seconds(s.graph.task(a.task), d, 0);
    if (run == kCannotRun) continue;
    earliest = std::min(
        earliest,
        std::max(s.device_available_seconds[d.id], s.data_ready_seconds(a.task, d.id)) + run);
  }
  EXPECT_EQ(a.predicted_finish_seconds, earliest) << "task " << a.task;
}

// Three racks of four nodes whose NICs differ, joined by a spine narrower than the NICs
// and slower to cross: the input bounds are lower bounds, never exact.
Cluster racks_with_uneven_nics() {
  Cluster cluster;
  cluster.network().inter_rack_bandwidth = 4e9;
  cluster.network().inter_rack_latency_seconds = 2e-4;
  const char* const parts[] = {"H100-SXM", "A100-80GB", "EPYC-9654"};
  for (int n = 0; n < 12; ++n) {
    Node node;
    node.name = "node" + std::to_string(n);
    node.rack = "rack" + std::to_string(n / 4);
    node.link = {"pcie5", 64e9, 2e-6};
    node.nic_bandwidth = 6.25e9 * static_cast<double>(1 + n % 3);
    const DeviceSpec part = *find_catalog_part(parts[n % 3]);
    cluster.add_node(node, {part, part});
  }
  return cluster;
}

// Layered workflows whose edges carry gigabytes, their first level reading an input.
Workload workflows(std::size_t nodes, std::size_t jobs) {
  Rng rng(11);
  Workload workload;
  for (std::size_t j = 0; j < jobs; ++j) {
    Job job =
        workflow_job({"wf" + std::to_string(j), 60, 8, static_cast<double>(j % 3) * 10.0}, rng);
    job.data_node = static_cast<NodeId>((j * 3) % nodes);
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

TEST(GreedyEftPolicy, PlacesLikeAPlainScanOnWorkflowsAcrossRacks) {
  expect_same_run(racks_with_uneven_nics(), workflows(12, 6));
  expect_same_run(benchmark_cluster(70, 2), workflows(70, 6));
}

TEST(GreedyEftPolicy, PlacesLikeAPlainScanAcrossRacksWithUnevenNics) {
  expect_same_run(racks_with_uneven_nics(), long_inputs(12, 16, 40));
  expect_same_run(benchmark_cluster(70, 2), long_inputs(70, 8, 50));  // three racks
}

TEST(GreedyEftPolicy, EveryChoiceIsTheEarliestFinishOverEveryDevice) {
  for (const Cluster& cluster : {racks_with_uneven_nics(), benchmark_cluster(70, 2)}) {
    const RooflineModel perf(cluster);
    for (const Workload& workload :
         {long_inputs(cluster.node_count(), 12, 40), workflows(cluster.node_count(), 6)}) {
      CheckedPolicy checked("greedy-eft", expect_earliest_finish);
      const RunReport report = Simulator(cluster, workload, perf, checked).run();
      EXPECT_EQ(report.tasks_completed, workload.task_count());
      EXPECT_EQ(checked.checked, workload.task_count());
    }
  }
}

// Actual run times that drift from the predictions (a device that drains early is free
// before its predicted time: reality wins, and its free time goes down) and devices that
// fail and come back: the index lowers those devices, and every choice is still the
// earliest finish (the heaps' keys stayed above the current values before, and these
// runs found finishes 20 % later than the earliest).
TEST(GreedyEftPolicy, EveryChoiceIsTheEarliestFinishWhenRunTimesDriftAndDevicesFail) {
  for (const Cluster& cluster : {racks_with_uneven_nics(), benchmark_cluster(70, 2)}) {
    const RooflineModel perf(cluster);
    for (const Workload& workload :
         {long_inputs(cluster.node_count(), 12, 40), workflows(cluster.node_count(), 6)}) {
      for (const SimulationOptions& options : {drifting_run_times(), failing_devices(0.02, 20)}) {
        CheckedPolicy checked("greedy-eft", expect_earliest_finish);
        const RunReport report = Simulator(cluster, workload, perf, checked, options).run();
        EXPECT_EQ(report.tasks_completed, workload.task_count());
        EXPECT_GE(checked.checked, workload.task_count());
      }
    }
  }
}

}  // namespace
}  // namespace hetsched
