// EarliestFinishIndex on free times set by hand: every answer equals a scan of every
// device, as free times go up unannounced (corrected when a search meets them), go down
// with the device listed (lowered before the search), and go down with the list's front
// dropped before the index saw it (built again).
#include "hetsched/policy/earliest_finish_index.hpp"

#include <gtest/gtest.h>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {
namespace {

struct Fixture {
  // Eight nodes of two devices, four parts in turn; one task with no inputs.
  Cluster cluster = benchmark_cluster(8, 2);
  RooflineModel perf{cluster};
  Workload workload = [] {
    Workload workload;
    Job job;
    job.name = "one";
    Task task;
    task.name = "t";
    task.kernel = KernelClass::dense_matmul;
    task.precision = Precision::fp32;
    task.flops = 1e12;
    task.bytes = 1e9;
    task.memory_bytes = 1e9;
    job.tasks.push_back(task);
    workload.jobs.push_back(job);
    return workload;
  }();
  TaskGraph graph{workload};  // reads the workload's tasks where they are
  std::vector<double> available = std::vector<double>(cluster.device_count(), 0.0);
  std::vector<DeviceId> placement{kUnplaced};
  std::vector<std::uint8_t> pstate{0};
  std::vector<TaskState> state{TaskState::ready};
  std::vector<double> finish{0.0};
  std::vector<DeviceId> lowered;
  std::uint64_t lowered_first = 0;
  EarliestFinishIndex index;

  ClusterSnapshot snapshot() const {
    return ClusterSnapshot{0.0,    cluster, graph,  perf,    available,    placement,
                           pstate, state,   finish, lowered, lowered_first};
  }
  // The scan: the least (finish, device) among devices free by `free_by`.
  EarliestFinishIndex::Choice scan(double free_by) const {
    EarliestFinishIndex::Choice best;
    for (const Device& d : cluster.devices()) {
      const double run = perf.task_seconds(graph.task(0), d, 0);
      if (run == kCannotRun || available[d.id] > free_by) continue;
      const double at = available[d.id] + run;
      if (at < best.finish || (at == best.finish && d.id < best.device)) best = {d.id, at};
    }
    return best;
  }
  DeviceId scan_first_free() const {
    DeviceId first = 0;
    for (DeviceId d = 1; d < cluster.device_count(); ++d)
      if (available[d] < available[first]) first = d;
    return first;
  }
  void expect_scan(const char* when) {
    SCOPED_TRACE(when);
    const ClusterSnapshot s = snapshot();
    index.sync(s);
    for (double free_by : {std::numeric_limits<double>::infinity(), 50.0, 20.0}) {
      const EarliestFinishIndex::Choice found = index.earliest_finish(s, 0, free_by);
      const EarliestFinishIndex::Choice expected = scan(free_by);
      EXPECT_EQ(found.device, expected.device) << "free by " << free_by;
      EXPECT_EQ(found.finish, expected.finish) << "free by " << free_by;
    }
    EXPECT_EQ(index.first_free(s, 0), scan_first_free());
  }
};

TEST(EarliestFinishIndex, AnswersAsAScanAsFreeTimesRiseAndFall) {
  Fixture f;
  for (DeviceId d = 0; d < f.cluster.device_count(); ++d) f.available[d] = 40.0 + d;
  f.expect_scan("every device busy when the index is built");
  // The fastest part's device and another drain early and are listed: their keys (40 and
  // more) would hide them.
  const DeviceId fast = f.scan(kCannotRun).device;
  const DeviceId other = (fast + 5) % f.cluster.device_count();
  f.available[fast] = 10;
  f.available[other] = 10;
  f.lowered = {fast, other};
  f.expect_scan("two devices lowered and listed");
  EXPECT_EQ(f.index.earliest_finish(f.snapshot(), 0, 20.0).device, fast);
  f.available[fast] = 45;
  f.expect_scan("a device busy again, unannounced");
  // A slow device drains to 0, but the list dropped its front before the index looked.
  const DeviceId slow = f.cluster.device_count() - 1;
  f.available[slow] = 0;
  f.lowered = {};
  f.lowered_first = 5;
  f.expect_scan("a device lowered while the list dropped entries");
  EXPECT_EQ(f.index.first_free(f.snapshot(), 0), slow);
}

}  // namespace
}  // namespace hetsched
