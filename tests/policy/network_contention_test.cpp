// Plans that share the NICs (NetworkModel::one_port_nics): a node's NIC sends one transfer
// at a time and receives one at a time, as the twin's do. Worked out by hand on nodes of
// explicit-cost devices joined by NICs that move one byte a second with no latency: two
// inputs bound for one consumer take turns on the NIC they share (the sender's or the
// receiver's), external inputs leave the job's data node through its NIC, a NIC busy
// before the plan delays them (and a job's plan is made after the NIC time of the jobs
// planned before it), taking a placement back frees its
// transfers' time, inputs inside a node do not queue, and the twin runs such a plan in the
// time it planned, where the contention-free plan is late. On a cluster of racks and
// unlike NICs, with external inputs, the data-ready times of every device at once (which
// fit once per kind of quiet node) are those asked device by device.
#include <gtest/gtest.h>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "random_dag.hpp"

namespace hetsched {
namespace {

// One node per entry of `devices_per_node`; NICs at 1 byte/s, no latency anywhere.
Cluster nodes_with_slow_nics(std::initializer_list<std::size_t> devices_per_node) {
  Cluster cluster;
  const DeviceSpec& cpu = *find_catalog_part("EPYC-9654");
  for (const std::size_t devices : devices_per_node) {
    Node node;
    node.name = "node" + std::to_string(cluster.node_count());
    node.link = IntraNodeLink{"fast", 1e12, 0.0};
    node.nic_bandwidth = 1.0;
    cluster.add_node(node, std::vector<DeviceSpec>(devices, cpu));
  }
  cluster.network().latency_seconds = 0;
  cluster.network().inter_rack_latency_seconds = 0;
  return cluster;
}

// Producers p0 (1 s, on device 0 alone) and p1 (2 s, on device 1 alone) send 3 and 4
// bytes to c (1 s on device 2, `c_on_device_0` s on device 0); 100 s anywhere else.
Job two_inputs_job(double c_on_device_0 = 100) {
  Job job;
  job.name = "two-inputs";
  for (const std::vector<double>& cost :
       std::vector<std::vector<double>>{{1, 100, 100}, {100, 2, 100}, {c_on_device_0, 100, 1}}) {
    Task task;
    task.name = "t" + std::to_string(job.tasks.size());
    task.cost_seconds = cost;
    job.tasks.push_back(std::move(task));
  }
  job.edges = {Edge{0, 2, 3}, Edge{1, 2, 4}};
  return job;
}

struct TwoInputs {
  Cluster cluster;
  RooflineModel perf{cluster};
  Workload workload;
  TaskGraph graph{workload};
  DagInstance instance{graph, 0, perf};

