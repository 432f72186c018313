// Map-reduce partitioning: the shuffle cost by hand on two nodes, the equal split
// on identical devices, the rate split beating the equal one on a mixed cluster
// (the fast devices map more), bad input, and a plan run through the simulator.
#include "hetsched/partition/map_reduce_partition.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "partition_benchmark.hpp"

namespace hetsched {
namespace {

Cluster two_partition_nodes(const char* first, const char* second) {
  Cluster cluster;
  for (const char* model : {first, second}) {
    Node node;
    node.name = std::string(model) + "-node";
    node.nic_bandwidth = 10e9;
    node.link = {"pcie", 50e9, 1e-6};
    cluster.add_node(node, {*find_catalog_part(model)});
  }
  return cluster;
}

MapReduceSpec inference_spec(double input_bytes) {
  MapReduceSpec spec;
  spec.name = "mr";
  spec.input_bytes = input_bytes;
  spec.map_per_byte.kernel = KernelClass::dense_matmul;
  spec.map_per_byte.precision = Precision::fp16;
  spec.map_per_byte.flops = 4e5;
  spec.map_per_byte.bytes = 4;
  spec.reduce_per_byte.kernel = KernelClass::reduction;
  spec.reduce_per_byte.precision = Precision::fp32;
  spec.reduce_per_byte.flops = 2;
  spec.reduce_per_byte.bytes = 8;
  spec.map_output_ratio = 0.1;
  return spec;
}

TEST(MapReducePartition, ShuffleCostByHand) {
  // Two identical nodes, equal map and equal key ranges: each node produces half the
  // output, keeps half of that and sends a quarter of the total over its NIC, and
  // receives a quarter. 10 GB input × 0.1 = 1 GB output: 0.25 GB / 10 GB/s.
  const Cluster cluster = two_partition_nodes("A100-80GB", "A100-80GB");
  const RooflineModel perf(cluster);
  const MapReduceSpec spec = inference_spec(10e9);
  const MapReducePhases p = map_reduce_phases(perf, {0, 1}, {5e9, 5e9}, {0.5, 0.5}, spec);
  EXPECT_NEAR(p.shuffle_seconds, 0.25e9 / 10e9 + cluster.network().latency_seconds, 1e-12);
  EXPECT_DOUBLE_EQ(p.map_fetch_seconds, 0);  // each node maps what it stores
  // All the key space on device 1: node 0 sends all its 0.5 GB, node 1 receives it.
  const MapReducePhases skewed = map_reduce_phases(perf, {0, 1}, {5e9, 5e9}, {0, 1}, spec);
  EXPECT_NEAR(skewed.shuffle_seconds, 0.5e9 / 10e9 + cluster.network().latency_seconds, 1e-12);
  // Node 0 maps 7.5 GB but stores 5: it fetches 2.5 GB.
  const MapReducePhases fetch = map_reduce_phases(perf, {0, 1}, {7.5e9, 2.5e9}, {0.5, 0.5}, spec);
  EXPECT_NEAR(fetch.map_fetch_seconds, 2.5e9 / 10e9 + cluster.network().latency_seconds, 1e-12);
}

TEST(MapReducePartition, IdenticalDevicesSplitEqually) {
  const Cluster cluster = two_partition_nodes("A100-80GB", "A100-80GB");
  const RooflineModel perf(cluster);
  const MapReducePlan plan = plan_map_reduce(perf, {0, 1}, inference_spec(10e9));
  ASSERT_TRUE(plan.feasible) << plan.message;
  EXPECT_NEAR(plan.map_bytes[0], plan.map_bytes[1], 1e-6 * plan.map_bytes[0]);
  EXPECT_NEAR(plan.speedup_over_equal(), 1.0, 1e-9);
}

TEST(MapReducePartition, RateSplitBeatsTheEqualSplitOnAMix) {
  const Cluster cluster = partition_benchmark_cluster();
  const RooflineModel perf(cluster);
  std::vector<DeviceId> all(cluster.device_count());
  std::iota(all.begin(), all.end(), DeviceId{0});
  const MapReduceSpec spec = inference_spec(20e9);
  const MapReducePlan plan = plan_map_reduce(perf, all, spec);
  ASSERT_TRUE(plan.feasible) << plan.message;
  EXPECT_NEAR(std::accumulate(plan.map_bytes.begin(), plan.map_bytes.end(), 0.0), 20e9, 1e3);
  EXPECT_NEAR(std::accumulate(plan.reduce_share.begin(), plan.reduce_share.end(), 0.0), 1, 1e-9);
  // Device 0 is an H100, device 4 a V100: the H100 maps more.
  EXPECT_GT(plan.map_bytes[0], plan.map_bytes[4]);
  EXPECT_GT(plan.speedup_over_equal(), 1.2);
  EXPECT_GT(plan.phases.map_fetch_seconds, 0);  // the fast nodes fetch input
  // The chosen phases are those of its own split.
  const MapReducePhases again =
      map_reduce_phases(perf, plan.devices, plan.map_bytes, plan.reduce_share, spec);
  EXPECT_DOUBLE_EQ(again.total_seconds(), plan.makespan_seconds());
}

TEST(MapReducePartition, BadInputIsAnAnswer) {
  const Cluster cluster = two_partition_nodes("A100-80GB", "V100");
  const RooflineModel perf(cluster);
  const MapReducePlan none = plan_map_reduce(perf, {}, inference_spec(1e9));
  EXPECT_FALSE(none.feasible);
  EXPECT_NE(none.message.find("empty"), std::string::npos);
  const MapReducePlan zero = plan_map_reduce(perf, {0, 1}, inference_spec(0));
  EXPECT_FALSE(zero.feasible);
  MapReduceSpec fp64_on_tpu = inference_spec(1e9);
  fp64_on_tpu.map_per_byte.precision = Precision::fp64;
  const Cluster tpus = two_partition_nodes("TPU-v5e", "TPU-v5e");
  const RooflineModel tpu_perf(tpus);
  const MapReducePlan no_device = plan_map_reduce(tpu_perf, {0, 1}, fp64_on_tpu);
  EXPECT_FALSE(no_device.feasible);
  EXPECT_NE(no_device.message.find("cannot run"), std::string::npos);
}

TEST(MapReducePartition, PlanRunsInTheSimulator) {
  const Cluster cluster = two_partition_nodes("H100-SXM", "V100");
  const RooflineModel perf(cluster);
  const MapReduceSpec spec = inference_spec(4e9);
  const MapReducePlan plan = plan_map_reduce(perf, {0, 1}, spec);
  ASSERT_TRUE(plan.feasible) << plan.message;
  Workload workload;
  workload.jobs.push_back(map_reduce_to_job(perf, plan, spec));
  const Job& job = workload.jobs[0];
  double shuffled = 0;
  for (const Edge& e : job.edges) shuffled += e.bytes;
  EXPECT_NEAR(shuffled, 4e9 * 0.1, 1e3);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  Simulator sim(cluster, workload, perf, *policy);
  const RunReport report = sim.run();
  EXPECT_EQ(report.tasks_completed, job.tasks.size());
  for (const TaskRecord& t : report.schedule) {
    const std::string& name = workload.jobs[0].tasks[t.task].name;
    EXPECT_NE(name.find(cluster.device(t.device).name), std::string::npos) << name;
  }
  EXPECT_GT(report.makespan_seconds, plan.phases.map_seconds);
}

}  // namespace
}  // namespace hetsched
