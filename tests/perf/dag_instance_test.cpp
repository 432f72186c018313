// DagInstance's run times, read one by one and as rows, are the performance model's for
// every device: for a job the instance keeps per spec class (a model that predicts by
// part) and for one with a task of its own per-device costs (kept per device). How much
// memory each form takes is measured by `bench sim --dag --policy heft`, not here.
#include "hetsched/perf/dag_instance.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

// Every device's run time of every task, as the instance reads it one by one and as
// a whole row, against the model's own answer.
void expect_model_times(const DagInstance& instance, const TaskGraph& graph, JobIndex job,
                        const PerfModel& perf) {
  const Cluster& cluster = perf.cluster();
  std::vector<double> scratch(instance.device_count());
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const Task& task = graph.task(graph.first_task(job) + t);
    const std::span<const double> row = instance.compute_row(t, scratch);
    ASSERT_EQ(row.size(), cluster.device_count());
    for (const Device& d : cluster.devices()) {
      const double expected = perf.task_seconds(task, d, 0);
      EXPECT_EQ(instance.compute_seconds(t, d.id), expected) << "task " << t << " device " << d.id;
      EXPECT_EQ(row[d.id], expected) << "task " << t << " device " << d.id;
    }
  }
}

Workload one_workflow(std::uint32_t tasks, std::uint32_t width, std::uint64_t seed) {
  Rng rng(seed);
  Workload workload;
  workload.jobs.push_back(workflow_job({"wf", tasks, width, 0.0}, rng));
  return workload;
}

TEST(DagInstance, RunTimesPerSpecClassAreTheModelsForEveryDevice) {
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  ASSERT_TRUE(perf.predicts_by_spec());
  ASSERT_LT(cluster.spec_class_count(), cluster.device_count());
  const Workload workload = one_workflow(40, 5, 3);
  const TaskGraph graph(workload);  // views the workload
  const DagInstance instance(graph, 0, perf);
  expect_model_times(instance, graph, 0, perf);
}

TEST(DagInstance, ATaskWithItsOwnCostsKeepsATimePerDevice) {
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  Workload workload = one_workflow(12, 3, 4);
  // One task with a cost per device, different on every device of a class.
  Task& own = workload.jobs[0].tasks[5];
  own.cost_seconds.resize(cluster.device_count());
  for (DeviceId d = 0; d < cluster.device_count(); ++d) own.cost_seconds[d] = 1.0 + 0.25 * d;
  const TaskGraph graph(workload);
  const DagInstance instance(graph, 0, perf);
  expect_model_times(instance, graph, 0, perf);
  EXPECT_EQ(instance.compute_seconds(5, 1), 1.25);
  EXPECT_EQ(instance.compute_seconds(5, 2), 1.5);
}

}  // namespace
}  // namespace hetsched
