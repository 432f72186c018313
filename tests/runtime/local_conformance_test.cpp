// The registry's conformance suite on the local runtime: every registered policy runs a
// tiled Cholesky factorisation on this machine's workers (two CPU workers and PoCL's
// OpenCL device) through the same SchedulingLoop the simulator uses. Each must finish
// every task once, on a device that can run it, after all its inputs were produced,
// one task at a time per device, with a correct factor; and the loop's view of where
// each task ran must be where it really ran (redirects and steals reported to it).
// Timing on real workers is not repeatable, so determinism is checked on the simulator
// (policy_conformance_test) and the service (service_conformance_test), not here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "../support/cholesky_residual.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/runtime/local_backend.hpp"
#include "hetsched/runtime/runtime_dag.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

class LocalRuntimeBody : public testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    local_devices_ = std::make_unique<LocalDevices>(LocalDevicesOptions{2, true, false});
  }
  static void TearDownTestSuite() { local_devices_.reset(); }
  static std::unique_ptr<LocalDevices> local_devices_;
};
std::unique_ptr<LocalDevices> LocalRuntimeBody::local_devices_;

TEST_P(LocalRuntimeBody, EveryPolicyKeepsTheInvariantsOnRealWorkers) {
  LocalDevices& devices = *local_devices_;
  ASSERT_FALSE(devices.opencl_devices().empty()) << devices.notice();  // PoCL: bootstrap.sh
  TiledCholesky problem = make_tiled_cholesky(4, 24, 11);
  const RooflineModel roofline(devices.cluster());
  auto policy = make_policy(GetParam(), PolicyOptions{1, 0, 200});
  LocalBackend backend(devices, *problem.dag, roofline, *policy);
  const LocalRunReport result = backend.run();

  const TaskGraph& graph = backend.graph();
  ASSERT_EQ(result.report.tasks_completed, graph.task_count());
  EXPECT_TRUE(result.report.unfinished_tasks.empty());
  EXPECT_TRUE(result.failures.empty());
  EXPECT_LT(cholesky_residual(problem), 1e-12);
  ASSERT_EQ(result.report.schedule.size(), graph.task_count());
  std::vector<const TaskRecord*> by_task(graph.task_count(), nullptr);
  std::map<DeviceId, std::vector<std::pair<double, double>>> busy;
  for (const TaskRecord& r : result.report.schedule) {
    ASSERT_EQ(by_task[r.task], nullptr) << "task ran twice";
    by_task[r.task] = &r;
    EXPECT_TRUE(can_run(graph.task(r.task), devices.cluster().device(r.device)));
    EXPECT_EQ(backend.loop().placement(r.task), r.device) << graph.task(r.task).name;
    EXPECT_EQ(backend.loop().state(r.task), TaskState::finished);
    busy[r.device].emplace_back(r.start_seconds, r.finish_seconds);
  }
  for (TaskIndex t = 0; t < graph.task_count(); ++t)
    for (const Dependency& p : graph.predecessors(t))
      EXPECT_LE(by_task[p.task]->finish_seconds, by_task[t]->start_seconds)
          << graph.task(p.task).name << " -> " << graph.task(t).name;
  for (auto& [device, spans] : busy) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first) << "two tasks at once on device " << device;
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, LocalRuntimeBody, testing::ValuesIn(policy_names()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace hetsched
