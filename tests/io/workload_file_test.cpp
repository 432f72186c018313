// Tests of the workload file loader: the example loads against the example cluster, every
// field lands in the Job and Task, `count` replicates jobs, JSON is read like YAML, and
// each kind of bad input becomes one InputError saying where and what was expected.
#include "hetsched/io/workload_file.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "hetsched/io/cluster_file.hpp"
#include "io_test_support.hpp"

namespace hetsched {
namespace {

using test_support::input_error_of;

// Two nodes: "gpu" with two H100 (devices 0, 1) and "cpu" with one EPYC (device 2).
Cluster small_cluster() {
  return parse_cluster(R"(
nodes:
  - {name: gpu, devices: [{model: H100-SXM, count: 2}]}
  - {name: cpu, devices: [{model: EPYC-9654}]}
)",
                       "small.yaml");
}

Cluster tpu_only_cluster() {
  return parse_cluster("nodes: [{name: tpu, devices: [{model: TPU-v5e, count: 4}]}]", "tpu.yaml");
}

std::string workload_error(const std::string& text, const Cluster& cluster = small_cluster()) {
  return input_error_of([&] { parse_workload(text, "w.yaml", cluster); });
}

// A one-job workload whose single task has the given extra fields.
std::string one_task(const std::string& task_fields) {
  return "jobs:\n  - name: j\n    tasks:\n      - {name: t, " + task_fields + "}\n";
}

TEST(WorkloadFile, ExampleLoadsAgainstTheExampleCluster) {
  const Cluster cluster = load_cluster_file(HETSCHED_SOURCE_DIR "/examples/cluster.yaml");
  const Workload workload =
      load_workload_file(HETSCHED_SOURCE_DIR "/examples/workload.yaml", cluster);
  ASSERT_EQ(workload.jobs.size(), 6u);  // three jobs and three copies of "request"
  const Job& train = workload.jobs[0];
  EXPECT_EQ(train.name, "train-step");
  EXPECT_EQ(train.family, "ml");
  EXPECT_EQ(train.owner, "alice");
  EXPECT_EQ(train.priority, 2);
  EXPECT_EQ(train.deadline_seconds, 600.0);
  EXPECT_EQ(train.data_node, 0u);
  ASSERT_EQ(train.tasks.size(), 4u);
  EXPECT_EQ(train.tasks[1].kernel, KernelClass::dense_matmul);
  EXPECT_EQ(train.tasks[1].precision, Precision::fp16);
  ASSERT_EQ(train.edges.size(), 3u);
  const Job& wordcount = workload.jobs[1];
  EXPECT_EQ(wordcount.data_node, 4u);  // cpu-0
  EXPECT_EQ(wordcount.edges.size(), 2u);
  EXPECT_EQ(workload.jobs[2].data_node, 4u);  // given as an index
  EXPECT_EQ(workload.jobs[2].tasks[0].precision, Precision::fp64);
  EXPECT_EQ(workload.jobs[3].name, "request-0");
  EXPECT_EQ(workload.jobs[5].name, "request-2");
  EXPECT_EQ(workload.jobs[5].tasks.size(), 2u);
  EXPECT_EQ(workload.task_count(), 4u + 3u + 3u + 3u * 2u);
}

TEST(WorkloadFile, EveryFieldLandsWhereExpected) {
  const Workload workload = parse_workload(R"(
jobs:
  - name: train
    family: ml
    owner: alice
    arrival_seconds: 12.5
    priority: -3
    deadline_seconds: 3600
    data_node: cpu
    tasks:
      - name: fwd
        kernel: attention
        precision: bf16
        flops: 1.2e15
        bytes: 4.0e10
        memory_bytes: 2.0e10
        input_bytes: 1.0e9
        kinds: [gpu, tpu]
        cost_seconds: [14, 16, 9]
      - name: bwd
        kernel: dense_matmul
        precision: int8
        kinds: gpu
        after: [fwd]
      - name: step
        after: [{task: bwd, bytes: 1e6}, {task: fwd}]
    edges:
      - {from: fwd, to: step, bytes: 1.0e8}
)",
                                           "w.yaml", small_cluster());
  ASSERT_EQ(workload.jobs.size(), 1u);
  const Job& job = workload.jobs[0];
  EXPECT_EQ(job.name, "train");
  EXPECT_EQ(job.family, "ml");
  EXPECT_EQ(job.owner, "alice");
  EXPECT_DOUBLE_EQ(job.arrival_seconds, 12.5);
  EXPECT_EQ(job.priority, -3);
  EXPECT_EQ(job.deadline_seconds, 3600.0);
  EXPECT_EQ(job.data_node, 1u);
  ASSERT_EQ(job.tasks.size(), 3u);
  const Task& fwd = job.tasks[0];
  EXPECT_EQ(fwd.name, "fwd");
  EXPECT_EQ(fwd.kernel, KernelClass::attention);
  EXPECT_EQ(fwd.precision, Precision::fp16);
  EXPECT_DOUBLE_EQ(fwd.flops, 1.2e15);
  EXPECT_DOUBLE_EQ(fwd.bytes, 4.0e10);
  EXPECT_DOUBLE_EQ(fwd.memory_bytes, 2.0e10);
  EXPECT_DOUBLE_EQ(fwd.input_bytes, 1.0e9);
  EXPECT_TRUE(fwd.allowed_kinds.contains(DeviceKind::gpu));
  EXPECT_TRUE(fwd.allowed_kinds.contains(DeviceKind::tpu));
  EXPECT_FALSE(fwd.allowed_kinds.contains(DeviceKind::cpu));
  EXPECT_EQ(fwd.cost_seconds, (std::vector<double>{14, 16, 9}));
  const Task& bwd = job.tasks[1];
  EXPECT_EQ(bwd.precision, Precision::int8);
  EXPECT_FALSE(bwd.allowed_kinds.contains(DeviceKind::tpu));
  EXPECT_TRUE(bwd.allowed_kinds.contains(DeviceKind::gpu));
  const Task& step = job.tasks[2];
  EXPECT_EQ(step.kernel, KernelClass::elementwise);  // defaults
  EXPECT_EQ(step.precision, Precision::fp32);
  EXPECT_EQ(step.allowed_kinds, DeviceKindSet::all());
  EXPECT_TRUE(step.cost_seconds.empty());
  // after: entries first (in task order), then the explicit edges.
  ASSERT_EQ(job.edges.size(), 4u);
  EXPECT_EQ(job.edges[0].from, 0u);
  EXPECT_EQ(job.edges[0].to, 1u);
  EXPECT_DOUBLE_EQ(job.edges[0].bytes, 0);
  EXPECT_EQ(job.edges[1].from, 1u);
  EXPECT_EQ(job.edges[1].to, 2u);
  EXPECT_DOUBLE_EQ(job.edges[1].bytes, 1e6);
  EXPECT_EQ(job.edges[2].from, 0u);
  EXPECT_EQ(job.edges[3].to, 2u);
  EXPECT_DOUBLE_EQ(job.edges[3].bytes, 1e8);
}

