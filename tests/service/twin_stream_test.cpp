// One job-stream core: a stream of gang jobs (arriving over time, gangs of 1 to 4 devices
// of two models on five nodes in two racks, users, weights and deadlines) submitted to the
// control plane on the twin (as `hetsched serve --engine sim --time-scale max` runs it)
// and the same stream run by the stream simulator on the same cluster's resources in
// pack mode (as `hetsched simulate --cluster C --gang-placement pack` runs it) give every
// job the same node, start and finish, to the last bit — for every stream policy: queue
// mode (with and without EASY backfilling) and round mode (the service runs a lease per
// round; moves between rounds pay the same checkpoint/restart time).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "control_plane_fixture.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/stream_submission.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/stream/stream_simulator.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

constexpr const char* kStreamTwinCluster = R"(
nodes:
  - {name: h100, count: 2, rack: r0, devices: [{model: H100-SXM, count: 4}]}
  - {name: a100, count: 2, rack: r1, devices: [{model: A100-80GB, count: 4}]}
  - {name: mixed, rack: r1, devices: [{model: H100-SXM, count: 2}, {model: A100-80GB, count: 2}]}
)";

// More work than the cluster holds at once, so that queues form and order matters.
constexpr const char* kStreamTwinJobs = R"(kind: stream
jobs:
  - {name: resnet, user: ann, gang: 4, steps: 40000, arrival: 0, rates: {H100-SXM: 20, A100-80GB: 11}}
  - {name: bert, user: bob, gang: 2, steps: 30000, arrival: 0, rates: {H100-SXM: 12, A100-80GB: 9}, deadline: 5000}
  - {name: gpt, user: cy, gang: 4, steps: 90000, arrival: 60, rates: {H100-SXM: 30, A100-80GB: 14}}
  - {name: rec, user: bob, gang: 1, steps: 8000, arrival: 60, rates: {H100-SXM: 6, A100-80GB: 5.5}, weight: 3}
  - {name: vit, user: ann, gang: 2, steps: 25000, arrival: 120, rates: {H100-SXM: 15, A100-80GB: 8}, deadline: 4000}
  - {name: lm, user: cy, gang: 4, steps: 60000, arrival: 120, rates: {H100-SXM: 25, A100-80GB: 12}}
  - {name: a3c, user: dee, gang: 1, steps: 5000, arrival: 200, rates: {H100-SXM: 4, A100-80GB: 3.9}, weight: 2}
  - {name: unet, user: dee, gang: 2, steps: 20000, arrival: 200, rates: {A100-80GB: 7}}
  - {name: wide, user: ann, gang: 4, steps: 50000, arrival: 300, rates: {H100-SXM: 18, A100-80GB: 16}, deadline: 9000}
  - {name: small, user: bob, gang: 1, steps: 2000, arrival: 300, rates: {H100-SXM: 2, A100-80GB: 2, V100: 1}}
  - {name: mid, user: cy, gang: 3, steps: 30000, arrival: 450, rates: {H100-SXM: 10, A100-80GB: 9}, weight: 2}
  - {name: late, user: dee, gang: 2, steps: 10000, arrival: 900, rates: {H100-SXM: 8, A100-80GB: 6}, deadline: 3000}
)";

struct StreamTwinCase {
  std::string policy;
  bool backfill = false;
};

class TwinStream : public ::testing::TestWithParam<StreamTwinCase> {};

