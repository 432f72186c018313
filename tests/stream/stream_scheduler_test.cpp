// The job-stream core's own contract, as a body other than the simulator uses it: resources
// built from a real cluster, devices held outside the core, adoption of a running gang,
// growth of the cluster, pack versus spread placement, and requeue and withdrawal in both
// modes.
#include "hetsched/stream/stream_scheduler.hpp"

#include <gtest/gtest.h>

#include "hetsched/io/cluster_file.hpp"

namespace hetsched {
namespace {

constexpr const char* kSchedulerCluster = R"(
nodes:
  - {name: a, rack: r0, devices: [{model: H100-SXM, count: 4}]}
  - {name: b, rack: r0, devices: [{model: H100-SXM, count: 2}, {model: A100-80GB, count: 2}]}
)";

StreamJob gang_job(const std::string& name, int gang, double steps,
                   std::map<std::string, double> rates) {
  StreamJob job;
  job.name = name;
  job.gang_size = gang;
  job.total_steps = steps;
  job.steps_per_second = std::move(rates);
  return job;
}

TEST(StreamScheduler, ResourcesOfAClusterAreOneNodePerNodeAndModel) {
  const StreamResources resources = stream_resources(parse_cluster(kSchedulerCluster, "c"));
  ASSERT_EQ(resources.types.size(), 2u);
  EXPECT_EQ(resources.types[0].model, "H100-SXM");
  EXPECT_EQ(resources.types[0].count, 6);
  EXPECT_EQ(resources.types[0].devices_per_node, 4);
  EXPECT_GT(resources.types[0].memory_gb, 0);
  ASSERT_EQ(resources.nodes.size(), 3u);
  EXPECT_EQ(resources.nodes[1].cluster_node, 1u);
  EXPECT_EQ(resources.nodes[1].devices, 2);
  EXPECT_EQ(resources.nodes[2].type, 1u);
}

TEST(StreamScheduler, GangsTakeTheFullestNodeThatFitsInBothModes) {
  const StreamResources resources = stream_resources(parse_cluster(kSchedulerCluster, "c"));
  const auto policy = make_stream_policy("fifo");
  for (GangSpread spread : {GangSpread::one_node, GangSpread::racks_then_anywhere}) {
    StreamSchedulerOptions options;
    options.gang_spread = spread;
    StreamScheduler scheduler(resources, *policy, options);
    const std::size_t first = scheduler.submit(gang_job("first", 2, 100, {{"H100-SXM", 1}}), 0);
    const std::size_t wide = scheduler.submit(gang_job("wide", 4, 100, {{"H100-SXM", 1}}), 0);
    const std::vector<StreamStart> starts = scheduler.schedule(0);
    // The two-device gang takes node b (the fullest that fits); four H100s are then left,
    // on one node.
    ASSERT_GE(starts.size(), 1u);
    EXPECT_EQ(starts[0].job, first);
    EXPECT_EQ(starts[0].placement.nodes, (GangPlacement{{1, 2}}));
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_EQ(starts[1].job, wide);
    EXPECT_EQ(starts[1].placement.nodes, (GangPlacement{{0, 4}}));
    // A third gang of four waits.
    const std::size_t more = scheduler.submit(gang_job("more", 4, 100, {{"H100-SXM", 1}}), 0);
    EXPECT_TRUE(scheduler.schedule(0).empty());
    scheduler.finish(first, 100);
    EXPECT_TRUE(scheduler.schedule(100).empty()) << "two free H100s cannot hold four";
    scheduler.finish(wide, 100);
    const std::vector<StreamStart> last = scheduler.schedule(100);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last[0].job, more);
    EXPECT_EQ(last[0].placement.nodes, (GangPlacement{{0, 4}}));
  }
}

TEST(StreamScheduler, PackRejectsAGangLargerThanEveryNodeSpreadDoesNot) {
  const StreamResources resources = stream_resources(parse_cluster(kSchedulerCluster, "c"));
  const auto policy = make_stream_policy("fifo");
  StreamSchedulerOptions pack;
  pack.gang_spread = GangSpread::one_node;
  StreamScheduler packed(resources, *policy, pack);
  const std::size_t j = packed.submit(gang_job("six", 6, 100, {{"H100-SXM", 1}}), 0);
  EXPECT_EQ(packed.job(j).state, StreamJobState::rejected);
  EXPECT_NE(packed.job(j).rejection_reason.find("largest node of a type"), std::string::npos)
      << packed.job(j).rejection_reason;
  StreamScheduler spread(resources, *policy, StreamSchedulerOptions{});
  const std::size_t s = spread.submit(gang_job("six", 6, 100, {{"H100-SXM", 1}}), 0);
  ASSERT_EQ(spread.job(s).state, StreamJobState::waiting);
  const std::vector<StreamStart> starts = spread.schedule(0);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].placement.nodes.size(), 2u);
}