TEST(WorkloadFile, DataNodeByIndexAndDefault) {
  const Workload workload = parse_workload(R"(
jobs:
  - {name: a, data_node: 1, tasks: [{name: t}]}
  - {name: b, tasks: [{name: t}]}
)",
                                           "w.yaml", small_cluster());
  EXPECT_EQ(workload.jobs[0].data_node, 1u);
  EXPECT_EQ(workload.jobs[1].data_node, 0u);
  EXPECT_DOUBLE_EQ(workload.jobs[1].arrival_seconds, 0);
  EXPECT_FALSE(workload.jobs[1].deadline_seconds.has_value());
}

TEST(WorkloadFile, CountReplicatesJobsWithTheirEdges) {
  const Workload workload = parse_workload(R"(
jobs:
  - name: r
    count: 3
    arrival_seconds: 5
    tasks: [{name: a}, {name: b, after: [a]}]
)",
                                           "w.yaml", small_cluster());
  ASSERT_EQ(workload.jobs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(workload.jobs[i].name, "r-" + std::to_string(i));
    EXPECT_DOUBLE_EQ(workload.jobs[i].arrival_seconds, 5);
    ASSERT_EQ(workload.jobs[i].edges.size(), 1u);
    EXPECT_EQ(workload.jobs[i].edges[0].to, 1u);
  }
}

