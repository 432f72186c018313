// Fault tolerance in the simulator: Young/Daly intervals against their formulas,
// reproducible failure schedules, detection after the heartbeat timeout, restart
// from the last checkpoint with hand-computed times, retries and their limit,
// replication, and the "nothing lost" invariant over many seeded chaotic runs.
#include <gtest/gtest.h>

#include <cmath>

#include "fault_benchmark.hpp"
#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/io/fault_file.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

TEST(CheckpointInterval, YoungAndDalyFollowTheirFormulas) {
  // Young: sqrt(2·60·3600) = 657.27 s.
  EXPECT_NEAR(young_interval_seconds(60, 3600), 657.267, 1e-3);
  // Daly: sqrt(2CM)·(1 + sqrt(C/2M)/3 + (C/2M)/9) − C with C/2M = 1/120.
  const double x = 60.0 / 7200.0;
  EXPECT_NEAR(daly_interval_seconds(60, 3600),
              std::sqrt(2.0 * 60 * 3600) * (1 + std::sqrt(x) / 3 + x / 9) - 60, 1e-9);
  EXPECT_DOUBLE_EQ(daly_interval_seconds(10000, 3600), 3600);  // C >= 2M: τ = M
  // Daly's interval is close to Young's when C << M.
  EXPECT_NEAR(daly_interval_seconds(1, 1e6) / young_interval_seconds(1, 1e6), 1.0, 1e-3);
  EXPECT_DOUBLE_EQ(checkpointed_duration_seconds(100, 30, 2), 100 + 3 * 2);
  EXPECT_DOUBLE_EQ(checkpointed_duration_seconds(90, 30, 2), 90 + 2 * 2);
}

TEST(FailureSchedule, SameSeedSameFailuresAndMeanNearMtbf) {
  const Cluster cluster = default_cluster();
  FailureModel model;
  model.mtbf_hours_override = 1.0;
  model.repair_seconds = 0;
  model.transients_per_device_hour = 2;
  const auto a = generate_failure_schedule(cluster, model, 200 * 3600.0, 7);
  const auto b = generate_failure_schedule(cluster, model, 200 * 3600.0, 7);
  const auto c = generate_failure_schedule(cluster, model, 200 * 3600.0, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::size_t crashes = 0, transients = 0;
  for (const auto& e : a) (e.kind == FailureKind::crash ? crashes : transients) += 1;
  const double expected = 200.0 * double(cluster.device_count());
  EXPECT_NEAR(crashes / expected, 1.0, 0.1);  // ~ 4000 draws: a few percent
  EXPECT_NEAR(transients / (2 * expected), 1.0, 0.1);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end(), [](const auto& x, const auto& y) {
    return x.time_seconds < y.time_seconds;
  }));
}

TEST(FailureModel, BadValuesAreInputErrors) {
  const Cluster cluster = default_cluster();
  FailureModel model;
  model.mtbf_hours_override = 0;
  EXPECT_THROW(model.validate(cluster), InputError);
  model.mtbf_hours_override = -3;
  EXPECT_THROW(model.validate(cluster), InputError);
  CheckpointOptions checkpoint;
  checkpoint.mode = CheckpointMode::fixed;
  checkpoint.fixed_interval_seconds = 0;
  EXPECT_THROW(checkpoint.validate(), InputError);
  FaultOptions options;
  options.explicit_failures.push_back({1, FailureKind::crash, 999, 1, 1});
  EXPECT_THROW(options.validate(cluster), InputError);
}

