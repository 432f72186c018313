// ControlPlane on the SimulatedEngine and a real SQLite store, stepped on the twin's
// virtual clock: a DAG job runs to completion with the placement its policy chose, in
// dependency order; cancel; a drained node's unstarted work moves; a downed node's
// running task is launched elsewhere. On the wall clock, with the scheduling thread: a
// new control plane on the same file recovers every job and finishes it.
#include "hetsched/service/control_plane.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "control_plane_fixture.hpp"
#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/service/leadership.hpp"
#include "hetsched/service/service_metrics.hpp"
#include "hetsched/workload/task_graph.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::TempDir;

constexpr const char* kPipeline = R"(
jobs:
  - name: pipeline
    tasks:
      - {name: load, kernel: io, bytes: 2.0e9, kinds: [cpu]}
      - {name: train, kernel: dense_matmul, precision: bf16, flops: 4.0e14, bytes: 6.0e10, kinds: [gpu, tpu], after: [load]}
      - {name: eval-a, kernel: dense_matmul, precision: bf16, flops: 1.0e14, bytes: 1.0e10, after: [train]}
      - {name: eval-b, kernel: elementwise, flops: 1.0e11, bytes: 4.0e10, after: [train]}
      - {name: report, kernel: reduction, flops: 1.0e10, bytes: 1.0e9, kinds: [cpu], after: [eval-a, eval-b]}
)";

// Four independent GPU tasks of about 1.4 simulated seconds each on an H100.
constexpr const char* kFourGpuTasks = R"(
jobs:
  - name: four
    tasks:
      - {name: t0, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9, kinds: [gpu]}
      - {name: t1, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9, kinds: [gpu]}
      - {name: t2, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9, kinds: [gpu]}
      - {name: t3, kernel: dense_matmul, precision: bf16, flops: 1.0e15, bytes: 1.0e9, kinds: [gpu]}
)";

using Service = testing::ControlPlaneFixture;
using Stepped = testing::SteppedControlPlane;
using testing::has_event;

std::size_t count_in_state(const ServiceJob& job, ServiceTaskState state) {
  return static_cast<std::size_t>(std::count_if(
      job.tasks.begin(), job.tasks.end(), [&](const ServiceTask& t) { return t.state == state; }));
}

const ServiceTask& task_named(const ServiceJob& job, const std::string& name) {
  for (const ServiceTask& t : job.tasks)
    if (t.name == name) return t;
  throw std::runtime_error("no task " + name);
}

class RecordingSink final : public AssignmentSink {
 public:
  void assign(const Assignment& a) override { assignments.push_back(a); }
  std::vector<Assignment> assignments;
};

TEST(SimulatedEngine, ATaskLongerThanTheClockCanCountRunsUntilCancelled) {
  const Cluster cluster = default_cluster();
  SimulatedEngine engine(cluster, 1.0);
  const Device& device = cluster.devices().front();
  EngineLaunch launch;
  launch.task_key = "job-1/task-0/attempt-0";
  launch.node = cluster.node(device.node).name;
  launch.kind = device.spec.kind;
  launch.device_model = device.spec.model;
  launch.expected_seconds = 1e300;  // ns since the epoch would overflow: it must not end now
  engine.launch(launch);
  for (const EngineTaskStatus& status : engine.poll())
    EXPECT_EQ(status.state, EngineTaskState::running) << status.reason;
  engine.cancel(launch.task_key);
  const std::vector<EngineTaskStatus> ended = engine.poll();
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].state, EngineTaskState::cancelled);
}