TEST(WorkloadFile, JsonIsReadLikeYaml) {
  const Workload workload = parse_workload(R"({
  "jobs": [{"name": "j", "data_node": "cpu", "priority": 1,
            "tasks": [{"name": "a", "kernel": "reduction", "precision": "fp64",
                       "flops": 1e9, "kinds": ["cpu"], "cost_seconds": [1, 2, 3.5]},
                      {"name": "b", "after": [{"task": "a", "bytes": 100}]}],
            "edges": [{"from": "a", "to": "b"}]}]
})",
                                           "w.json", small_cluster());
  ASSERT_EQ(workload.jobs.size(), 1u);
  const Job& job = workload.jobs[0];
  EXPECT_EQ(job.data_node, 1u);
  EXPECT_EQ(job.priority, 1);
  EXPECT_EQ(job.tasks[0].kernel, KernelClass::reduction);
  EXPECT_EQ(job.tasks[0].precision, Precision::fp64);
  EXPECT_EQ(job.tasks[0].cost_seconds, (std::vector<double>{1, 2, 3.5}));
  ASSERT_EQ(job.edges.size(), 2u);
  EXPECT_DOUBLE_EQ(job.edges[0].bytes, 100);
}

TEST(WorkloadFile, NumbersInYamlAndJsonSpellingsAreAccepted) {
  const Workload workload =
      parse_workload(one_task("flops: +1.5E3, bytes: 1e-999, memory_bytes: 0.0, input_bytes: 7"),
                     "w.yaml", small_cluster());
  const Task& task = workload.jobs[0].tasks[0];
  EXPECT_DOUBLE_EQ(task.flops, 1500);
  EXPECT_DOUBLE_EQ(task.bytes, 0);  // underflows to zero
  EXPECT_DOUBLE_EQ(task.memory_bytes, 0);
  EXPECT_DOUBLE_EQ(task.input_bytes, 7);
  EXPECT_CONTAINS(
      input_error_of([] { parse_workload(one_task("flops: 0x10"), "w", small_cluster()); }),
      "field 'flops' expects a number >= 0, got '0x10'");
  EXPECT_CONTAINS(
      input_error_of([] { parse_workload(one_task("flops: +-1"), "w", small_cluster()); }),
      "field 'flops' expects a number >= 0, got '+-1'");
}

// ---- bad input ----

TEST(WorkloadFileErrors, SyntaxErrorNamesFileLineAndColumn) {
  EXPECT_CONTAINS(workload_error("jobs:\n  - name: j\n    tasks: [{name: a}\n"),
                  "w.yaml:4:1: YAML syntax error: while parsing a flow sequence: did not find "
                  "expected ',' or ']'");
}

TEST(WorkloadFileErrors, WrongTypesNameFieldAndExpectation) {
  EXPECT_CONTAINS(workload_error("jobs:\n  - name: j\n    tasks: 5\n"),
                  "w.yaml:3:12: field 'tasks' expects a list, got '5'");
  EXPECT_CONTAINS(workload_error(one_task("flops: abc")),
                  "w.yaml:4:26: field 'flops' expects a number >= 0, got 'abc'");
  EXPECT_CONTAINS(workload_error(one_task("kinds: {gpu: 1}")),
                  "field 'kinds' expects a list, got a map");
  EXPECT_CONTAINS(workload_error("jobs:\n  - {name: j, priority: 1.5, tasks: [{name: t}]}\n"),
                  "field 'priority' expects a whole number from -1000000000 to 1000000000, got "
                  "'1.5'");
  EXPECT_CONTAINS(workload_error(one_task("after: a")), "field 'after' expects a list, got 'a'");
}

TEST(WorkloadFileErrors, NegativeAndNonFiniteNumbersAreRejected) {
  EXPECT_CONTAINS(workload_error(one_task("flops: -1")),
                  "field 'flops' expects a number >= 0, got '-1'");
  EXPECT_CONTAINS(workload_error(one_task("bytes: .nan")),
                  "field 'bytes' expects a finite number >= 0, got '.nan'");
  EXPECT_CONTAINS(workload_error(one_task("memory_bytes: .inf")),
                  "field 'memory_bytes' expects a finite number >= 0, got '.inf'");
  EXPECT_CONTAINS(workload_error(one_task("cost_seconds: [1, -2, 3]")),
                  "field 'cost_seconds[1]' expects a number >= 0, got '-2'");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, arrival_seconds: -5, tasks: [{name: t}]}]"),
                  "field 'arrival_seconds' expects a number >= 0, got '-5'");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, tasks: [{name: a}, {name: b}], "
                                 "edges: [{from: a, to: b, bytes: inf}]}]"),
                  "field 'bytes' expects a finite number >= 0, got 'inf'");
}

