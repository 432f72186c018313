// The policy contract's score extension point (SchedulingPolicy::score_devices): every
// registry policy scores candidate devices in [0, 1] with the device it would choose
// highest; greedy-eft scores by predicted finish; the default keeps the rest in the
// order of their predicted finish, below the policy's own choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"

namespace hetsched {
namespace {

// One H100 busy until 10 s, two free A100s and a free EPYC CPU; one ready fp16 matrix
// task of 1 PFLOP: the A100s finish it first, then the H100, the CPU last.
struct ScoreFixture {
  Cluster cluster;
  Workload workload;
  std::vector<double> available;
  std::vector<DeviceId> placement{kUnplaced};
  std::vector<std::uint8_t> pstate{0};
  std::vector<TaskState> state{TaskState::ready};
  std::vector<double> finish{0.0};

  ScoreFixture() {
    Node fast, wide;
    fast.name = "fast";
    wide.name = "wide";
    cluster.add_node(fast, {*find_catalog_part("H100-SXM")});
    cluster.add_node(wide, {*find_catalog_part("A100-80GB"), *find_catalog_part("A100-80GB"),
                            *find_catalog_part("EPYC-9654")});
    available = {10.0, 0.0, 0.0, 0.0};
    Task task;
    task.name = "matmul";
    task.kernel = KernelClass::dense_matmul;
    task.precision = Precision::fp16;
    task.flops = 1e15;
    Job job;
    job.name = "job";
    job.tasks.push_back(task);
    workload.jobs.push_back(job);
  }
};

struct ScoreFirstChoice final : AssignmentSink {
  DeviceId device = kUnplaced;
  void assign(const Assignment& a) override {
    if (device == kUnplaced) device = a.device;
  }
};

TEST(PolicyScore, EveryPolicyScoresItsOwnChoiceHighest) {
  ScoreFixture f;
  const TaskGraph graph(f.workload);
  const RooflineModel perf(f.cluster);
  const ClusterSnapshot snapshot{0.0,         f.cluster, graph,   perf,    f.available,
                                 f.placement, f.pstate,  f.state, f.finish};
  const std::vector<DeviceId> candidates{0, 1, 2, 3};
  for (const PolicyInfo& info : policy_registry()) {
    SCOPED_TRACE(std::string(info.name));
    PolicyOptions options;
    options.time_budget_seconds = 0;
    // The choice, as the scheduling loop asks for it: job arrival, then the ready task.
    ScoreFirstChoice choice;
    const auto deciding = make_policy(info.name, options);
    deciding->on_job_arrival(snapshot, 0, choice);
    if (choice.device == kUnplaced) {
      const TaskIndex ready[] = {0};
      deciding->on_tasks_ready(snapshot, ready, choice);
    }
    ASSERT_NE(choice.device, kUnplaced);
    const std::vector<double> scores =
        make_policy(info.name, options)->score_devices(snapshot, 0, candidates);
    ASSERT_EQ(scores.size(), candidates.size());
    for (const double s : scores) {
      EXPECT_GE(s, 0.0);
      EXPECT_LE(s, 1.0);
    }
    EXPECT_EQ(scores[choice.device], *std::max_element(scores.begin(), scores.end()));
  }
}

TEST(PolicyScore, GreedyEftScoresByPredictedFinish) {
  ScoreFixture f;
  const TaskGraph graph(f.workload);
  const RooflineModel perf(f.cluster);
  const ClusterSnapshot snapshot{0.0,         f.cluster, graph,   perf,    f.available,
                                 f.placement, f.pstate,  f.state, f.finish};
  const std::vector<DeviceId> candidates{0, 1, 2, 3};
  const auto scores = make_policy("greedy-eft", {})->score_devices(snapshot, 0, candidates);
  const Task& task = graph.task(0);
  const double a100 = perf.task_seconds(task, f.cluster.device(1));
  EXPECT_DOUBLE_EQ(scores[1], 1.0);
  EXPECT_DOUBLE_EQ(scores[2], 1.0);
  EXPECT_DOUBLE_EQ(scores[0], a100 / (10.0 + perf.task_seconds(task, f.cluster.device(0))));
  EXPECT_DOUBLE_EQ(scores[3], a100 / perf.task_seconds(task, f.cluster.device(3)));
  EXPECT_GT(scores[0], scores[3]);
}

TEST(PolicyScore, DefaultRanksTheChoiceFirstAndTheRestByPredictedFinish) {
  // round-robin takes the first device in turn, the busy H100: it scores 1, and the
  // others 0.9 × (earliest finish / theirs), the A100s ahead of the CPU.
  ScoreFixture f;
  const TaskGraph graph(f.workload);
  const RooflineModel perf(f.cluster);
  const ClusterSnapshot snapshot{0.0,         f.cluster, graph,   perf,    f.available,
                                 f.placement, f.pstate,  f.state, f.finish};
  const std::vector<DeviceId> candidates{0, 1, 2, 3};
  const auto scores = make_policy("round-robin", {})->score_devices(snapshot, 0, candidates);
  EXPECT_DOUBLE_EQ(scores[0], 1.0);
  EXPECT_DOUBLE_EQ(scores[1], 0.9);
  EXPECT_DOUBLE_EQ(scores[2], 0.9);
  EXPECT_LT(scores[3], scores[1]);
  EXPECT_GT(scores[3], 0.0);
  // Candidates are scored in the order given, and only those.
  const std::vector<DeviceId> two{3, 1};
  const auto subset = make_policy("greedy-eft", {})->score_devices(snapshot, 0, two);
  ASSERT_EQ(subset.size(), 2u);
  EXPECT_DOUBLE_EQ(subset[1], 1.0);
  EXPECT_LT(subset[0], 1.0);
}

}  // namespace
}  // namespace hetsched
