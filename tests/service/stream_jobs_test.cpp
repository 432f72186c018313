// Stream jobs (gangs) in the control plane on the SimulatedEngine and a real SQLite
// store, stepped on the twin's virtual clock but for the restarts: a gang takes devices of its
// fastest type on one node and runs to completion; a queue policy keeps its order (the head waits
// for its gang, nothing jumps it); a round policy (Gavel's LP family) places too; a cancelled gang
// frees its devices; a restart finds stream jobs again; and a cancel acknowledged before a crash is
// carried out after it (never resurrected).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "control_plane_fixture.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/service/control_plane.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::TempDir;

// One node of four H100s, one of four A100s, one CPU node.
constexpr const char* kGangCluster = R"(
nodes:
  - name: h100s
    devices: [{model: H100-SXM, count: 4}]
  - name: a100s
    devices: [{model: A100-80GB, count: 4}]
  - name: cpu
    devices: [{model: EPYC-9654, count: 1}]
)";

struct StreamService : testing::ControlPlaneFixture {
  StreamService(const std::string& db, double time_scale, std::string stream_policy = "fifo")
      : ControlPlaneFixture(db, parse_cluster(kGangCluster, "test"), time_scale, "heft",
                            std::move(stream_policy)) {}
  ServiceTaskState gang_state(std::uint64_t id) const { return job(id).tasks.at(0).state; }
};

struct SteppedStreamService : testing::SteppedControlPlane {
  SteppedStreamService(const std::string& db, std::string stream_policy = "fifo")
      : SteppedControlPlane(db, parse_cluster(kGangCluster, "test"), "heft",
                            std::move(stream_policy)) {}
  ServiceTaskState gang_state(std::uint64_t id) const { return job(id).tasks.at(0).state; }
};

std::string stream_job(const std::string& name, int gang, double steps,
                       const std::string& rates = "{H100-SXM: 10, A100-80GB: 5}",
                       const std::string& extra = "") {
  return fmt::format("kind: stream\njobs:\n  - {{name: {}, gang: {}, steps: {}, rates: {}{}}}\n",
                     name, gang, steps, rates, extra);
}

using testing::has_event;

bool running_or_launched(ServiceTaskState s) {
  return s == ServiceTaskState::launched || s == ServiceTaskState::running;
}

TEST(StreamJobs, GangTakesOneTypeOnOneNodeAndCompletes) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"));
  const auto ids = service.plane->submit(stream_job("train", 3, 100, "{H100-SXM: 10, A100-80GB: 5}",
                                                    ", spread_rates: {H100-SXM: 7}, deadline: 60"));
  ASSERT_EQ(ids.size(), 1u);
  service.run_until();
  ASSERT_TRUE(service.in_state(ids[0], ServiceJobState::completed))
      << to_json(service.job(ids[0])).dump(2);
  const ServiceJob job = service.job(ids[0]);
  ASSERT_TRUE(job.stream.has_value());
  EXPECT_EQ(job.policy, "fifo");
  ASSERT_EQ(job.tasks.size(), 1u);
  const ServiceTask& gang = job.tasks[0];
  // fifo is heterogeneity-agnostic, as in the simulator: the type with the most free
  // devices, here a tie, which the first type wins.
  EXPECT_EQ(gang.node, "h100s");
  ASSERT_EQ(gang.gang_devices.size(), 3u);
  for (const std::string& device : gang.gang_devices) EXPECT_EQ(device.rfind("h100s/", 0), 0u);
  EXPECT_DOUBLE_EQ(gang.expected_seconds, 10.0);  // 100 steps at 10 steps/s
  EXPECT_DOUBLE_EQ(*gang.finished_seconds - *gang.started_seconds, 10.0);  // on the twin's clock
  for (const char* event : {"planned", "launched", "started", "finished"})
    EXPECT_TRUE(has_event(gang, event)) << event;
  EXPECT_EQ(gang.attempts, 1u);
  // The stored record is the same job (it survives a restart as a stream job).
  ServiceJob stored =
      service_job_from_json(nlohmann::json::parse(*service.store.get(service_job_key(ids[0]))));
  read_task_page(stored, 0,
                 nlohmann::json::parse(*service.store.get(service_job_tasks_key(ids[0], 0))));
  ASSERT_TRUE(stored.stream.has_value());
  EXPECT_EQ(stored.stream->gang_size, 3);
  EXPECT_EQ(stored.stream->spread_steps_per_second.at("H100-SXM"), 7);
  EXPECT_EQ(stored.stream->deadline_seconds, 60);
  EXPECT_EQ(stored.stream->steps_per_second.at("A100-80GB"), 5);
  EXPECT_EQ(stored.tasks[0].gang_devices, gang.gang_devices);
  EXPECT_EQ(service.plane->metrics().decisions_total, 1u);
}