TEST(ControlPlane, DagJobRunsToCompletionWithThePolicysPlacementInDependencyOrder) {
  TempDir dir;
  Stepped service(dir.file("state.db"), default_cluster());
  const std::vector<std::uint64_t> ids = service.plane->submit(kPipeline);
  ASSERT_EQ(ids.size(), 1u);
  service.run_until();
  const ServiceJob job = service.job(ids[0]);
  ASSERT_EQ(job.state, ServiceJobState::completed) << to_json(job).dump(2);

  // HEFT's own plan of the same job on an idle copy of the twin's cluster.
  const Cluster model = default_cluster();
  const Workload workload = parse_workload(kPipeline, "expected", model);
  const TaskGraph graph(workload);
  const RooflineModel perf(model);
  std::vector<double> available(model.device_count(), 0), finish(graph.task_count(), 0);
  std::vector<DeviceId> placement(graph.task_count(), kUnplaced);
  std::vector<std::uint8_t> pstate(graph.task_count(), 0);
  std::vector<TaskState> state(graph.task_count(), TaskState::pending);
  const ClusterSnapshot snapshot{0,         model,  graph, perf,  available,
                                 placement, pstate, state, finish};
  RecordingSink sink;
  make_policy("heft", {})->on_job_arrival(snapshot, 0, sink);
  ASSERT_EQ(sink.assignments.size(), job.tasks.size());
  for (const Assignment& a : sink.assignments) {
    const ServiceTask& task = job.tasks[a.task];
    EXPECT_EQ(task.device, model.device(a.device).name) << task.name;
  }

  for (const ServiceTask& task : job.tasks) {
    EXPECT_EQ(task.state, ServiceTaskState::completed) << task.name;
    EXPECT_TRUE(has_event(task, "planned", task.node)) << task.name;
    EXPECT_TRUE(has_event(task, "launched", task.node)) << task.name;
    EXPECT_TRUE(has_event(task, "finished", task.node)) << task.name;
    EXPECT_EQ(task.attempts, 1u);
  }
  EXPECT_NE(task_named(job, "load").device.find("EPYC"), std::string::npos);
  EXPECT_NE(task_named(job, "report").device.find("EPYC"), std::string::npos);
  for (const Edge& e : workload.jobs[0].edges)
    EXPECT_LE(*job.tasks[e.from].finished_seconds, *job.tasks[e.to].started_seconds)
        << job.tasks[e.from].name << " -> " << job.tasks[e.to].name;
  const ServiceMetrics metrics = service.plane->metrics();
  EXPECT_EQ(metrics.decisions_total, 5u);
  EXPECT_GT(metrics.energy_joules, 0);
  EXPECT_EQ(metrics.jobs_by_state[static_cast<std::size_t>(ServiceJobState::completed)], 1u);
}

TEST(ControlPlane, BadSubmissionsAreInputErrorsAndStoreNothing) {
  TempDir dir;
  Service service(dir.file("state.db"), default_cluster(), 100);
  EXPECT_THROW(service.plane->submit("jobs: [ {name: x, tasks: [{name: a, kernel: nope}]} ]"),
               InputError);
  EXPECT_THROW(service.plane->submit(kPipeline, "hefty"), InputError);
  EXPECT_THROW(service.plane->submit("jobs: []"), InputError);
  EXPECT_TRUE(testing::stored_job_ids(service.store).empty());
  EXPECT_TRUE(service.plane->jobs().empty());
}

TEST(ControlPlane, CancelStopsTheRunningTaskAndEndsTheJob) {
  TempDir dir;
  Stepped service(dir.file("state.db"), default_cluster());
  const auto ids = service.plane->submit(
      "jobs:\n  - name: long\n    tasks:\n      - {name: t, kernel: dense_matmul, precision: "
      "bf16, flops: 1.0e18, bytes: 1.0e9, kinds: [gpu]}\n");
  service.run_until(60);  // the task runs for far longer
  ASSERT_EQ(service.job(ids[0]).tasks[0].state, ServiceTaskState::running);
  EXPECT_EQ(service.plane->cancel(ids[0]), CancelOutcome::cancelling);
  service.run_until(61);
  ASSERT_EQ(service.job(ids[0]).state, ServiceJobState::cancelled);
  EXPECT_EQ(service.plane->cancel(ids[0]), CancelOutcome::already_ended);
  EXPECT_EQ(service.plane->cancel(999), CancelOutcome::not_found);
  EXPECT_TRUE(has_event(service.job(ids[0]).tasks[0], "cancelled"));
  EXPECT_EQ(service.plane->metrics().running_tasks, 0u);
  // The twin has nothing left running (its devices are all free again).
  for (DeviceId d = 0; d < service.engine.cluster().device_count(); ++d)
    EXPECT_FALSE(service.engine.simulator().running_on(d)) << d;
  // The stored record says so too.
  const auto stored =
      service_job_from_json(nlohmann::json::parse(*service.store.get(service_job_key(ids[0]))));
  EXPECT_EQ(stored.state, ServiceJobState::cancelled);
}