TEST(WorkloadFileErrors, UnknownNamesListTheClosest) {
  EXPECT_CONTAINS(workload_error(one_task("kernel: dense_matmull")),
                  "unknown kernel class 'dense_matmull' (closest: dense_matmul");
  EXPECT_CONTAINS(workload_error(one_task("precision: fp8")), "unknown precision 'fp8' (closest: ");
  EXPECT_CONTAINS(workload_error(one_task("kinds: [gpu, tpuu]")),
                  "unknown device kind 'tpuu' (closest: tpu");
  EXPECT_CONTAINS(workload_error(one_task("flop: 1")),
                  "w.yaml:4:19: unknown field 'flop' in task (closest: flops");
  EXPECT_CONTAINS(workload_error("job: []\n"),
                  "unknown field 'job' in the workload file (closest: jobs");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, data_node: gpuu, tasks: [{name: t}]}]"),
                  "unknown node 'gpuu' (closest: gpu");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, data_node: 7, tasks: [{name: t}]}]"),
                  "field 'data_node' expects a whole number from 0 to 1, got '7'");
}

TEST(WorkloadFileErrors, DuplicateNamesAreRejected) {
  EXPECT_CONTAINS(workload_error("jobs:\n  - {name: j, tasks: [{name: t}]}\n"
                                 "  - {name: j, tasks: [{name: t}]}\n"),
                  "w.yaml:3:12: duplicate job name 'j' (first at line 2, column 12)");
  EXPECT_CONTAINS(workload_error("jobs:\n  - {name: r, count: 2, tasks: [{name: t}]}\n"
                                 "  - {name: r-1, tasks: [{name: t}]}\n"),
                  "duplicate job name 'r-1' (first at line 2, column 12)");
  EXPECT_CONTAINS(workload_error("jobs:\n  - name: j\n    tasks:\n      - name: t\n"
                                 "      - name: t\n"),
                  "w.yaml:5:15: duplicate task name 't' in job 'j' (first at line 4, column 15)");
}

TEST(WorkloadFileErrors, MissingParentsNameTheTaskAndClosest) {
  EXPECT_CONTAINS(workload_error("jobs:\n  - name: train\n    tasks: [{name: fwd}, {name: bwd}]\n"
                                 "    edges:\n      - {from: fwdd, to: bwd}\n"),
                  "w.yaml:5:16: unknown task 'fwdd' in job 'train' (closest: fwd");
  EXPECT_CONTAINS(workload_error("jobs:\n  - name: train\n    tasks: [{name: fwd}, {name: bwd, "
                                 "after: [fw]}]\n"),
                  "unknown task 'fw' in job 'train' (closest: fwd");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, tasks: [{name: a}], edges: [{from: a}]}]"),
                  "edge is missing required field 'to'");
}

TEST(WorkloadFileErrors, CycleNamesItsTasks) {
  const std::string message = workload_error(
      "jobs: [{name: loop, tasks: [{name: a, after: [c]}, {name: b, after: [a]}, "
      "{name: c, after: [b]}]}]");
  // At the first task of the cycle, where the file names it.
  EXPECT_CONTAINS(message, "w.yaml:1:36: job 'loop' has a dependency cycle: ");
  EXPECT_CONTAINS(message, "a -> b -> c -> a");
}

TEST(WorkloadFileErrors, TaskNoDeviceCanRunIsReported) {
  EXPECT_CONTAINS(workload_error(one_task("memory_bytes: 1e15")),
                  "job 'j' task 't' cannot run on any device: needs 1e+06 GB");
  EXPECT_CONTAINS(workload_error(one_task("precision: fp64"), tpu_only_cluster()),
                  "job 'j' task 't' cannot run on any device: no allowed device supports fp64");
  EXPECT_CONTAINS(workload_error(one_task("kinds: [tpu]")),
                  "cannot run on any device: no device of an allowed kind");
}