TEST(StreamScheduler, DevicesHeldOutsideAndAdoptedGangsAreNotFree) {
  const StreamResources resources = stream_resources(parse_cluster(kSchedulerCluster, "c"));
  const auto policy = make_stream_policy("fifo");
  StreamSchedulerOptions options;
  options.gang_spread = GangSpread::one_node;
  options.easy_backfilling = true;
  StreamScheduler scheduler(resources, *policy, options);
  scheduler.set_unavailable(1, 2);  // node b's H100s, held by a DAG task
  const std::size_t running = scheduler.submit(gang_job("running", 4, 1000, {{"H100-SXM", 10}}), 0);
  // A restart found it running on node a since t=20: it ends at 20 + 100.
  ASSERT_TRUE(scheduler.adopt(running, StreamPlacement{0, {{0, 4}}, -1, {}}, 20, 50));
  EXPECT_EQ(scheduler.job(running).finish_seconds, 120);
  const std::size_t head = scheduler.submit(gang_job("head", 4, 10, {{"H100-SXM", 1}}), 50);
  EXPECT_TRUE(scheduler.schedule(50).empty());
  // EASY: the head is reserved for when the adopted gang ends.
  EXPECT_EQ(scheduler.job(head).reserved_start_seconds, 120);
  // The same devices cannot be adopted twice.
  const std::size_t other = scheduler.submit(gang_job("other", 4, 10, {{"H100-SXM", 1}}), 50);
  EXPECT_FALSE(scheduler.adopt(other, StreamPlacement{0, {{0, 4}}, -1, {}}, 50, 50));
  scheduler.withdraw(other, 50);
  EXPECT_EQ(scheduler.job(other).state, StreamJobState::finished);
  // Node b's H100s free again, and the gang lost: the head starts on a, where it fits.
  scheduler.set_unavailable(1, 0);
  scheduler.requeue(running, 60);
  EXPECT_EQ(scheduler.job(running).state, StreamJobState::waiting);
  EXPECT_EQ(scheduler.job(running).remaining, 1000) << "a run to completion keeps no checkpoint";
  const std::vector<StreamStart> starts = scheduler.schedule(60);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].job, running) << "fifo: the lost gang is still first";
}

TEST(StreamScheduler, AGrownClusterGivesWaitingJobsItsNewTypes) {
  const Cluster small =
      parse_cluster("nodes:\n  - {name: a, devices: [{model: H100-SXM, count: 2}]}\n", "small");
  const Cluster larger = parse_cluster(
      "nodes:\n  - {name: a, devices: [{model: H100-SXM, count: 2}]}\n"
      "  - {name: b, devices: [{model: A100-80GB, count: 4}]}\n",
      "larger");
  const auto policy = make_stream_policy("fifo");
  StreamSchedulerOptions options;
  options.gang_spread = GangSpread::one_node;
  StreamScheduler scheduler(stream_resources(small), *policy, options);
  const std::size_t j =
      scheduler.submit(gang_job("j", 2, 100, {{"H100-SXM", 1}, {"A100-80GB", 4}}), 0);
  const std::size_t blocked = scheduler.submit(gang_job("k", 2, 100, {{"A100-80GB", 2}}), 0);
  EXPECT_EQ(scheduler.job(blocked).state, StreamJobState::rejected)
      << "no A100 yet: it has rates for none of the cluster's types";
  ASSERT_EQ(scheduler.schedule(0).size(), 1u);
  EXPECT_EQ(scheduler.job(j).type, 0);
  const std::size_t waiting =
      scheduler.submit(gang_job("w", 2, 100, {{"H100-SXM", 1}, {"A100-80GB", 4}}), 0);
  EXPECT_TRUE(scheduler.schedule(0).empty());
  scheduler.grow(stream_resources(larger));
  ASSERT_EQ(scheduler.resources().types.size(), 2u);
  EXPECT_EQ(scheduler.job(waiting).rate[1], 4);
  const std::vector<StreamStart> starts = scheduler.schedule(1);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].job, waiting);
  EXPECT_EQ(starts[0].placement.type, 1u);
  EXPECT_EQ(starts[0].placement.nodes, (GangPlacement{{1, 2}}));
}

TEST(StreamScheduler, RequeueInRoundModeUndoesTheRoundAndWithdrawLeavesTheRounds) {
  const StreamResources resources = stream_resources(parse_cluster(kSchedulerCluster, "c"));
  const auto policy = make_stream_policy("las");
  StreamSchedulerOptions options;
  options.gang_spread = GangSpread::one_node;
  StreamScheduler scheduler(resources, *policy, options);
  const std::size_t j = scheduler.submit(gang_job("j", 2, 1000, {{"A100-80GB", 1}}), 0);
  const std::size_t k = scheduler.submit(gang_job("k", 2, 100, {{"A100-80GB", 1}}), 0);
  std::vector<StreamSegment> round = scheduler.run_round(0);
  ASSERT_EQ(round.size(), 1u) << "two A100s: one gang a round";
  const std::size_t ran = round[0].job;
  const double before = scheduler.job(ran).remaining;
  EXPECT_LT(before, scheduler.job(ran).job.total_steps);
  scheduler.requeue(ran, 100);  // its node failed mid-round
  EXPECT_EQ(scheduler.job(ran).remaining, scheduler.job(ran).job.total_steps);
  EXPECT_EQ(scheduler.job(ran).attained, 0);
  EXPECT_EQ(scheduler.job(ran).state, StreamJobState::waiting);
  scheduler.withdraw(j, 100);
  round = scheduler.run_round(360);
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].job, k);
  EXPECT_TRUE(round[0].finishes);
  // k's 100 s, plus the checkpoint/restart when k itself was the job that lost its round.
  EXPECT_EQ(round[0].seconds, ran == k ? 130 : 100);
  EXPECT_FALSE(scheduler.round_pending());
}

}  // namespace
}  // namespace hetsched