TEST(ControlPlane, DrainedNodesUnstartedTasksMoveAndItsRunningTaskFinishesThere) {
  TempDir dir;
  Stepped service(dir.file("state.db"), parse_cluster(testing::kTwoGpuNodes, "test"));
  const auto ids = service.plane->submit(kFourGpuTasks);
  // HEFT spreads the four tasks over both GPUs, two each: one runs on each at first.
  service.run_until(0.5);
  ASSERT_EQ(count_in_state(service.job(ids[0]), ServiceTaskState::running), 2u);
  const ServiceJob before = service.job(ids[0]);
  std::string running_on_b, waiting_on_b;
  for (const ServiceTask& t : before.tasks) {
    if (t.node != "gpu-b") continue;
    (t.state == ServiceTaskState::running ? running_on_b : waiting_on_b) = t.name;
  }
  ASSERT_FALSE(running_on_b.empty());
  ASSERT_FALSE(waiting_on_b.empty());
  service.engine.set_node_state("gpu-b", EngineNodeState::draining);
  service.run_until();
  const ServiceJob job = service.job(ids[0]);
  ASSERT_EQ(job.state, ServiceJobState::completed) << to_json(job).dump(2);
  const ServiceTask& moved = task_named(job, waiting_on_b);
  EXPECT_TRUE(has_event(moved, "moved", "gpu-b"));
  EXPECT_TRUE(has_event(moved, "replanned", "gpu-a"));
  EXPECT_EQ(moved.node, "gpu-a");
  EXPECT_FALSE(has_event(moved, "launched", "gpu-b"));
  const ServiceTask& kept = task_named(job, running_on_b);
  EXPECT_EQ(kept.node, "gpu-b");  // draining lets running work finish
  EXPECT_EQ(kept.attempts, 1u);
}

TEST(ControlPlane, DownedNodesRunningTaskIsLaunchedElsewhere) {
  TempDir dir;
  Stepped service(dir.file("state.db"), parse_cluster(testing::kTwoGpuNodes, "test"));
  const auto ids = service.plane->submit(kFourGpuTasks);
  service.run_until(0.5);
  std::string running_on_b;
  for (const ServiceTask& t : service.job(ids[0]).tasks)
    if (t.node == "gpu-b" && t.state == ServiceTaskState::running) running_on_b = t.name;
  ASSERT_FALSE(running_on_b.empty());
  service.engine.set_node_state("gpu-b", EngineNodeState::down);
  service.run_until();
  const ServiceJob job = service.job(ids[0]);  // a copy: the reference below points into it
  ASSERT_EQ(job.state, ServiceJobState::completed) << to_json(job).dump(2);
  const ServiceTask& task = task_named(job, running_on_b);
  EXPECT_TRUE(has_event(task, "failed", "gpu-b"));
  EXPECT_EQ(task.node, "gpu-a");
  EXPECT_EQ(task.attempts, 2u);
  // Stopped at 0.5 s on the twin's clock: it started again no earlier.
  EXPECT_GE(*task.started_seconds, 0.5);
  for (const ServiceTask& t : service.job(ids[0]).tasks) EXPECT_EQ(t.node, "gpu-a") << t.name;
  EXPECT_GE(service.plane->metrics().task_failures_total, 1u);
}

