// Data-parallel split: equal finish times, the best device subset (a slow device
// with costly communication left out), minimum chunks, bad input, and a split run
// through the simulator.
#include "hetsched/partition/data_parallel_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "hetsched/partition/stencil_split.hpp"
#include "hetsched/partition/training_split.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "partition/cluster_split.hpp"

namespace hetsched {
namespace {

TEST(DataParallelSplit, PartsFinishTogetherInProportionToRate) {
  DataParallelSplitRequest r{
      1000, 0, false, {{"fast", 0.001, 0.1}, {"mid", 0.002, 0.05}, {"slow", 0.004, 0.0}}};
  const DataParallelSplit s = split_data_parallel(r);
  ASSERT_TRUE(s.feasible) << s.message;
  // T = (W + Σ c/a) / Σ 1/a = (1000 + 100 + 25 + 0) / (1000 + 500 + 250).
  const double expected = 1125.0 / 1750.0;
  EXPECT_NEAR(s.makespan_seconds, expected, 1e-12);
  double total = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(s.used[i]);
    EXPECT_NEAR(s.finish_seconds[i], expected, 1e-12);
    total += s.items[i];
  }
  EXPECT_NEAR(total, 1000, 1e-9);
  EXPECT_GT(s.items[0], s.items[1]);
  EXPECT_GT(s.items[1], s.items[2]);
  EXPECT_GT(s.speedup_over_equal(), 1.0);
}

TEST(DataParallelSplit, SlowDeviceWithCostlyCommunicationIsLeftOut) {
  // The third device is slow and needs 2 s of start-up (a long transfer) — more
  // than the 1.05 s the other two need for everything.
  DataParallelSplitRequest r{
      1000, 0, false, {{"a", 0.001, 0.05}, {"b", 0.001, 0.05}, {"far", 0.01, 2.0}}};
  const DataParallelSplit s = split_data_parallel(r);
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(s.used[0]);
  EXPECT_TRUE(s.used[1]);
  EXPECT_FALSE(s.used[2]);
  EXPECT_EQ(s.items[2], 0);
  EXPECT_NEAR(s.makespan_seconds, 0.55, 1e-12);
  // It is the best subset: no other subset's equal-finish time is lower.
  for (std::uint32_t mask = 1; mask < 8; ++mask) {
    DataParallelSplitRequest sub{1000, 0, false, {}};
    for (std::size_t i = 0; i < 3; ++i)
      if (mask & (1u << i)) sub.devices.push_back(r.devices[i]);
    const DataParallelSplit t = split_data_parallel(sub);
    EXPECT_GE(t.makespan_seconds, s.makespan_seconds - 1e-12);
  }
}

TEST(DataParallelSplit, MinimumChunkAndIntegralItemsRespected) {
  DataParallelSplitRequest r{100, 30, true, {{"fast", 0.001, 0}, {"slow", 0.01, 0}}};
  const DataParallelSplit s = split_data_parallel(r);
  ASSERT_TRUE(s.feasible);
  // The slow device's equal-finish share would be 9.09 items < 30: it is left out.
  EXPECT_FALSE(s.used[1]);
  EXPECT_EQ(s.items[0], 100);
  DataParallelSplitRequest integral{101, 1, true, {{"a", 0.001, 0}, {"b", 0.002, 0}}};
  const DataParallelSplit t = split_data_parallel(integral);
  ASSERT_TRUE(t.feasible);
  EXPECT_EQ(t.items[0] + t.items[1], 101);
  EXPECT_EQ(t.items[0], std::floor(t.items[0]));
}

TEST(DataParallelSplit, BadInputGetsAnAnswer) {
  EXPECT_NE(split_data_parallel({10, 0, false, {}}).message.find("empty"), std::string::npos);
  EXPECT_FALSE(split_data_parallel({10, 0, false, {{"broken", 0, 0}}}).feasible);
  EXPECT_FALSE(split_data_parallel({10, 20, false, {{"a", 1, 0}}}).feasible);
}

Cluster three_gpu_node() {
  DeviceSpec fast, mid, slow;
  fast.model = "fast";
  fast.matrix_flops = {4e12, 4e12, 4e12, 4e12};
  fast.vector_flops = fast.matrix_flops;
  fast.memory_bytes = 1e11;
  fast.memory_bandwidth = 1e12;
  fast.idle_watts = 10;
  fast.peak_watts = 100;
  mid = fast, mid.model = "mid";
  mid.matrix_flops = mid.vector_flops = {2e12, 2e12, 2e12, 2e12};
  slow = fast, slow.model = "slow";
  slow.matrix_flops = slow.vector_flops = {1e12, 1e12, 1e12, 1e12};
  Cluster cluster;
  Node node;
  node.name = "n0";
  node.link = IntraNodeLink{"pcie", 1e10, 1e-5};
  cluster.add_node(node, {fast, mid, slow});
  return cluster;
}

TEST(DataParallelSplit, SplitRunsInTheSimulatorAsPlanned) {
  const Cluster cluster = three_gpu_node();
  const RooflineModel perf(cluster);
  DivisibleTask work;
  work.name = "batch";
  work.per_item.kernel = KernelClass::dense_matmul;
  work.per_item.flops = 1e10;
  work.item_input_bytes = 1e6;
  work.total_items = 1000;
  const ClusterSplit split = split_over_cluster(perf, {0, 1, 2}, work);
  ASSERT_TRUE(split.split.feasible) << split.split.message;
  Workload workload;
  workload.jobs.push_back(split_to_job(perf, split, work));
  ASSERT_EQ(workload.jobs[0].tasks.size(), 3u);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  Simulator sim(cluster, workload, perf, *policy);
  const RunReport report = sim.run();
  ASSERT_EQ(report.tasks_completed, 3u);
  for (const TaskRecord& t : report.schedule) EXPECT_EQ(t.device, split.devices[t.task]);
  // The simulator moves each part's input over the node's link, then computes it:
  // the same start-up and per-item terms the split used, so the makespans agree.
  EXPECT_NEAR(report.makespan_seconds, split.split.makespan_seconds,
              1e-6 * split.split.makespan_seconds);
  for (const TaskRecord& t : report.schedule)
    EXPECT_NEAR(t.finish_seconds, report.makespan_seconds, 0.01 * report.makespan_seconds);
}

TEST(TrainingSplit, RingAllReduceFollowsTheFormula) {
  Cluster cluster;
  DeviceSpec gpu;
  gpu.model = "g";
  gpu.matrix_flops = gpu.vector_flops = {1e12, 1e12, 1e12, 1e12};
  gpu.memory_bytes = 1e11;
  for (int n = 0; n < 4; ++n) {
    Node node;
    node.name = "n" + std::to_string(n);
    node.nic_bandwidth = n == 2 ? 5e9 : 12.5e9;  // one slow NIC bounds the ring
    cluster.add_node(node, {gpu});
  }
  cluster.network().latency_seconds = 1e-5;
  const double bytes = 2.6e9;
  // 2(n−1)/n × bytes / slowest link + 2(n−1) × latency.
  EXPECT_NEAR(ring_allreduce_seconds(cluster, {0, 1, 2, 3}, bytes),
              2.0 * 3 / 4 * bytes / 5e9 + 6 * 1e-5, 1e-12);
  EXPECT_NEAR(ring_allreduce_seconds(cluster, {0, 1}, bytes), 1.0 * bytes / 12.5e9 + 2e-5, 1e-12);
  EXPECT_EQ(ring_allreduce_seconds(cluster, {0}, bytes), 0.0);
}

TEST(TrainingSplit, MicroBatchesFollowThroughputAndBeatTheEqualSplit) {
  const Cluster cluster = three_gpu_node();
  const RooflineModel perf(cluster);
  TrainingStepSpec spec;
  spec.parameters = 1e8;
  spec.global_batch_samples = 700;
  spec.tokens_per_sample = 128;
  const TrainingSplit t = split_training_step(perf, {0, 1, 2}, spec);
  ASSERT_TRUE(t.feasible) << t.message;
  // Rates 4:2:1, so 400, 200 and 100 samples.
  EXPECT_NEAR(t.samples[0], 400, 1);
  EXPECT_NEAR(t.samples[1], 200, 1);
  EXPECT_NEAR(t.samples[2], 100, 1);
  EXPECT_GT(t.speedup_over_equal(), 1.5);
  EXPECT_NEAR(t.step_seconds, t.compute_seconds + t.allreduce_seconds, 1e-12);
  EXPECT_FALSE(split_training_step(perf, {}, spec).feasible);
  spec.parameters = 1e12;  // 16 TB of model state fits nowhere
  const TrainingSplit none = split_training_step(perf, {0, 1, 2}, spec);
  EXPECT_FALSE(none.feasible);
  EXPECT_NE(none.message.find("no device can hold the model"), std::string::npos);
}

TEST(StencilSplit, SlabsByRateBeatEqualSlabs) {
  const Cluster cluster = three_gpu_node();
  const RooflineModel perf(cluster);
  StencilSpec spec;
  spec.planes = 512;
  spec.cells_per_plane = 512.0 * 512.0;
  spec.bytes_per_cell = 4;
  spec.flops_per_cell = 100;  // compute-bound here, so the 4:2:1 rates show
  const StencilSplit s = split_stencil(perf, {0, 1, 2}, spec);
  ASSERT_TRUE(s.split.feasible) << s.split.message;
  EXPECT_GT(s.split.items[0], s.split.items[1]);
  EXPECT_GT(s.split.items[1], s.split.items[2]);
  EXPECT_EQ(s.split.items[0] + s.split.items[1] + s.split.items[2], 512);
  EXPECT_GT(s.speedup_over_equal(), 1.3);
  EXPECT_NEAR(s.total_seconds, s.iteration_seconds * spec.iterations, 1e-12);
}

}  // namespace
}  // namespace hetsched
