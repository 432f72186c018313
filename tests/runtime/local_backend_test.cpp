// LocalBackend executing real DAGs on worker threads: tiled Cholesky and GEMM give
// numerically right answers under registered policies, OpenCL can be switched off,
// a kernel that fails to build on a device is retried elsewhere and reported.
#include "hetsched/runtime/local_backend.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "../support/cholesky_residual.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"

namespace hetsched {
namespace {

// Redirects after a failure, retries and steals are reported to the scheduling loop, so
// its placement of every task that ran is the device it ran on; abandoned tasks are
// cancelled there.
void expect_loop_knows_where_tasks_ran(const LocalBackend& backend, const LocalRunReport& result) {
  for (const TaskRecord& r : result.report.schedule) {
    EXPECT_EQ(backend.loop().placement(r.task), r.device) << "task " << r.task;
    EXPECT_EQ(backend.loop().state(r.task), TaskState::finished) << "task " << r.task;
  }
  for (TaskIndex t = 0; t < backend.graph().task_count(); ++t) {
    if (backend.loop().state(t) == TaskState::finished) continue;
    EXPECT_TRUE(backend.loop().cancelled(t) || backend.loop().placement(t) == kUnplaced)
        << "task " << t << " did not run yet the loop holds it placed";
  }
}

LocalRunReport run_dag(LocalDevices& devices, RuntimeDag& dag, const std::string& policy_name,
                       LocalBackendOptions options = {}) {
  RooflineModel roofline(devices.cluster());
  auto policy = make_policy(policy_name, PolicyOptions{});
  LocalBackend backend(devices, dag, roofline, *policy, options);
  LocalRunReport result = backend.run();
  expect_loop_knows_where_tasks_ran(backend, result);
  return result;
}

TEST(LocalBackendTest, TiledCholeskyIsCorrectUnderEveryOnlinePolicy) {
  LocalDevices devices(LocalDevicesOptions{2, true, false});
  for (const char* policy : {"greedy-eft", "round-robin", "work-stealing"}) {
    TiledCholesky problem = make_tiled_cholesky(4, 24, 9);
    const LocalRunReport result = run_dag(devices, *problem.dag, policy);
    EXPECT_EQ(result.report.tasks_completed, problem.dag->workload().task_count()) << policy;
    EXPECT_TRUE(result.report.unfinished_tasks.empty()) << policy;
    EXPECT_TRUE(result.failures.empty()) << policy << ": " << result.failures.front().message;
    EXPECT_LT(cholesky_residual(problem), 1e-12) << policy;
    // Every task ran after all its predecessors finished.
    std::vector<double> start(result.report.tasks_total), finish(result.report.tasks_total);
    for (const TaskRecord& r : result.report.schedule)
      start[r.task] = r.start_seconds, finish[r.task] = r.finish_seconds;
    TaskGraph graph(problem.dag->workload());
    for (TaskIndex t = 0; t < graph.task_count(); ++t)
      for (const Dependency& p : graph.predecessors(t)) EXPECT_LE(finish[p.task], start[t]);
  }
}

TEST(LocalBackendTest, CholeskyDagHasTheClassicTaskCounts) {
  const TiledCholesky problem = make_tiled_cholesky(5, 8, 1);
  // T potrf, T(T-1)/2 trsm and syrk, T(T-1)(T-2)/6 gemm
  EXPECT_EQ(problem.dag->workload().task_count(), 5u + 10u + 10u + 10u);
}

TEST(LocalBackendTest, TiledGemmMatchesADenseProduct) {
  LocalDevices devices(LocalDevicesOptions{2, true, false});
  TiledGemm problem = make_tiled_gemm(3, 16, 4);
  const auto a = gather_matrix(problem.dag->data(), problem.a);
  const auto b = gather_matrix(problem.dag->data(), problem.b);
  const LocalRunReport result = run_dag(devices, *problem.dag, "greedy-eft");
  ASSERT_EQ(result.report.tasks_completed, 27u);
  const auto c = gather_matrix(problem.dag->data(), problem.c);
  const std::size_t n = problem.c.side();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double expected = 0;
      for (std::size_t k = 0; k < n; ++k) expected += a[i * n + k] * b[k * n + j];
      ASSERT_NEAR(c[i * n + j], expected, 1e-10);
    }
}

TEST(LocalBackendTest, ManyEmptyTasksAllComplete) {
  LocalDevices devices(LocalDevicesOptions{2, false, false});
  auto dag = make_empty_dag(20000);
  const LocalRunReport result = run_dag(devices, *dag, "greedy-eft");
  EXPECT_EQ(result.report.tasks_completed, 20000u);
  EXPECT_EQ(result.report.devices[0].tasks + result.report.devices[1].tasks, 20000u);
}

// Wake-ups are batched: a stream of independent tiny tasks costs a few futex sleeps per
// half ring (4096 tasks ahead: a round every 2048 tasks per worker), not one per task.
TEST(LocalBackendTest, TinyTasksCostFarFewerWakeUpsThanTasks) {
  LocalDevices devices(LocalDevicesOptions{2, false, false});
  constexpr std::uint32_t kTasks = 20000;
  auto dag = make_empty_dag(kTasks);
  LocalBackendOptions options;
  options.record_schedule = false;
  const LocalRunReport result = run_dag(devices, *dag, "round-robin", options);
  EXPECT_EQ(result.report.tasks_completed, kTasks);
  EXPECT_LE(result.dispatcher_sleeps + result.worker_sleeps, kTasks / 64)
      << "dispatcher " << result.dispatcher_sleeps << ", workers " << result.worker_sleeps;
}

TEST(LocalBackendTest, DisablingOpenClLeavesCpuWorkersAndOneNotice) {
  ::setenv("HETSCHED_DISABLE_OPENCL", "1", 1);
  LocalDevices devices(LocalDevicesOptions{2, true, false});
  ::unsetenv("HETSCHED_DISABLE_OPENCL");
  EXPECT_EQ(devices.worker_count(), 2u);
  EXPECT_TRUE(devices.opencl_devices().empty());
  EXPECT_NE(devices.notice().find("CPU workers only"), std::string::npos) << devices.notice();
  TiledCholesky problem = make_tiled_cholesky(3, 16, 2);
  const LocalRunReport result = run_dag(devices, *problem.dag, "greedy-eft");
  EXPECT_EQ(result.report.tasks_completed, problem.dag->workload().task_count());
  EXPECT_LT(cholesky_residual(problem), 1e-12);
}

TEST(LocalBackendTest, KernelThatFailsToBuildIsRetriedElsewhereAndReported) {
  LocalDevices devices(LocalDevicesOptions{1, true, false});
  ASSERT_FALSE(devices.opencl_devices().empty()) << devices.notice();  // PoCL: bootstrap.sh
  devices.opencl_devices().front()->set_program_source("__kernel void broken( { syntax error");
  TiledCholesky problem = make_tiled_cholesky(3, 16, 5);
  // Round-robin sends every other task to the OpenCL device.
  const LocalRunReport result = run_dag(devices, *problem.dag, "round-robin");
  EXPECT_EQ(result.report.tasks_completed, problem.dag->workload().task_count());
  ASSERT_FALSE(result.failures.empty());
  EXPECT_NE(result.failures.front().message.find("failed to build"), std::string::npos)
      << result.failures.front().message;
  EXPECT_GE(result.retries, result.failures.size());
  EXPECT_LT(cholesky_residual(problem), 1e-12);
  for (const TaskRecord& r : result.report.schedule)
    EXPECT_EQ(devices.kind(r.device), WorkerKind::cpu);  // nothing ran on the broken device
}

TEST(LocalBackendTest, TaskThatFailsEverywhereIsReportedNotHung) {
  LocalDevices devices(LocalDevicesOptions{2, false, false});
  TiledCholesky problem = make_tiled_cholesky(2, 8, 5);
  for (HandleId h : problem.matrix.handles)  // not positive definite: potrf fails on every device
    for (double& x : problem.dag->data().view<double>(h)) x = -1;
  const LocalRunReport result = run_dag(devices, *problem.dag, "greedy-eft");
  EXPECT_EQ(result.report.tasks_completed, 0u);
  EXPECT_EQ(result.failures.size(), 2u);  // tried once on each CPU worker
  EXPECT_EQ(result.report.unfinished_tasks.size(), problem.dag->workload().task_count());
}

TEST(LocalBackendTest, MixedDagRunsOnCpuAndOpenCl) {
  LocalDevices devices(LocalDevicesOptions{1, true, false});
  auto dag = make_mixed_dag(2, 32, 3);
  const LocalRunReport result = run_dag(devices, *dag, "round-robin");
  EXPECT_EQ(result.report.tasks_completed, dag->workload().task_count());
  EXPECT_TRUE(result.failures.empty());
}

}  // namespace
}  // namespace hetsched

