// A hand-computed run: a diamond DAG A → {B, C} → D on one GPU (d0) and one CPU
// (d1) of one node whose link moves 1 GB/s with no latency, under greedy-eft.
//
// Costs (explicit, seconds): A 2|4, B 3|6, C 4|4.5, D 2|3.5 (d0|d1).
// Edges: A→B 1 GB, A→C 2 GB, B→D 1 GB, C→D 1 GB.
//   t=0    A ready. EFT d0 = 2, d1 = 4 → d0; runs 0–2.
//   t=2    B ready: d0 = 2+3 = 5, d1 = (2+1)+6 = 9 → d0, runs 2–5 (input local).
//          C ready: d0 = 5+4 = 9, d1 = (2+2)+4.5 = 8.5 → d1; A→C moves 2 s, C runs 4–8.5.
//   t=8.5  D ready: d0 = max(5, 8.5+1)+2 = 11.5, d1 = max(8.5, 5+1)+3.5 = 12 → d0;
//          C→D moves 8.5–9.5, D runs 9.5–11.5.
// Makespan 11.5 s; two transfers, 3 GB, 3 s.
// Energy: d0 busy 7 s at 10 + 100×0.95 = 105 W = 735 J, idle 4.5 s × 10 W = 45 J;
//         d1 busy 4.5 s at 5 + 40×0.9 = 41 W = 184.5 J, idle 7 s × 5 W = 35 J; total 999.5 J.
// Cost: (3.6 + 0.36) $/h × 11.5 s = 0.01265 $.
#include <gtest/gtest.h>

#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

DeviceSpec simple_spec(const char* model, DeviceKind kind, double idle, double peak, double price) {
  DeviceSpec s;
  s.model = model;
  s.kind = kind;
  s.matrix_flops = {1e12, 1e12, 1e12, 1e12};
  s.vector_flops = s.matrix_flops;
  s.memory_bytes = 1e10;
  s.memory_bandwidth = 1e11;
  s.idle_watts = idle;
  s.peak_watts = peak;
  s.price_per_hour = price;
  return s;
}

Task costed(const char* name, double gpu, double cpu) {
  Task t;
  t.name = name;
  t.kernel = KernelClass::dense_matmul;
  t.cost_seconds = {gpu, cpu};
  return t;
}

TEST(GoldenSimulation, DiamondOnGpuAndCpuMatchesHandComputation) {
  Cluster cluster;
  Node node;
  node.name = "n0";
  node.link = IntraNodeLink{"pcie", 1e9, 0.0};
  cluster.add_node(node, {simple_spec("gpu", DeviceKind::gpu, 10, 110, 3.6),
                          simple_spec("cpu", DeviceKind::cpu, 5, 45, 0.36)});
  Workload workload;
  Job job;
  job.name = "diamond";
  job.tasks = {costed("A", 2, 4), costed("B", 3, 6), costed("C", 4, 4.5), costed("D", 2, 3.5)};
  job.edges = {{0, 1, 1e9}, {0, 2, 2e9}, {1, 3, 1e9}, {2, 3, 1e9}};
  workload.jobs.push_back(job);

  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", {});
  Simulator sim(cluster, workload, perf, *policy);
  const RunReport r = sim.run();

  ASSERT_EQ(r.tasks_completed, 4u);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 11.5);
  const double expected_start[] = {0, 2, 4, 9.5}, expected_finish[] = {2, 5, 8.5, 11.5};
  const DeviceId expected_device[] = {0, 0, 1, 0};
  ASSERT_EQ(r.schedule.size(), 4u);
  for (const TaskRecord& t : r.schedule) {
    SCOPED_TRACE(t.task);
    EXPECT_EQ(t.device, expected_device[t.task]);
    EXPECT_DOUBLE_EQ(t.start_seconds, expected_start[t.task]);
    EXPECT_DOUBLE_EQ(t.finish_seconds, expected_finish[t.task]);
  }
  EXPECT_EQ(r.transfer_count, 2u);
  EXPECT_DOUBLE_EQ(r.transfer_bytes, 3e9);
  EXPECT_DOUBLE_EQ(r.transfer_seconds, 3.0);
  EXPECT_NEAR(r.energy_joules, 999.5, 1e-9);
  EXPECT_NEAR(r.devices[0].idle_joules, 45, 1e-9);
  EXPECT_NEAR(r.devices[1].busy_joules, 184.5, 1e-9);
  EXPECT_NEAR(r.cost_usd, 3.96 * 11.5 / 3600, 1e-12);
  EXPECT_DOUBLE_EQ(r.utilization_by_kind[static_cast<int>(DeviceKind::gpu)], 7 / 11.5);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(r.jobs[0].completion_seconds, 11.5);
  EXPECT_DOUBLE_EQ(r.jobs[0].waiting_seconds(), 0);
}

TEST(GoldenSimulation, NicContentionSerializesTransfersBetweenNodes) {
  // Two nodes of two devices each, 1 GB/s NICs, no latency. p1 and p2 run on the two
  // devices of node a and both finish at t=1; each sends 1 GB to its consumer on node
  // b. Node a's NIC carries one transfer at a time: arrivals at 2 and 3, not both at 2.
  Cluster cluster;
  for (const char* name : {"a", "b"}) {
    Node node;
    node.name = name;
    node.nic_bandwidth = 1e9;
    cluster.add_node(node, {simple_spec("gpu", DeviceKind::gpu, 1, 2, 0),
                            simple_spec("gpu", DeviceKind::gpu, 1, 2, 0)});
  }
  cluster.network().latency_seconds = 0;
  const auto task = [](const char* name, std::vector<double> costs) {
    Task t;
    t.name = name;
    t.cost_seconds = std::move(costs);
    return t;
  };
  Workload workload;
  Job job;
  job.name = "j";
  job.tasks = {task("p1", {1, 1, 100, 100}), task("p2", {1, 1, 100, 100}),
               task("c1", {100, 100, 1, 1}), task("c2", {100, 100, 1, 1})};
  job.edges = {{0, 2, 1e9}, {1, 3, 1e9}};
  workload.jobs.push_back(job);
  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", {});
  Simulator sim(cluster, workload, perf, *policy);
  const RunReport r = sim.run();
  ASSERT_EQ(r.tasks_completed, 4u);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 4.0);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_DOUBLE_EQ(r.transfers[0].start_seconds, 1.0);
  EXPECT_DOUBLE_EQ(r.transfers[0].finish_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.transfers[1].start_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.transfers[1].finish_seconds, 3.0);
}

}  // namespace
}  // namespace hetsched