TEST(ControlPlane, AJobNoUpNodeCanRunWaitsShowingWhyAndRunsWhenOneComesBack) {
  TempDir dir;
  Stepped service(dir.file("state.db"), parse_cluster(testing::kTwoGpuNodes, "test"));
  service.engine.set_node_state("gpu-a", EngineNodeState::down);
  service.engine.set_node_state("gpu-b", EngineNodeState::down);
  const auto ids = service.plane->submit(kFourGpuTasks);
  service.run_until(100);
  // Unschedulable, not unresolvable: the job waits and says why.
  const ServiceJob waiting = service.job(ids[0]);
  ASSERT_NE(waiting.reason.find("is up"), std::string::npos) << to_json(waiting).dump(2);
  EXPECT_EQ(waiting.state, ServiceJobState::queued);
  EXPECT_NE(waiting.reason.find("no device that can run task"), std::string::npos)
      << waiting.reason;
  EXPECT_TRUE(std::any_of(waiting.tasks.begin(), waiting.tasks.end(),
                          [](const ServiceTask& t) { return has_event(t, "unschedulable"); }));
  service.engine.set_node_state("gpu-b", EngineNodeState::up);
  service.run_until();
  const ServiceJob done = service.job(ids[0]);
  ASSERT_EQ(done.state, ServiceJobState::completed) << to_json(done).dump(2);
  EXPECT_GE(*done.tasks[0].started_seconds, 100.0);  // not before its node came back
  EXPECT_TRUE(done.reason.empty()) << done.reason;
  for (const ServiceTask& t : done.tasks) EXPECT_EQ(t.node, "gpu-b") << t.name;
}

TEST(ControlPlane, RestartReloadsEveryJobAndRelaunchesWhatTheEngineLost) {
  TempDir dir;
  const std::string db = dir.file("state.db");
  const Cluster cluster = parse_cluster(testing::kTwoGpuNodes, "test");
  std::uint64_t quick = 0, slow = 0;
  {
    // Slow pace: the long task runs for minutes of real time in this first life.
    Service first(db, cluster, 0.05);
    quick = first.plane->submit(
        "jobs:\n  - name: quick\n    tasks:\n      - {name: q, kernel: elementwise, flops: 1.0e6, "
        "bytes: 1.0e6, kinds: [cpu]}\n")[0];
    slow = first.plane->submit(kFourGpuTasks)[0];
    ASSERT_TRUE(eventually([&] { return first.in_state(quick, ServiceJobState::completed); }));
    ASSERT_TRUE(eventually([&] {
      const ServiceJob j = first.job(slow);
      return std::any_of(j.tasks.begin(), j.tasks.end(),
                         [](const ServiceTask& t) { return t.state == ServiceTaskState::running; });
    }));
    first.plane->stop();
  }  // the process "dies": its engine and its memory are gone
  Service second(db, cluster, 200);
  EXPECT_EQ(second.job(quick).state, ServiceJobState::completed);
  ASSERT_TRUE(second.plane->job(slow).has_value());
  ASSERT_TRUE(eventually([&] { return second.in_state(slow, ServiceJobState::completed); }))
      << to_json(second.job(slow)).dump(2);
  const ServiceJob job = second.job(slow);
  EXPECT_TRUE(std::any_of(job.tasks.begin(), job.tasks.end(),
                          [](const ServiceTask& t) { return has_event(t, "lost"); }));
  for (const ServiceTask& t : job.tasks) EXPECT_EQ(t.state, ServiceTaskState::completed);
  const auto next = second.plane->submit(kFourGpuTasks);
  EXPECT_GT(next[0], slow);  // ids keep growing across restarts
}

// A real SQLite store whose writes can be refused, as a full disk or a lost etcd would.
// Submissions can be let through while everything else is refused, so a job is accepted
// and then makes no step of progress until the store answers again (refusing only after
// the submission returned would race the scheduling thread, which may finish the job
// first).
class RefusingStore final : public StateStore {
 public:
  explicit RefusingStore(const std::string& path) : inner_(path) {}
  std::atomic<bool> refuse{false};
  std::atomic<bool> let_submissions_through{false};
  std::string_view name() const override { return "refusing sqlite"; }
  void put(std::span<const StoredRecord> records) override {
    const bool all_submissions = std::all_of(
        records.begin(), records.end(),
        [](const StoredRecord& r) { return r.key.starts_with(kServiceSubmissionPrefix); });
    if (refuse && !(let_submissions_through && all_submissions))
      throw StateStoreError("the disk is full (refused by the test)");
    inner_.put(records);
  }
  std::optional<std::string> get(std::string_view key) override { return inner_.get(key); }
  std::vector<StoredRecord> list(std::string_view prefix) override { return inner_.list(prefix); }
  void erase(std::string_view key) override { inner_.erase(key); }
  std::uint64_t reserve_sequence(std::string_view counter, std::uint64_t count) override {
    return inner_.reserve_sequence(counter, count);
  }