TEST(StreamJobs, AGangTooBigForTheFastestNodeGoesWhereItFits) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"));
  // Five devices: no node has five of anything, so it is refused naming the gang.
  try {
    service.plane->submit(stream_job("huge", 5, 10));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "body.jobs[0].gang") << e.what();
  }
  // The H100s are taken by a long gang: the next goes to the A100s rather than wait.
  const auto long_one = service.plane->submit(stream_job("long", 4, 1e9));
  service.run_until(1);
  ASSERT_TRUE(running_or_launched(service.gang_state(long_one[0])));
  const auto next = service.plane->submit(stream_job("next", 2, 10));
  service.run_until(100);
  ASSERT_TRUE(service.in_state(next[0], ServiceJobState::completed));
  EXPECT_EQ(service.job(next[0]).tasks[0].node, "a100s");
  EXPECT_DOUBLE_EQ(service.job(next[0]).tasks[0].expected_seconds, 2.0);  // 10 steps at 5/s
}

TEST(StreamJobs, QueuePolicyKeepsItsOrderAndTheHeadWaitsForItsGang) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"), "priority");
  // Only the H100s: a rate for one type.
  const std::string h100 = "{H100-SXM: 1}";
  const auto blocker = service.plane->submit(stream_job("blocker", 3, 1e9, h100));
  service.run_until(1);
  ASSERT_TRUE(running_or_launched(service.gang_state(blocker[0])));
  // One H100 left. A heavy job wanting two is the head; a light one wanting one
  // arrives later and must not jump it (no backfilling).
  const auto heavy = service.plane->submit(stream_job("heavy", 2, 1e9, h100, ", weight: 5"));
  const auto light = service.plane->submit(stream_job("light", 1, 1e9, h100, ", weight: 1"));
  const auto both_waiting = [&] {
    return service.gang_state(heavy[0]) == ServiceTaskState::waiting &&
           service.gang_state(light[0]) == ServiceTaskState::waiting;
  };
  // A job under another policy (its own queue) runs on the A100s meanwhile; once it has
  // completed, several scheduling steps have passed: both still wait.
  const auto probe = service.plane->submit(stream_job("probe", 1, 0.1, "{A100-80GB: 1}"), "fifo");
  service.run_until(10);
  ASSERT_TRUE(service.in_state(probe[0], ServiceJobState::completed));
  EXPECT_TRUE(both_waiting());
  // The blocker ends: the heavy job (higher priority) starts first, and with two H100s
  // free after it, the light one starts too.
  EXPECT_EQ(service.plane->cancel(blocker[0]), CancelOutcome::cancelling);
  service.run_until(11);
  ASSERT_TRUE(running_or_launched(service.gang_state(heavy[0])));
  const ServiceJob heavy_job = service.job(heavy[0]);
  EXPECT_EQ(heavy_job.tasks[0].gang_devices.size(), 2u);
  ASSERT_TRUE(running_or_launched(service.gang_state(light[0])));
  const ServiceJob light_job = service.job(light[0]);
  for (const std::string& device : light_job.tasks[0].gang_devices)
    EXPECT_EQ(std::count(heavy_job.tasks[0].gang_devices.begin(),
                         heavy_job.tasks[0].gang_devices.end(), device),
              0)
        << device << " given to two gangs";
}

TEST(StreamJobs, StreamPoliciesSeeTheModelsClockAsInTheSimulator) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"), "edf");
  const std::string h100 = "{H100-SXM: 1}";
  const auto blocker = service.plane->submit(stream_job("blocker", 4, 1e9, h100));
  service.run_until(1);
  ASSERT_TRUE(running_or_launched(service.gang_state(blocker[0])));
  // Deadlines are model seconds after arrival: `early` (arrives at 1 s, 1000 s) is due
  // before `late` (arrives at 10 s, 999 s). Read on the wall clock plus model seconds,
  // late would look due first.
  const auto early = service.plane->submit(stream_job("early", 4, 1, h100, ", deadline: 1000"));
  service.run_until(10);
  const auto late = service.plane->submit(stream_job("late", 4, 1, h100, ", deadline: 999"));
  EXPECT_EQ(service.plane->cancel(blocker[0]), CancelOutcome::cancelling);
  service.run_until();
  ASSERT_TRUE(service.in_state(early[0], ServiceJobState::completed));
  ASSERT_TRUE(service.in_state(late[0], ServiceJobState::completed));
  EXPECT_LE(*service.job(early[0]).tasks[0].finished_seconds,
            *service.job(late[0]).tasks[0].started_seconds)
      << "the job due first on the model's clock must run first";
}