TEST(WorkloadFileErrors, CostVectorMustMatchTheDevices) {
  EXPECT_CONTAINS(workload_error(one_task("cost_seconds: [1, 2]")),
                  "w.yaml:4:33: field 'cost_seconds' has 2 entries but the cluster has 3 devices");
}

TEST(WorkloadFileErrors, HugeCountsAreRejected) {
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, count: 100001, tasks: [{name: t}]}]"),
                  "field 'count' expects a whole number from 1 to 100000, got '100001'");
  // 101 tasks replicated 100000 times exceed the 10 million task limit before any copy.
  std::string tasks;
  for (int i = 0; i <= 100; ++i)
    tasks += (i ? ", " : "") + std::string("{name: t") + std::to_string(i) + "}";
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, count: 100000, tasks: [" + tasks + "]}]"),
                  "the workload has more than 10000000 tasks");
  std::string jobs = "jobs:\n";
  for (int i = 0; i < 11; ++i)
    jobs += "  - {name: j" + std::to_string(i) + ", count: 100000, tasks: [{name: t}]}\n";
  EXPECT_CONTAINS(workload_error(jobs), "w.yaml:12:5: the workload has more than 1000000 jobs");
}

TEST(WorkloadFileErrors, TighterLimitsCanBePassed) {
  const WorkloadFileLimits limits{5, 8, 10, 3, 6};
  const Cluster cluster = small_cluster();
  auto error_with_limits = [&](const std::string& text) {
    return input_error_of([&] { parse_workload(text, "w.yaml", cluster, limits); });
  };
  EXPECT_CONTAINS(error_with_limits("jobs: [{name: j, count: 6, tasks: [{name: t}]}]"),
                  "field 'count' expects a whole number from 1 to 5, got '6'");
  EXPECT_CONTAINS(error_with_limits("jobs: [{name: a, count: 5, tasks: [{name: t}]},\n"
                                    "       {name: b, count: 4, tasks: [{name: t}]}]"),
                  "w.yaml:2:8: the workload has more than 8 jobs");
  EXPECT_CONTAINS(error_with_limits("jobs: [{name: a, count: 4, tasks: [{name: t}, {name: u}, "
                                    "{name: v}]}]"),
                  "the workload has more than 10 tasks");
  EXPECT_CONTAINS(error_with_limits("jobs: [{name: a, count: 2, tasks: [{name: t}, "
                                    "{name: u, after: [t]}, {name: v, after: [t, u]}]}]"),
                  "the workload has more than 3 edges");
  EXPECT_CONTAINS(error_with_limits("jobs: [{name: a, tasks: [{name: t, cost_seconds: [1, 1, 1]},"
                                    " {name: u, cost_seconds: [1, 1, 1]}, "
                                    "{name: v, cost_seconds: [1, 1, 1]}]}]"),
                  "the workload has more than 6 cost_seconds entries");
  EXPECT_EQ(parse_workload("jobs: [{name: a, count: 5, tasks: [{name: t}, {name: u, after: [t]}]}]",
                           "w.yaml", cluster, WorkloadFileLimits{5, 5, 10, 5, 0})
                .task_count(),
            10u);
}

// A workload of `jobs` jobs, one line each (job i on line i + 2), every one a chain of three
// tasks; job 7 is replicated, every fifth job reads from the cpu node; `change` rewrites a
// job's line.
std::string many_jobs(int jobs, const std::function<std::string(int, std::string)>& change = {}) {
  std::string text = "jobs:\n";
  for (int i = 0; i < jobs; ++i) {
    std::string line = "  - {name: j" + std::to_string(i) + (i == 7 ? ", count: 3" : "") +
                       (i % 5 == 0 ? ", data_node: cpu" : "") +
                       ", tasks: [{name: a, flops: " + std::to_string(1e9 * (i + 1)) +
                       "}, {name: b, kernel: dense_matmul, after: [a]}, "
                       "{name: c, bytes: 5e8, after: [{task: a, bytes: 1e6}, b]}]}";
    text += (change ? change(i, line) : line) + "\n";
  }
  return text;
}