 private:
  SqliteStateStore inner_;
};

TEST(ControlPlane, FailingStepsAreRetriedWithBackoffShownAndCountedThenRecover) {
  TempDir dir;
  RefusingStore store(dir.file("state.db"));
  SimulatedEngine engine(parse_cluster(testing::kTwoGpuNodes, "test"), 1000.0);
  SoleLeader leader("http://127.0.0.1:1");
  ControlPlane plane(store, engine, leader, ControlPlaneOptions{});
  plane.start();
  store.let_submissions_through = true;
  store.refuse = true;
  const std::uint64_t id = plane.submit(kFourGpuTasks)[0];  // accepted; its steps are refused
  ASSERT_TRUE(eventually([&] { return plane.step_health().failures_total >= 3; }));
  EXPECT_NE(plane.job(id)->state, ServiceJobState::completed);
  store.let_submissions_through = false;
  const ControlPlane::StepHealth failing = plane.step_health();
  EXPECT_TRUE(failing.failing);
  EXPECT_NE(failing.error.find("disk is full"), std::string::npos) << failing.error;
  EXPECT_TRUE(plane.metrics().step_failing);
  EXPECT_NE(to_prometheus_text(plane.metrics()).find("hetsched_scheduling_step_failing 1"),
            std::string::npos);
  store.refuse = false;  // the store answers again: the steps carry on where they were
  ASSERT_TRUE(eventually([&] { return plane.job(id)->state == ServiceJobState::completed; }))
      << to_json(*plane.job(id)).dump(2);
  // (The job reads completed once its step stored it; the flag clears as that step returns.)
  EXPECT_TRUE(eventually([&] { return !plane.step_health().failing; }));
  EXPECT_GE(plane.metrics().step_failures_total, 3u);
  plane.stop();
}

TEST(ControlPlane, AReplicatedSubmissionIsStoredOnceAndComesBackWholeAfterARestart) {
  TempDir dir;
  const std::string db = dir.file("state.db");
  const Cluster cluster = parse_cluster(testing::kTwoGpuNodes, "test");
  const std::string text =
      "jobs:\n  - name: many\n    count: 1000\n    arrival_seconds: 60\n    tasks:\n"
      "      - {name: a, kernel: elementwise, flops: 1.0e6, bytes: 1.0e6, kinds: [cpu]}\n"
      "      - {name: b, kernel: elementwise, flops: 1.0e6, bytes: 1.0e6, after: [a]}\n";
  std::vector<std::uint64_t> ids;
  std::string last_name;
  {
    Stepped first(db, cluster);
    ids = first.plane->submit(text);
    ASSERT_EQ(ids.size(), 1000u);
    EXPECT_EQ(ids.back() - ids.front(), 999u);  // one reservation of consecutive ids
    // Acknowledged: the text once, and no record per job (nothing has happened to them).
    const auto submissions = first.store.list(kServiceSubmissionPrefix);
    ASSERT_EQ(submissions.size(), 1u);
    EXPECT_LT(submissions[0].value.size(), text.size() + 200);
    EXPECT_TRUE(first.store.list(kServiceJobPrefix).empty());
    first.run_until(30.0);  // steps before the jobs arrive: nothing happens to them
    EXPECT_TRUE(first.store.list(kServiceJobPrefix).empty());
    last_name = first.job(ids.back()).name;
  }  // the process "dies"
  Stepped second(db, cluster);
  EXPECT_EQ(second.plane->jobs().size(), 1000u);
  for (std::uint64_t id : ids) ASSERT_TRUE(second.plane->job(id).has_value()) << id;
  EXPECT_EQ(second.job(ids.back()).tasks.size(), 2u);
  EXPECT_EQ(second.job(ids.back()).name, last_name);
  second.run_until();
  for (std::uint64_t id : ids) ASSERT_EQ(second.job(id).state, ServiceJobState::completed) << id;
  // Every job ended and is stored: the submission's text is no longer kept.
  EXPECT_TRUE(second.store.list(kServiceSubmissionPrefix).empty());
  EXPECT_EQ(second.store.list(kServiceJobPrefix).size(), 1000u);
}

}  // namespace
}  // namespace hetsched