namespace hetsched {
namespace {

// Places every task on device 0: the other workers only get work by stealing.
class EverythingOnDeviceZero final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "everything-on-0"; }
  void on_tasks_ready(const ClusterSnapshot&, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    for (TaskIndex t : ready) out.assign(Assignment{t, 0});
  }
};

TEST(LocalBackendStealingTest, IdleWorkerStealsFromAnOverloadedOne) {
  LocalDevices devices(LocalDevicesOptions{2, false, false});
  for (bool stealing : {false, true}) {
    TiledGemm problem = make_tiled_gemm(4, 16, 8);  // 16 independent chains of 4
    RooflineModel roofline(devices.cluster());
    EverythingOnDeviceZero policy;
    LocalBackendOptions options;
    options.work_stealing = stealing;
    options.max_tasks_ahead = 2;  // most of device 0's work stays queued, hence stealable
    LocalBackend backend(devices, *problem.dag, roofline, policy, options);
    const LocalRunReport result = backend.run();
    ASSERT_EQ(result.report.tasks_completed, 64u);
    expect_loop_knows_where_tasks_ran(backend, result);
    if (stealing) {
      EXPECT_GT(result.steals, 0u);
      EXPECT_GT(result.report.devices[1].tasks, 0u);
    } else {
      EXPECT_EQ(result.steals, 0u);
      EXPECT_EQ(result.report.devices[1].tasks, 0u);
    }
  }
}

}  // namespace
}  // namespace hetsched