// One device-only cluster of two identical GPUs; one job of one 1000 s task whose
// checkpoint costs 10 s (10 GB at 1 GB/s).
struct TwoGpus {
  Cluster cluster;
  Workload workload;
  TwoGpus(std::size_t tasks = 1) {
    Node node;
    node.name = "n0";
    cluster.add_node(node, {*find_catalog_part("H100-SXM"), *find_catalog_part("H100-SXM")});
    for (std::size_t i = 0; i < tasks; ++i) {
      Job job;
      job.name = "job" + std::to_string(i);
      Task task;
      task.name = "long";
      task.kernel = KernelClass::dense_matmul;
      task.memory_bytes = 10e9;
      task.cost_seconds = {1000, 1000};
      job.tasks.push_back(task);
      workload.jobs.push_back(job);
    }
  }
  RunReport run(const FaultOptions& faults, std::uint64_t seed = 1) {
    const RooflineModel perf(cluster);
    const auto policy = make_policy("greedy-eft", PolicyOptions{seed});
    Simulator simulator(cluster, workload, perf, *policy,
                        SimulationOptions{.seed = seed, .faults = faults});
    return simulator.run();
  }
};

FaultOptions explicit_only() {
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;
  o.heartbeat = {5, 15};
  o.retry.backoff_seconds = 2;
  o.checkpoint.storage_bandwidth = 1e9;
  return o;
}

TEST(FaultTolerance, NoFailuresChangesNothing) {
  TwoGpus setup;
  FaultOptions o = explicit_only();
  const RunReport r = setup.run(o);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 1000);
  EXPECT_EQ(r.faults->jobs[0].attempts, 1u);
  EXPECT_DOUBLE_EQ(r.faults->goodput(), 1.0);
}

TEST(FaultTolerance, CrashIsDetectedAfterHeartbeatTimeoutAndRetriedFromCheckpoint) {
  TwoGpus setup;
  FaultOptions o = explicit_only();
  o.checkpoint.mode = CheckpointMode::fixed;
  o.checkpoint.fixed_interval_seconds = 300;  // checkpoints after 300, 600, 900 s of work
  // Device 0 (where greedy-eft puts the task: ties go to the lower id) crashes at
  // t = 700: the attempt wrote checkpoints at 310 and 620 (work 300 + 10, twice),
  // so 600 s of work are saved. Last heartbeat at 700, detected at 715; retry after
  // a 2 s backoff at 717 on device 1: restart 10 s, 400 s of work with one
  // checkpoint (after 300 s): 10 + 400 + 10 = 420 s → finishes at 1137.
  o.explicit_failures.push_back({700, FailureKind::crash, 0, 1e9, 1});
  const RunReport r = setup.run(o);
  ASSERT_TRUE(r.faults);
  EXPECT_EQ(r.faults->crashes, 1u);
  EXPECT_EQ(r.faults->detections, 1u);
  EXPECT_DOUBLE_EQ(r.faults->detection_delay_seconds, 15);
  EXPECT_NEAR(r.makespan_seconds, 1137, 1e-9);
  const FaultJobRecord& job = r.faults->jobs[0];
  EXPECT_EQ(job.attempts, 2u);
  EXPECT_EQ(job.failures, 1u);
  EXPECT_EQ(job.checkpoints, 3u);
  EXPECT_NEAR(job.recovery_seconds, 17, 1e-9);  // lost at 700, restarted at 717
  EXPECT_TRUE(job.failure_reason.empty());
  EXPECT_NEAR(r.faults->useful_device_seconds, 1000, 1e-9);
  EXPECT_NEAR(r.faults->lost_device_seconds, 700 - 620, 1e-9);
  EXPECT_EQ(r.schedule.back().device, 1u);
}

