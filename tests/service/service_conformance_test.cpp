// The registry's conformance test on the service body: every registered policy, run
// through `hetsched serve`'s control plane (the SchedulingLoop behind a SimulatedEngine
// and a SQLite store), stepped on the twin's virtual clock, must finish every task on a
// device that can run it, start each task only after its inputs finished, never run two
// tasks at once on one device, and give the same schedule when run again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "control_plane_fixture.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/workload_file.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/workload/feasibility.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

// Two GPU nodes and a CPU node, and a job that forks and joins across kinds.
constexpr const char* kConformanceCluster = R"(
nodes:
  - name: gpu-a
    devices: [{model: H100-SXM, count: 2}]
  - name: gpu-b
    devices: [{model: A100-80GB, count: 1}]
  - name: cpu
    devices: [{model: EPYC-9654, count: 1}]
)";

constexpr const char* kConformanceForkJoin = R"(
jobs:
  - name: fork-join
    tasks:
      - {name: load, kernel: io, bytes: 2.0e9, kinds: [cpu]}
      - {name: prep, kernel: elementwise, flops: 1.0e11, bytes: 4.0e10, after: [load]}
      - {name: train-a, kernel: dense_matmul, precision: fp16, flops: 2.0e14, bytes: 6.0e10, kinds: [gpu], after: [prep]}
      - {name: train-b, kernel: dense_matmul, precision: fp16, flops: 1.0e14, bytes: 3.0e10, kinds: [gpu], after: [prep]}
      - {name: train-c, kernel: dense_matmul, precision: fp16, flops: 1.5e14, bytes: 3.0e10, after: [prep]}
      - {name: eval, kernel: reduction, flops: 1.0e10, bytes: 1.0e9, after: [train-a, train-b, train-c]}
      - {name: report, kernel: reduction, flops: 1.0e9, bytes: 1.0e8, kinds: [cpu], after: [eval]}
)";

class ServiceBody : public ::testing::TestWithParam<std::string> {};

TEST_P(ServiceBody, EveryPolicyKeepsTheInvariantsThroughTheService) {
  testing::TempDir dir;
  const Cluster cluster = parse_cluster(kConformanceCluster, "test");
  const auto run = [&](const std::string& db) {
    testing::SteppedControlPlane service(dir.file(db), cluster, GetParam());
    const std::vector<std::uint64_t> ids = service.plane->submit(kConformanceForkJoin);
    service.run_until();
    return service.job(ids.at(0));
  };
  const ServiceJob job = run("first.db");
  ASSERT_EQ(job.state, ServiceJobState::completed) << job.reason << "\n" << to_json(job).dump(2);
  const ServiceJob again = run("again.db");
  ASSERT_EQ(again.tasks.size(), job.tasks.size());
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    EXPECT_EQ(again.tasks[t].device, job.tasks[t].device) << job.tasks[t].name;
    EXPECT_EQ(again.tasks[t].started_seconds, job.tasks[t].started_seconds) << job.tasks[t].name;
    EXPECT_EQ(again.tasks[t].finished_seconds, job.tasks[t].finished_seconds) << job.tasks[t].name;
  }

  const Workload workload = parse_workload(kConformanceForkJoin, "expected", cluster);
  const Job& spec = workload.jobs.front();
  std::map<std::string, const Device*> device_named;
  for (const Device& d : cluster.devices()) device_named[d.name] = &d;
  std::map<std::string, std::vector<std::pair<double, double>>> busy;
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const ServiceTask& task = job.tasks[t];
    SCOPED_TRACE(task.name);
    ASSERT_EQ(task.state, ServiceTaskState::completed);
    ASSERT_TRUE(task.started_seconds && task.finished_seconds);
    const auto device = device_named.find(task.device);
    ASSERT_NE(device, device_named.end()) << task.device;
    EXPECT_TRUE(can_run(spec.tasks[t], *device->second)) << task.device;
    busy[task.device].emplace_back(*task.started_seconds, *task.finished_seconds);
  }
  for (const Edge& e : spec.edges)
    EXPECT_LE(*job.tasks[e.from].finished_seconds, *job.tasks[e.to].started_seconds)
        << job.tasks[e.from].name << " -> " << job.tasks[e.to].name;
  for (auto& [device, intervals] : busy) {
    std::sort(intervals.begin(), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i)
      EXPECT_LE(intervals[i - 1].second, intervals[i].first) << "overlap on " << device;
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, ServiceBody, ::testing::ValuesIn(policy_names()),
                         testing::policy_test_name<::testing::TestParamInfo<std::string>>);

}  // namespace
}  // namespace hetsched