  explicit TwoInputs(Cluster c, Job job = two_inputs_job())
      : cluster(std::move(c)), workload{.jobs = {std::move(job)}} {}
};

const ScheduleLimits kSharedNics{.network = NetworkModel::one_port_nics};

// Each planned transfer's start and arrival, in the plan's order.
std::vector<std::pair<double, double>> starts_and_arrivals(const StaticSchedule& plan) {
  std::vector<std::pair<double, double>> times;
  for (const PlannedTransfer& f : plan.transfers)
    times.emplace_back(f.start_seconds, f.arrival_seconds);
  return times;
}

TEST(NetworkContention, InputsTakeTurnsOnTheNicTheyShare) {
  // Devices 0 and 1 on one node share its sending NIC; on three nodes, node 2's receiving
  // NIC is shared. Either way p0's 3 bytes go over [1, 4], p1's 4 wait until 4 and arrive
  // at 8, and c runs [8, 9]; without contention both arrive by 6 and c runs [6, 7].
  for (const auto& shape : {std::initializer_list<std::size_t>{2, 1}, {1, 1, 1}}) {
    const TwoInputs f(nodes_with_slow_nics(shape));
    const StaticSchedule shared = heft_plan(f.instance, kSharedNics);
    EXPECT_EQ(shared.tasks[2].device, 2u);
    EXPECT_DOUBLE_EQ(shared.tasks[2].start_seconds, 8.0);
    EXPECT_DOUBLE_EQ(shared.makespan_seconds, 9.0);
    EXPECT_EQ(starts_and_arrivals(shared),
              (std::vector<std::pair<double, double>>{{1, 4}, {4, 8}}));
    const StaticSchedule free = heft_plan(f.instance, ScheduleLimits{});
    EXPECT_DOUBLE_EQ(free.makespan_seconds, 7.0);
    EXPECT_TRUE(free.transfers.empty());
  }
}

TEST(NetworkContention, ExternalInputsLeaveTheDataNodeThroughItsNic) {
  // x and y (independent, 1 s on device 2 alone) read 3 and 4 bytes from the job's data
  // node, node 0: x's over [0, 3], y's after it over [3, 7]; x runs [3, 4] and y [7, 8],
  // in the plan and in the twin. Sent from 5 instead, they arrive at 8 and 12. A plan
  // without shared NICs leaves them out (x [0, 1], y [1, 2]).
  Job job;
  job.name = "inputs";
  for (const double bytes : {3.0, 4.0}) {
    Task task;
    task.name = "t" + std::to_string(job.tasks.size());
    task.cost_seconds = {100, 100, 1};
    task.input_bytes = bytes;
    job.tasks.push_back(std::move(task));
  }
  const TwoInputs f(nodes_with_slow_nics({2, 1}), job);
  const StaticSchedule shared = heft_plan(f.instance, kSharedNics);
  EXPECT_DOUBLE_EQ(shared.tasks[0].start_seconds, 3.0);
  EXPECT_DOUBLE_EQ(shared.tasks[1].start_seconds, 7.0);
  ASSERT_EQ(shared.transfers.size(), 2u);
  EXPECT_EQ(shared.transfers[1].edge, PlannedTransfer::kExternalInput);
  EXPECT_EQ(shared.transfers[1].from_node, 0u);
  const StaticSchedule later = heft_plan(f.instance, ScheduleLimits{
                                                         .network = NetworkModel::one_port_nics,
                                                         .external_inputs_from_seconds = 5,
                                                     });
  EXPECT_DOUBLE_EQ(later.makespan_seconds, 13.0);
  EXPECT_DOUBLE_EQ(heft_plan(f.instance, ScheduleLimits{}).makespan_seconds, 2.0);
  auto policy = make_policy("heft", PolicyOptions{.plan_network = NetworkModel::one_port_nics});
  Simulator sim(f.cluster, f.workload, f.perf, *policy, SimulationOptions{.seed = 1});
  EXPECT_NEAR(sim.run().makespan_seconds, shared.makespan_seconds, 1e-9);
}

TEST(NetworkContention, EachJobIsPlannedAfterTheNicTimeOfTheJobsBefore) {
  // Two jobs arrive at 0, each one task reading 3 bytes from node 0: 1 s on device 2 (node
  // 1), 5.5 s on device 0 (node 0). The first is planned on device 2 (input over [0, 3],
  // finish 4). The second, planned after that booking, would get its input over [3, 6] on
  // device 2 and finish at 7, so it stays on device 0 and finishes at 5.5; planned as if
  // the NIC were free, it would go to device 2 to finish at 5, and finish at 7 in the twin.
  Workload workload;
  for (const char* name : {"first", "second"}) {
    Job job;
    job.name = name;
    Task task;
    task.name = std::string(name) + "-task";
    task.cost_seconds = {5.5, 100, 1};
    task.input_bytes = 3;
    job.tasks.push_back(std::move(task));
    workload.jobs.push_back(std::move(job));
  }
  const Cluster cluster = nodes_with_slow_nics({2, 1});
  const RooflineModel perf(cluster);
  auto policy = make_policy("heft", PolicyOptions{.plan_network = NetworkModel::one_port_nics});
  Simulator sim(cluster, workload, perf, *policy, SimulationOptions{.seed = 1});
  EXPECT_NEAR(sim.run().makespan_seconds, 5.5, 1e-9);
}

TEST(NetworkContention, ANicBusyBeforeThePlanDelaysItsTransfers) {
  // Node 0's sending NIC is busy until 5: p0's bytes go over [5, 8], p1's over [8, 12].
  const TwoInputs f(nodes_with_slow_nics({2, 1}));
  const std::vector<double> nic_free{5, 0, 0, 0};  // sending NICs, then receiving ones
  const StaticSchedule plan = heft_plan(
      f.instance,
      ScheduleLimits{.network = NetworkModel::one_port_nics, .nic_free_seconds = nic_free});
  EXPECT_DOUBLE_EQ(plan.tasks[2].start_seconds, 12.0);
  EXPECT_DOUBLE_EQ(plan.makespan_seconds, 13.0);
}

TEST(NetworkContention, TakingAPlacementBackFreesItsTransfers) {
  const TwoInputs f(nodes_with_slow_nics({2, 1}));
  PartialSchedule partial(f.instance, kSharedNics);
  partial.place(0, partial.earliest_placement(0, 0));
  partial.place(1, partial.earliest_placement(1, 1));
  // Asking fits the transfers tentatively: asking again gives the same answer.
  EXPECT_DOUBLE_EQ(partial.data_ready_seconds(2, 2), 8.0);
  EXPECT_DOUBLE_EQ(partial.data_ready_seconds(2, 2), 8.0);
  // Inside node 0 nothing queues: on device 0, p1's output comes over the node's link.
  EXPECT_NEAR(partial.data_ready_seconds(2, 0), 2.0, 1e-9);
  partial.place(2, partial.earliest_placement(2, 2));
  partial.unplace(2);
  EXPECT_DOUBLE_EQ(partial.data_ready_seconds(2, 2), 8.0);
}

TEST(NetworkContention, TheTwinRunsASharedNicPlanInThePlannedTime) {
  // c takes 6 s on device 0, where p1's output comes over node 0's link: it would finish at
  // 8 there. The contention-free plan puts c on device 2 to finish at 7, and the twin,
  // whose NICs queue, finishes it at 9; the shared-NIC plan knows that and keeps c on
  // device 0, and the twin finishes at 8, as planned.
  const TwoInputs f(nodes_with_slow_nics({2, 1}), two_inputs_job(6));
  for (const auto& [network, planned, simulated] :
       {std::tuple{NetworkModel::one_port_nics, 8.0, 8.0},
        std::tuple{NetworkModel::contention_free, 7.0, 9.0}}) {
    const PolicyOptions options{.plan_network = network};
    EXPECT_NEAR(make_static_planner("heft", options)
                    ->plan(f.instance, ScheduleLimits{.network = network})
                    .makespan_seconds,
                planned, 1e-9);
    auto policy = make_policy("heft", options);
    Simulator sim(f.cluster, f.workload, f.perf, *policy, SimulationOptions{.seed = 1});
    const RunReport report = sim.run();
    ASSERT_EQ(report.tasks_completed, 3u);
    EXPECT_NEAR(report.makespan_seconds, simulated, 1e-9);
  }
}

TEST(NetworkContention, EveryDeviceAtOnceIsEachDeviceAskedAlone) {
  Cluster cluster;
  const DeviceSpec& cpu = *find_catalog_part("EPYC-9654");
  for (std::size_t n = 0; n < 12; ++n) {
    Node node;
    node.name = "node" + std::to_string(n);
    node.rack = "rack" + std::to_string(n % 3);
    node.link = IntraNodeLink{"link", 4.0, 0.125};
    node.nic_bandwidth = n % 2 == 0 ? 1.0 : 2.0;
    cluster.add_node(node, std::vector<DeviceSpec>(1 + n % 2, cpu));
  }
  cluster.network().latency_seconds = 0.5;
  cluster.network().inter_rack_latency_seconds = 0.25;
  cluster.network().inter_rack_bandwidth = 1.5;
  const RooflineModel perf(cluster);
  Rng rng(7);
  const RandomDag dag = generate_random_dag(
      RandomDagParams{.tasks = 40, .ccr = 2.0, .devices = cluster.device_count()}, rng);
  Workload workload{.jobs = {dag.as_job("random")}};
  workload.jobs[0].data_node = 4;  // every third task reads an external input from node 4
  for (std::size_t t = 0; t < workload.jobs[0].tasks.size(); t += 3)
    workload.jobs[0].tasks[t].input_bytes = 2.0;
  const TaskGraph graph(workload);
  const DagInstance instance(graph, 0, perf);
  PartialSchedule partial(instance, kSharedNics);
  std::vector<double> ready(cluster.device_count());
  for (const std::uint32_t t : priority_order(instance, upward_ranks(instance))) {
    partial.data_ready_on_every_device(t, ready);
    for (DeviceId d = 0; d < cluster.device_count(); ++d)
      EXPECT_DOUBLE_EQ(ready[d], partial.data_ready_seconds(t, d))
          << "task " << t << " device " << d;
    partial.place(t, partial.earliest_finish_placement(t));
  }
  EXPECT_FALSE(std::move(partial).finish().transfers.empty());  // the plan uses the NICs
}

}  // namespace
}  // namespace hetsched