// The same crash on the report's timeline: the two checkpoints written before it (at 310
// and 620 on device 0), the crash (700, device 0), the retry's start (717, device 1) and its
// one checkpoint (717 + 10 s restart + 300 s work + 10 s writing = 1037), in time order.
TEST(FaultTolerance, TheTimelineMarksCheckpointsTheCrashAndTheRestart) {
  TwoGpus setup;
  FaultOptions o = explicit_only();
  o.checkpoint.mode = CheckpointMode::fixed;
  o.checkpoint.fixed_interval_seconds = 300;
  o.explicit_failures.push_back({700, FailureKind::crash, 0, 1e9, 1});
  const RunReport r = setup.run(o);
  struct Expected {
    double seconds;
    DeviceId device;
    TimelineMarkKind kind;
  };
  const std::vector<Expected> expected{{310, 0, TimelineMarkKind::checkpoint},
                                       {620, 0, TimelineMarkKind::checkpoint},
                                       {700, 0, TimelineMarkKind::failure},
                                       {717, 1, TimelineMarkKind::restart},
                                       {1037, 1, TimelineMarkKind::checkpoint}};
  ASSERT_EQ(r.marks.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(r.marks[i].seconds, expected[i].seconds, 1e-9) << i;
    EXPECT_EQ(r.marks[i].device, expected[i].device) << i;
    EXPECT_EQ(r.marks[i].kind, expected[i].kind) << i;
    EXPECT_EQ(r.marks[i].task, 0u) << i;
  }
}

TEST(FaultTolerance, TransientFaultsExhaustRetriesWithAReason) {
  TwoGpus setup;
  FaultOptions o = explicit_only();
  o.retry.max_attempts = 2;
  o.explicit_failures.push_back({100, FailureKind::transient, 0, 0, 1});
  // The retry starts at 102 (backoff 2 s) on device 0 again (free first); fail it too.
  o.explicit_failures.push_back({500, FailureKind::transient, 0, 0, 1});
  o.explicit_failures.push_back({500, FailureKind::transient, 1, 0, 1});
  const RunReport r = setup.run(o);
  EXPECT_EQ(r.faults->jobs[0].failures, 2u);
  EXPECT_NE(r.faults->jobs[0].failure_reason.find("retries exhausted"), std::string::npos);
  EXPECT_EQ(r.faults->lost_tasks, 0u);
  EXPECT_EQ(r.tasks_completed, 0u);
}

TEST(FaultTolerance, JobPastItsDeadlineEndsWithThatReason) {
  TwoGpus setup;
  setup.workload.jobs[0].deadline_seconds = 110;
  FaultOptions o = explicit_only();
  o.explicit_failures.push_back({100, FailureKind::crash, 0, 1e9, 1});  // noticed at 115
  const RunReport r = setup.run(o);
  EXPECT_NE(r.faults->jobs[0].failure_reason.find("deadline passed"), std::string::npos)
      << r.faults->jobs[0].failure_reason;
  EXPECT_EQ(r.faults->jobs[0].tasks_cancelled, 1u);
  EXPECT_EQ(r.faults->lost_tasks, 0u);
  // Without the deadline the same crash is retried and the job completes.
  setup.workload.jobs[0].deadline_seconds.reset();
  const RunReport retried = setup.run(o);
  EXPECT_TRUE(retried.faults->jobs[0].failure_reason.empty());
  EXPECT_EQ(retried.tasks_completed, 1u);
}

TEST(FaultTolerance, ReplicaCarriesTheTaskThroughACrash) {
  TwoGpus setup;
  FaultOptions o = explicit_only();
  o.replicas = 2;
  o.explicit_failures.push_back({400, FailureKind::crash, 0, 1e9, 1});
  const RunReport r = setup.run(o);
  EXPECT_EQ(r.faults->replicas_started, 1u);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 1000);  // the copy on device 1 finishes on time
  EXPECT_EQ(r.faults->retries, 0u);
  EXPECT_EQ(r.tasks_completed, 1u);
  EXPECT_NEAR(r.faults->useful_device_seconds, 1000, 1e-9);
  EXPECT_NEAR(r.faults->lost_device_seconds, 400, 1e-9);
}

TEST(FaultTolerance, PartitionLosesRunningWorkAndNodeRejoins) {
  TwoGpus setup(2);
  FaultOptions o = explicit_only();
  o.explicit_failures.push_back({100, FailureKind::partition, 0, 50, 1});
  const RunReport r = setup.run(o);
  EXPECT_EQ(r.faults->partitions, 1u);
  EXPECT_EQ(r.tasks_completed, 2u);
  // Both lost at 100, detected at 115, retried at 117 when the node is still out;
  // it rejoins at 150 and both restart from scratch: 150 + 1000.
  EXPECT_NEAR(r.makespan_seconds, 1150, 1e-9);
}