Workload read_with_threads(const std::string& text, unsigned threads,
                           WorkloadFileLimits limits = {}) {
  limits.reader_threads = threads;
  return parse_workload(text, "w.yaml", small_cluster(), limits);
}

TEST(WorkloadFile, JobsReadByManyThreadsAreTheJobsOneReaderReads) {
  const std::string text = many_jobs(300);
  const Workload one = read_with_threads(text, 1);
  ASSERT_EQ(one.jobs.size(), 302u);
  for (const unsigned threads : {2u, 4u, 7u}) {
    const Workload many = read_with_threads(text, threads);
    ASSERT_EQ(many.jobs.size(), one.jobs.size());
    for (std::size_t j = 0; j < one.jobs.size(); ++j)
      test_support::expect_same_job(many.jobs[j], one.jobs[j]);
  }
  EXPECT_EQ(one.jobs[7].name, "j7-0");
  EXPECT_EQ(one.jobs[9].name, "j7-2");
  EXPECT_EQ(one.jobs[0].data_node, 1u);
}

TEST(WorkloadFileErrors, ManyThreadsMeetTheFirstErrorAsOneReaderDoes) {
  // Two bad jobs: the earlier one's error is reported, whichever thread read it.
  const std::string two_errors = many_jobs(300, [](int i, std::string line) {
    if (i == 200) line.replace(line.find("flops"), 5, "flop");
    if (i == 250) line.replace(line.find("bytes: 5e8"), 10, "bytes: -1");
    return line;
  });
  const std::string first = input_error_of([&] { read_with_threads(two_errors, 1); });
  EXPECT_CONTAINS(first, "w.yaml:202:");
  EXPECT_CONTAINS(first, "unknown field 'flop'");
  for (const unsigned threads : {2u, 4u, 7u})
    EXPECT_EQ(input_error_of([&] { read_with_threads(two_errors, threads); }), first);

  // The limit on tasks is passed inside job 150, before job 200's error: that is the error,
  // at the task that passes it, though every thread counts only its own jobs.
  WorkloadFileLimits limits;
  limits.max_tasks = 3 * 152 + 1;  // jobs 0 to 149 and job 7's two more copies, and one
  const std::string over = input_error_of([&] { read_with_threads(two_errors, 1, limits); });
  EXPECT_CONTAINS(over, "w.yaml:152:81:");  // job 150's second task
  EXPECT_CONTAINS(over, "the workload has more than 457 tasks");
  for (const unsigned threads : {2u, 4u, 7u})
    EXPECT_EQ(input_error_of([&] { read_with_threads(two_errors, threads, limits); }), over);
}

TEST(WorkloadFileErrors, InconsistentJobFieldsAreRejected) {
  EXPECT_CONTAINS(
      workload_error(
          "jobs: [{name: j, arrival_seconds: 10, deadline_seconds: 5, tasks: [{name: t}]}]"),
      "job 'j': deadline_seconds (5) is before arrival_seconds (10)");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j, tasks: []}]"), "job 'j' has no tasks");
  EXPECT_CONTAINS(workload_error("jobs: [{name: j}]"), "job is missing required field 'tasks'");
  EXPECT_CONTAINS(workload_error(one_task("kinds: []")),
                  "field 'kinds' expects at least one device kind");
}

TEST(WorkloadFileErrors, EmptyOrMisshapedDocuments) {
  EXPECT_CONTAINS(workload_error(""),
                  "w.yaml: the file is empty (it holds no YAML value); expected a map with 'jobs'");
  EXPECT_CONTAINS(workload_error("42"),
                  "w.yaml:1:1: expected a map with 'jobs' at the top level, got '42'");
  EXPECT_CONTAINS(workload_error("- {name: j}\n"), "at the top level, got a list");
  EXPECT_CONTAINS(workload_error("jobs: []\n"), "field 'jobs' expects at least one job");
  EXPECT_CONTAINS(workload_error("jobs: [5]\n"), "w.yaml:1:8: job expects a map, got '5'");
}

TEST(WorkloadFileErrors, UnreadablePathNamesTheFile) {
  EXPECT_CONTAINS(
      input_error_of([] { load_workload_file("/nonexistent/workload.yaml", small_cluster()); }),
      "/nonexistent/workload.yaml: cannot read the file");
}

}  // namespace
}  // namespace hetsched