TEST(StreamJobs, RoundPolicyPlacesByItsAllocation) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"), "aware-max-throughput");
  const auto ids = service.plane->submit(
      "kind: stream\njobs:\n"
      "  - {name: a, gang: 2, steps: 100, rates: {H100-SXM: 10, A100-80GB: 9}}\n"
      "  - {name: b, gang: 2, steps: 100, rates: {H100-SXM: 2, A100-80GB: 8}}\n");
  ASSERT_EQ(ids.size(), 2u);
  service.run_until();
  for (std::uint64_t id : ids)
    ASSERT_TRUE(service.in_state(id, ServiceJobState::completed))
        << to_json(service.job(id)).dump(2);
  // Maximum total normalised throughput: a on the H100s, b on the A100s.
  EXPECT_EQ(service.job(ids[0]).tasks[0].node, "h100s");
  EXPECT_EQ(service.job(ids[1]).tasks[0].node, "a100s");
}

// Round mode: a 1,000 s job at 10 steps/s runs as leases of 360 s rounds. A node lost in
// the middle of a round undoes that round (no checkpoint until the round ends); the next
// round moves the job, which pays the 30 s checkpoint/restart.
TEST(StreamJobs, ALeaseLostMidRoundIsUndoneAndTheNextRoundMovesTheJob) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"), "las");
  const auto ids =
      service.plane->submit(stream_job("train", 2, 10000, "{H100-SXM: 10, A100-80GB: 10}"));
  service.run_until(100);
  const ServiceJob before = service.job(ids[0]);
  ASSERT_TRUE(running_or_launched(before.tasks[0].state)) << to_json(before).dump(2);
  const std::string first_node = before.tasks[0].node;
  EXPECT_EQ(before.stream_steps_left, 6400);  // once the first round ends
  EXPECT_EQ(before.stream_round_steps, 3600);
  service.engine.set_node_state(first_node, EngineNodeState::down);
  service.run_until();
  const ServiceJob job = service.job(ids[0]);
  ASSERT_EQ(job.state, ServiceJobState::completed) << to_json(job).dump(2);
  const ServiceTask& gang = job.tasks[0];
  EXPECT_NE(gang.node, first_node);
  EXPECT_TRUE(has_event(gang, "failed", first_node));
  // Rounds at 360 (moved: 30 s, then 3,300 steps), 720 (3,600) and 1080 (310 s to go).
  EXPECT_EQ(*gang.finished_seconds, 1390);
  EXPECT_EQ(*gang.started_seconds, 0);
  const auto moved = std::count_if(gang.history.begin(), gang.history.end(), [](const auto& e) {
    return e.event == "round" && e.detail.find("moved") != std::string::npos;
  });
  EXPECT_EQ(moved, 1);
  EXPECT_EQ(gang.attempts, 4u);  // four leases
}

// A restart resumes a round-mode job from the last checkpoint it reached: the end of its
// last completed round, not of the round its lost lease was in.
TEST(StreamJobs, ARestartResumesARoundJobFromItsLastCheckpoint) {
  TempDir dir;
  const std::string db = dir.file("state.db");
  std::uint64_t id = 0;
  {
    SteppedStreamService first(db, "las");
    id = first.plane->submit(stream_job("train", 2, 10000, "{H100-SXM: 10}"))[0];
    first.run_until(400);  // the second round's lease runs; 3,600 steps are done
    const ServiceJob job = first.job(id);
    ASSERT_TRUE(running_or_launched(job.tasks[0].state)) << to_json(job).dump(2);
    EXPECT_EQ(job.stream_steps_left, 2800);
    EXPECT_EQ(job.stream_round_steps, 3600);
  }  // the process dies; its engine (the twin) with it
  SteppedStreamService second(db, "las");
  second.run_until();
  const ServiceJob job = second.job(id);
  ASSERT_EQ(job.state, ServiceJobState::completed) << to_json(job).dump(2);
  EXPECT_TRUE(has_event(job.tasks[0], "lost"));
  // 6,400 steps left on a fresh twin's clock: a full round, then 280 s.
  EXPECT_EQ(*job.tasks[0].finished_seconds, 640);
  EXPECT_EQ(job.stream_steps_left, 0);
}

