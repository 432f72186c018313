#include "hetsched/perf/roofline_model.hpp"

#include <gtest/gtest.h>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"

namespace hetsched {
namespace {

Cluster one_of_each() {
  Cluster c;
  Node n;
  n.name = "n";
  c.add_node(n, {*find_catalog_part("H100-SXM"), *find_catalog_part("TPU-v5e"),
                 *find_catalog_part("EPYC-9654")});
  return c;
}

TEST(RooflineModel, ComputeBoundMatmulUsesMatrixPeakAndEfficiency) {
  const Cluster c = one_of_each();
  const RooflineModel model(c);
  Task t;
  t.kernel = KernelClass::dense_matmul;
  t.precision = Precision::fp16;
  t.flops = 1e15;
  t.bytes = 1e9;
  const Device& h100 = c.device(0);
  // 1e15 / (989e12 × 0.75) + 4 µs launch overhead; memory time 1e9/(3.35e12×0.8) is smaller.
  EXPECT_NEAR(model.task_seconds(t, h100), 1e15 / (989e12 * 0.75) + 4e-6, 1e-12);
}

TEST(RooflineModel, MemoryBoundTimeDoesNotScaleWithClock) {
  const Cluster c = one_of_each();
  const RooflineModel model(c);
  Task t;
  t.kernel = KernelClass::elementwise;
  t.flops = 1e9;
  t.bytes = 1e11;
  const Device& h100 = c.device(0);
  const double full = model.task_seconds(t, h100, 0);
  const double slow = model.task_seconds(t, h100, 3);
  EXPECT_NEAR(full, 1e11 / (3.35e12 * 0.85) + 4e-6, 1e-12);
  EXPECT_DOUBLE_EQ(full, slow);
  EXPECT_LT(model.task_joules(t, h100, 3), model.task_joules(t, h100, 0));
}

TEST(RooflineModel, HeterogeneityShowsWhereItShould) {
  const Cluster c = one_of_each();
  const RooflineModel model(c);
  const Device &gpu = c.device(0), &tpu = c.device(1), &cpu = c.device(2);
  Task matmul;
  matmul.kernel = KernelClass::dense_matmul;
  matmul.precision = Precision::fp16;
  matmul.flops = 1e14;
  EXPECT_LT(model.task_seconds(matmul, gpu), model.task_seconds(matmul, cpu) / 20);
  EXPECT_LT(model.task_seconds(matmul, tpu), model.task_seconds(matmul, cpu) / 10);
  Task branchy;
  branchy.kernel = KernelClass::branchy;
  branchy.flops = 1e11;
  branchy.bytes = 1e9;
  EXPECT_LT(model.task_seconds(branchy, cpu), model.task_seconds(branchy, gpu));
  EXPECT_LT(model.task_seconds(branchy, gpu), model.task_seconds(branchy, tpu));
  Task fp64;
  fp64.precision = Precision::fp64;
  fp64.flops = 1e9;
  EXPECT_EQ(model.task_seconds(fp64, tpu), kCannotRun);
  fp64.allowed_kinds = DeviceKindSet::none();
  fp64.allowed_kinds.insert(DeviceKind::cpu);
  EXPECT_EQ(model.task_seconds(fp64, gpu), kCannotRun);
  EXPECT_LT(model.task_seconds(fp64, cpu), kCannotRun);
}

TEST(RooflineModel, ExplicitCostsWinAndStretchWithPState) {
  const Cluster c = one_of_each();
  const RooflineModel model(c);
  Task t;
  t.cost_seconds = {14, 16, 9};
  EXPECT_DOUBLE_EQ(model.task_seconds(t, c.device(1)), 16);
  EXPECT_DOUBLE_EQ(model.task_seconds(t, c.device(2), 2),
                   9 / c.device(2).spec.pstates[2].speed_scale);
}

TEST(RooflineModel, TransfersFollowTheLinks) {
  const Cluster c = default_cluster();
  const RooflineModel model(c);
  EXPECT_EQ(model.transfer_seconds(1e9, 0, 0), 0.0);
  // Inside the H100 node: NVLink 450 GB/s, 2 µs.
  EXPECT_NEAR(model.transfer_seconds(1e9, 0, 1), 2e-6 + 1e9 / 450e9, 1e-12);
  // H100 node (rack0) to the TPU host (rack1): 100 Gb/s NICs, 5 + 5 µs.
  const DeviceId tpu = c.node(2).devices.front();
  EXPECT_NEAR(model.transfer_seconds(1e9, 0, tpu), 10e-6 + 1e9 / 12.5e9, 1e-12);
}

}  // namespace
}  // namespace hetsched