TEST_P(TwinStream, ServiceOnTheTwinRunsTheStreamSimulatorsSchedule) {
  const auto& [policy_name, backfill] = GetParam();
  const Cluster cluster = parse_cluster(kStreamTwinCluster, "cluster");

  // `hetsched simulate` on the cluster's resources, gangs packed on one node.
  StreamWorkload workload;
  workload.jobs = parse_stream_submission(kStreamTwinJobs, 100);
  const StreamResources resources = stream_resources(cluster);
  StreamSimOptions sim_options;
  sim_options.gang_spread = GangSpread::one_node;
  sim_options.easy_backfilling = backfill;
  const auto policy = make_stream_policy(policy_name);
  const StreamReport report =
      simulate_stream(workload, resources, *policy, sim_options, policy_name);
  ASSERT_EQ(report.rejected, 0u);
  ASSERT_EQ(report.finished_measured, workload.jobs.size());

  // `hetsched serve --engine sim --time-scale max`, stepped by hand.
  testing::TempDir dir;
  ControlPlaneOptions options;
  options.default_stream_policy = policy_name;
  options.stream_easy_backfilling = backfill;
  testing::SteppedControlPlane service(dir.file("state.db"), cluster, options);
  ControlPlane& plane = *service.plane;
  const std::vector<std::uint64_t> ids = plane.submit(kStreamTwinJobs);
  ASSERT_EQ(ids.size(), workload.jobs.size());
  plane.step();  // as fast as possible: one step runs the twin until nothing is left

  const bool rounds = policy->mode() == StreamPolicyMode::round;
  bool some_waited = false;
  int migrations = 0;
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const ServiceJob job = *plane.job(ids[j]);
    const StreamJobOutcome& outcome = report.jobs[j];
    SCOPED_TRACE(job.name);
    ASSERT_EQ(job.state, ServiceJobState::completed) << job.reason;
    const ServiceTask& gang = job.tasks.at(0);
    // Its first placement: the gang (queue mode) or its first round's lease.
    const auto first = std::find_if(gang.history.begin(), gang.history.end(), [](const auto& e) {
      return e.event == "planned" || e.event == "round";
    });
    ASSERT_NE(first, gang.history.end());
    ASSERT_EQ(outcome.placement_nodes.size(), 1u);
    const StreamNode& node = resources.nodes[static_cast<std::size_t>(outcome.placement_nodes[0])];
    EXPECT_EQ(first->node, cluster.node(node.cluster_node).name);
    EXPECT_NE(first->device.find(resources.types[node.type].model), std::string::npos)
        << first->device;
    EXPECT_EQ(gang.gang_devices.size(), static_cast<std::size_t>(workload.jobs[j].gang_size));
    ASSERT_TRUE(gang.started_seconds && gang.finished_seconds);
    EXPECT_EQ(*gang.started_seconds, outcome.first_start_seconds);
    EXPECT_EQ(*gang.finished_seconds, outcome.finish_seconds);
    // Queue mode: one run to completion. Round mode: a lease per round it ran in, and
    // as many moves (checkpoint and restart) as the simulator counts.
    const auto moves = std::count_if(gang.history.begin(), gang.history.end(), [](const auto& e) {
      return e.event == "round" && e.detail.find("moved") != std::string::npos;
    });
    EXPECT_EQ(moves, outcome.migrations);
    migrations += outcome.migrations;
    if (!rounds) {
      EXPECT_EQ(gang.attempts, 1u);
    }
    some_waited = some_waited || outcome.first_start_seconds > outcome.arrival_seconds;
  }
  EXPECT_TRUE(some_waited) << "the stream should make jobs queue";
  if (rounds) {  // rounds preempt and move jobs: the service pays for every move too
    EXPECT_GT(report.rounds, 10u);
    EXPECT_GT(migrations, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryStreamPolicy, TwinStream,
    ::testing::Values(StreamTwinCase{"fifo"}, StreamTwinCase{"fifo", true}, StreamTwinCase{"sjf"},
                      StreamTwinCase{"sjf", true}, StreamTwinCase{"edf"},
                      StreamTwinCase{"priority"}, StreamTwinCase{"fair-share"},
                      StreamTwinCase{"srtf"}, StreamTwinCase{"las"}, StreamTwinCase{"aware-las"},
                      StreamTwinCase{"aware-srpt"}, StreamTwinCase{"aware-max-throughput"},
                      StreamTwinCase{"aware-min-makespan"}, StreamTwinCase{"aware-min-cost"},
                      StreamTwinCase{"aware-las-priority"},
                      StreamTwinCase{"aware-throughput-srpt"}),
    [](const ::testing::TestParamInfo<StreamTwinCase>& info) {
      std::string name = info.param.policy + (info.param.backfill ? "_easy" : "");
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

}  // namespace
}  // namespace hetsched
