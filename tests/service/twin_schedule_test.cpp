// The twin predicts what the service does: the example workload (jobs arriving over a
// minute) submitted to the control plane on the SimulatedEngine (as `hetsched serve --engine sim
// --time-scale max` runs it) and the same workload run by the Simulator (as `hetsched simulate`
// runs it), on the same cluster, policy and seed, give every task the same device and
// the same start and finish times, to the last bit — for every registered policy,
// static planners and online ones alike.
#include <gtest/gtest.h>

#include <limits>

#include "control_plane_fixture.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/workload_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/sim/simulator.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

class TwinSchedule : public ::testing::TestWithParam<std::string> {};

TEST_P(TwinSchedule, ServiceOnTheTwinRunsTheSimulatorsSchedule) {
  const std::string policy_name = GetParam();
  const Cluster cluster = parse_cluster(
      read_text_file(std::string(HETSCHED_SOURCE_DIR) + "/examples/cluster.yaml", "cluster"),
      "examples/cluster.yaml");
  const std::string text = testing::example_workload_without_cluster();
  const Workload workload = parse_workload(text, "workload", cluster);
  const PolicyOptions policy_options{.seed = 7};

  // `hetsched simulate`.
  const RooflineModel perf(cluster);
  const auto policy = make_policy(policy_name, policy_options);
  Simulator simulator(cluster, workload, perf, *policy, SimulationOptions{.seed = 7});
  const RunReport report = simulator.run();
  ASSERT_EQ(report.tasks_completed, report.tasks_total);

  // `hetsched serve --engine sim --time-scale max`, stepped by hand.
  testing::TempDir dir;
  ControlPlaneOptions options;
  options.default_policy = policy_name;
  options.policy_options = policy_options;
  testing::SteppedControlPlane service(dir.file("state.db"), cluster, options);
  ControlPlane& plane = *service.plane;
  const std::vector<std::uint64_t> ids = plane.submit(text);
  ASSERT_EQ(ids.size(), workload.jobs.size());
  plane.step();  // as fast as possible: one step runs the twin until nothing is left

  const TaskGraph& graph = simulator.graph();
  std::vector<ServiceJob> jobs;
  for (std::uint64_t id : ids) {
    jobs.push_back(*plane.job(id));
    ASSERT_EQ(jobs.back().state, ServiceJobState::completed) << jobs.back().reason;
  }
  ASSERT_EQ(report.schedule.size(), graph.task_count());
  for (const TaskRecord& run : report.schedule) {
    const JobIndex j = graph.job_of(run.task);
    const ServiceTask& task = jobs[j].tasks[run.task - graph.first_task(j)];
    SCOPED_TRACE(jobs[j].name + "/" + task.name);
    EXPECT_EQ(task.device, cluster.device(run.device).name);
    ASSERT_TRUE(task.started_seconds && task.finished_seconds);
    EXPECT_EQ(*task.started_seconds, run.start_seconds);
    EXPECT_EQ(*task.finished_seconds, run.finish_seconds);
    EXPECT_EQ(task.attempts, 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, TwinSchedule, ::testing::ValuesIn(policy_names()),
                         testing::policy_test_name<::testing::TestParamInfo<std::string>>);

}  // namespace
}  // namespace hetsched