TEST(StreamJobs, CancelledGangFreesItsDevices) {
  TempDir dir;
  SteppedStreamService service(dir.file("state.db"));
  const std::string h100 = "{H100-SXM: 1}";
  const auto first = service.plane->submit(stream_job("first", 4, 1e9, h100));
  service.run_until(1);
  ASSERT_TRUE(running_or_launched(service.gang_state(first[0])));
  const auto second = service.plane->submit(stream_job("second", 4, 0.1, h100));
  EXPECT_EQ(service.plane->cancel(first[0]), CancelOutcome::cancelling);
  service.run_until(2);
  ASSERT_TRUE(service.in_state(first[0], ServiceJobState::cancelled));
  EXPECT_TRUE(has_event(service.job(first[0]).tasks[0], "cancelled"));
  ASSERT_TRUE(service.in_state(second[0], ServiceJobState::completed));
  EXPECT_EQ(service.job(second[0]).tasks[0].gang_devices.size(), 4u);
}

TEST(StreamJobs, RestartFindsStreamJobsAndFinishesThem) {
  TempDir dir;
  const std::string db = dir.file("state.db");
  std::uint64_t running = 0, waiting = 0;
  {
    StreamService first(db, 0.01);  // slow: the gang runs for hours of real time
    running = first.plane->submit(stream_job("running", 4, 100, "{H100-SXM: 1}"))[0];
    ASSERT_TRUE(eventually([&] { return running_or_launched(first.gang_state(running)); }));
    waiting = first.plane->submit(stream_job("waiting", 4, 100, "{H100-SXM: 1}"))[0];
    first.plane->stop();
  }  // the process dies; its engine with it
  StreamService second(db, 1e6);
  ASSERT_TRUE(eventually([&] { return second.in_state(running, ServiceJobState::completed); }))
      << to_json(second.job(running)).dump(2);
  ASSERT_TRUE(eventually([&] { return second.in_state(waiting, ServiceJobState::completed); }))
      << to_json(second.job(waiting)).dump(2);
  EXPECT_TRUE(has_event(second.job(running).tasks[0], "lost"));
  EXPECT_TRUE(second.job(running).stream.has_value());
}

TEST(CancelDurability, AnAcknowledgedCancelSurvivesACrashAndIsCarriedOut) {
  TempDir dir;
  const std::string db = dir.file("state.db");
  std::uint64_t dag = 0, gang = 0;
  {
    StreamService first(db, 0.01);
    dag = first.plane->submit(
        "jobs:\n  - name: long\n    tasks:\n      - {name: t, kernel: dense_matmul, precision: "
        "bf16, flops: 1.0e18, bytes: 1.0e9, kinds: [gpu]}\n")[0];
    gang = first.plane->submit(stream_job("gang", 2, 1e6, "{A100-80GB: 1}"))[0];
    ASSERT_TRUE(eventually([&] {
      return running_or_launched(first.job(dag).tasks[0].state) &&
             running_or_launched(first.gang_state(gang));
    }));
    // The scheduling thread stops first, so nothing but the store carries the requests:
    // the process "crashes" right after acknowledging them.
    first.plane->stop();
    EXPECT_EQ(first.plane->cancel(dag), CancelOutcome::cancelling);
    EXPECT_EQ(first.plane->cancel(gang), CancelOutcome::cancelling);
    EXPECT_EQ(first.store.list("cancels/").size(), 2u);
  }
  StreamService second(db, 1e6);  // fast: were they resurrected, they would complete
  for (std::uint64_t id : {dag, gang}) {
    ASSERT_TRUE(second.plane->job(id).has_value());
    EXPECT_EQ(second.job(id).state, ServiceJobState::cancelled) << to_json(second.job(id)).dump(2);
    const ServiceJob stored =
        service_job_from_json(nlohmann::json::parse(*second.store.get(service_job_key(id))));
    EXPECT_EQ(stored.state, ServiceJobState::cancelled);
  }
  // Carried out, the requests are gone from the store; a second restart changes nothing.
  EXPECT_TRUE(second.store.list("cancels/").empty());
  EXPECT_EQ(second.plane->cancel(dag), CancelOutcome::already_ended);
}

}  // namespace
}  // namespace hetsched