TEST(FaultTolerance, NothingIsLostOverManySeededChaoticRuns) {
  FaultBenchmarkParams p;
  p.runs = 8;
  p.seeds_per_cell = 1;
  p.mtbf_hours = {};
  p.task_hours = 0.5;
  p.sweep_mtbf_hours = 1;
  const FaultBenchmarkResult r = run_fault_benchmark(p);
  EXPECT_EQ(r.runs, 8u);
  EXPECT_EQ(r.lost_tasks, 0u);
  EXPECT_GT(r.failures_injected, 100u);
  EXPECT_GT(r.retries, 10u);
  EXPECT_GT(r.jobs_failed_with_reason, 0u);
}

TEST(FaultTolerance, SameSeedGivesTheSameReport) {
  const Cluster cluster = default_cluster();
  const Workload workload = default_workload(3);
  const RooflineModel perf(cluster);
  FaultOptions o;
  o.enabled = true;
  o.model.mtbf_hours_override = 0.1;
  o.model.transients_per_device_hour = 20;
  o.checkpoint.mode = CheckpointMode::daly;
  std::string first;
  for (int i = 0; i < 2; ++i) {
    const auto policy = make_policy("greedy-eft", PolicyOptions{3});
    Simulator simulator(cluster, workload, perf, *policy,
                        SimulationOptions{.seed = 3, .faults = o});
    const RunReport r = simulator.run();
    const std::string text = report_to_json(r, cluster, simulator.graph()).dump();
    if (i == 0)
      first = text;
    else
      EXPECT_EQ(first, text);
  }
  EXPECT_NE(first.find("\"faults\""), std::string::npos);
}

}  // namespace
}  // namespace hetsched

namespace hetsched {
namespace {

TEST(FaultFile, ParsesAListAndReportsBadInputWithPositions) {
  const Cluster cluster = default_cluster();
  const std::string device = cluster.device(3).name;
  const FaultOptions o = parse_fault_yaml(
      "failures:\n  - {time: 10, kind: crash, device: \"" + device +
          "\", duration: 60}\n  - {time: 5, kind: partition, node: " + cluster.node(1).name +
          "}\ncheckpoint: {mode: daly}\nretry: {max_attempts: 3}\n",
      "f.yaml", cluster);
  ASSERT_EQ(o.explicit_failures.size(), 2u);
  EXPECT_EQ(o.explicit_failures[0].target, 3u);
  EXPECT_EQ(o.explicit_failures[1].kind, FailureKind::partition);
  EXPECT_EQ(o.explicit_failures[1].target, 1u);
  EXPECT_EQ(o.checkpoint.mode, CheckpointMode::daly);
  EXPECT_EQ(o.retry.max_attempts, 3u);

  // A device name with a typo: the error names the line, column and closest devices.
  std::string misspelt = device;
  misspelt[misspelt.size() - 3] = 'x';
  try {
    parse_fault_yaml("failures:\n  - {time: 1, kind: crash, device: \"" + misspelt + "\"}\n",
                     "f.yaml", cluster);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(std::string(e.what()).find(device), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_fault_yaml("model: {mtbf_hours: 0}\n", "f.yaml", cluster), InputError);
  EXPECT_THROW(parse_fault_yaml("model: {mtbf_hours: -1}\n", "f.yaml", cluster), InputError);
  EXPECT_THROW(parse_fault_yaml("checkpoint: {interval_seconds: 0}\n", "f.yaml", cluster),
               InputError);
  EXPECT_THROW(parse_fault_yaml("retry: {max_attemps: 3}\n", "f.yaml", cluster), InputError);
}

}  // namespace
}  // namespace hetsched
