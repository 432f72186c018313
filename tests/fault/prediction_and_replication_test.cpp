// Failure prediction from telemetry and replication with checkpoints: the telemetry
// model's symptoms before a crash and its bursts, the CUSUM/EWMA predictor on
// series with known answers, the predictor in the simulator (scored against the
// crashes, draining devices ahead of them, saving work on the same failures), and
// replicas that avoid their siblings' failure domain, checkpoint, and are restarted
// from the newest checkpoint when a copy is lost.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/fault/failure_predictor.hpp"
#include "hetsched/io/fault_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

TelemetryOptions quiet_telemetry() {
  TelemetryOptions t;
  t.bursts_per_device_hour = 0;
  t.precursor_fraction = 1;
  return t;
}

TEST(Telemetry, ErrorsAndHeatRiseOnlyBeforeACrash) {
  TelemetryModel model(2, quiet_telemetry(), 7);
  // Device 0 crashes at 100 000 s; device 1 never. Over the last 1800 s the mean
  // error rate of device 0 is (1 + 60) / 2 = 30.5 per hour: ~15 errors in the lead.
  double healthy_errors = 0, degrading_errors = 0, heat = 0;
  for (double t = 60; t <= 100000; t += 60) {
    const TelemetrySample a = model.sample(0, t, 300, 55, 100000);
    const TelemetrySample b = model.sample(1, t, 300, 55, kNever);
    if (t > 100000 - 1800) {
      degrading_errors += a.correctable_errors;
      heat += a.celsius - 55;
    } else {
      healthy_errors += a.correctable_errors;
    }
    healthy_errors += b.correctable_errors;
  }
  const double healthy_hours = (100000 - 1800) / 3600.0 + 100000 / 3600.0;
  // The base rate: ~55 expected errors, so ±0.45 is about ±3.3 standard deviations.
  EXPECT_NEAR(healthy_errors / healthy_hours, 1.0, 0.45);
  EXPECT_GT(degrading_errors, 5);
  EXPECT_LT(degrading_errors, 30);
  EXPECT_GT(heat / 30, 2.0);  // mean extra heat over the ramp: 3 °C
  // Same seed, same samples.
  TelemetryModel again(2, quiet_telemetry(), 7), other(2, quiet_telemetry(), 8);
  const TelemetrySample x = again.sample(0, 60, 300, 55, kNever);
  TelemetryModel first(2, quiet_telemetry(), 7);
  EXPECT_EQ(first.sample(0, 60, 300, 55, kNever).celsius, x.celsius);
  EXPECT_NE(other.sample(0, 60, 300, 55, kNever).celsius, x.celsius);
}

TEST(Telemetry, PoissonCountHasItsMean) {
  Rng rng(3);
  for (double mean : {0.05, 2.0, 100.0}) {
    double sum = 0;
    for (int i = 0; i < 20000; ++i) sum += poisson_count(rng, mean);
    EXPECT_NEAR(sum / 20000, mean, 0.05 * mean + 0.01) << mean;
  }
}

TEST(FailurePredictor, CusumFollowsPageWithLucasReference) {
  PredictorOptions o;
  o.require_both = false;
  o.temperature_residual_celsius = 100;  // errors alone
  o.ecc_reference_per_hour = 1;
  o.ecc_shift_per_hour = 20;
  o.ecc_cusum_threshold = 4;
  FailurePredictor p(1, o);
  // k = (20 − 1) / ln 20 per hour = 6.342 / h, 0.1057 per 60 s sample.
  const double k = 19.0 / std::log(20.0) / 60.0;
  TelemetrySample s{50, 300, 2};
  EXPECT_FALSE(p.observe(0, s, 50));
  EXPECT_NEAR(p.ecc_statistic(0), 2 - k, 1e-12);
  s.correctable_errors = 0;
  EXPECT_FALSE(p.observe(0, s, 50));
  EXPECT_NEAR(p.ecc_statistic(0), 2 - 2 * k, 1e-12);
  s.correctable_errors = 3;
  EXPECT_TRUE(p.observe(0, s, 50));  // 5 − 3k ≥ 4
  p.reset(0);
  EXPECT_EQ(p.ecc_statistic(0), 0);
}

TEST(FailurePredictor, BothSignalsMustAgreeByDefault) {
  PredictorOptions o;
  FailurePredictor p(1, o);
  // Errors far above the reference but no heat: no alarm; then heat too: alarm.
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(p.observe(0, TelemetrySample{60, 300, 5}, 60));
  EXPECT_GE(p.ecc_statistic(0), o.ecc_cusum_threshold);
  bool alarmed = false;
  for (int i = 0; i < 10 && !alarmed; ++i) alarmed = p.observe(0, TelemetrySample{65, 300, 5}, 60);
  EXPECT_TRUE(alarmed);
  EXPECT_GE(p.temperature_statistic(0), o.temperature_residual_celsius);
}

TEST(FailurePredictor, BadOptionsAreInputErrors) {
  PredictorOptions o;
  o.ecc_shift_per_hour = o.ecc_reference_per_hour;
  EXPECT_THROW(o.validate(), InputError);
  o = PredictorOptions{};
  o.telemetry.sample_seconds = 0;
  EXPECT_THROW(o.validate(), InputError);
  o = PredictorOptions{};
  o.temperature_ewma_weight = 0;
  EXPECT_THROW(o.validate(), InputError);
}

// Eight H100s, four long tasks; crashes drawn with an MTBF of 10 h.
struct LongTasks {
  Cluster cluster;
  Workload workload;
  explicit LongTasks(std::size_t nodes = 1, std::size_t per_node = 8, std::size_t tasks = 4,
                     double seconds = 4 * 3600.0) {
    for (std::size_t n = 0; n < nodes; ++n) {
      Node node;
      node.name = "n" + std::to_string(n);
      cluster.add_node(node, std::vector<DeviceSpec>(per_node, *find_catalog_part("H100-SXM")));
    }
    for (std::size_t i = 0; i < tasks; ++i) {
      Job job;
      job.name = "job" + std::to_string(i);
      Task task;
      task.name = "long";
      task.kernel = KernelClass::dense_matmul;
      task.memory_bytes = 10e9;
      task.cost_seconds.assign(cluster.device_count(), seconds);
      job.tasks.push_back(task);
      workload.jobs.push_back(job);
    }
  }
  RunReport run(const FaultOptions& faults, std::uint64_t seed = 1) {
    const RooflineModel perf(cluster);
    const auto policy = make_policy("greedy-eft", PolicyOptions{seed});
    Simulator simulator(
        cluster, workload, perf, *policy,
        SimulationOptions{.seed = seed, .record_schedule = false, .faults = faults});
    return simulator.run();
  }
};

FaultOptions seeded_crashes(double mtbf_hours) {
  FaultOptions o;
  o.enabled = true;
  o.model.mtbf_hours_override = mtbf_hours;
  o.model.repair_seconds = 600;
  o.retry.max_attempts = 1000;
  o.checkpoint.storage_bandwidth = 1e9;
  return o;
}

TEST(FailurePrediction, AlarmsPrecedeCrashesAndSaveWorkOnTheSameFailures) {
  LongTasks setup;
  FaultOptions without = seeded_crashes(5);
  FaultOptions with = without;
  with.predictor.enabled = true;
  with.predictor.telemetry.precursor_fraction = 1;  // every crash degrades first
  std::uint64_t alarms = 0, true_alarms = 0, crashes = 0, predicted = 0, migrations = 0;
  double lead = 0, lost_without = 0, lost_with = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const RunReport a = setup.run(without, seed);
    const RunReport b = setup.run(with, seed);
    // The same seeded failures; the runs end at different times, so they see
    // different numbers of them.
    EXPECT_EQ(b.faults->lost_tasks, 0u);
    EXPECT_EQ(b.tasks_completed, 4u);
    alarms += b.faults->alarms;
    true_alarms += b.faults->true_alarms;
    crashes += b.faults->crashes;
    predicted += b.faults->predicted_crashes;
    lead += b.faults->lead_seconds;
    for (const FaultJobRecord& j : b.faults->jobs) migrations += j.migrations;
    lost_without += a.faults->lost_device_seconds;
    lost_with += b.faults->lost_device_seconds;
  }
  ASSERT_GT(crashes, 10u);
  EXPECT_GT(double(true_alarms) / double(alarms), 0.7);  // precision
  EXPECT_GT(double(predicted) / double(crashes), 0.7);   // recall
  const double mean_lead = lead / double(predicted);
  EXPECT_GT(mean_lead, 60);    // alarms come ahead of the crash ...
  EXPECT_LE(mean_lead, 1800);  // ... within the degradation lead
  EXPECT_GT(migrations, 0u);
  EXPECT_LT(lost_with, 0.5 * lost_without);  // no checkpoints: drains keep in-flight work
}

TEST(FailurePrediction, BurstsOnHealthyDevicesAreFalseAlarmsAndDevicesReturn) {
  LongTasks setup(1, 8, 2, 3600);
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;  // no crashes at all
  o.predictor.enabled = true;
  o.predictor.telemetry.bursts_per_device_hour = 2;
  o.predictor.inspection_seconds = 300;
  const RunReport r = setup.run(o);
  EXPECT_GT(r.faults->alarms, 0u);
  EXPECT_EQ(r.faults->true_alarms, 0u);
  EXPECT_EQ(r.faults->precision(), 0.0);
  EXPECT_EQ(r.tasks_completed, 2u);
  EXPECT_EQ(r.faults->lost_tasks, 0u);
  // Without bursts a healthy cluster raises no alarm.
  o.predictor.telemetry.bursts_per_device_hour = 0;
  EXPECT_EQ(setup.run(o).faults->alarms, 0u);
}

TEST(Replication, ReplicaAvoidsItsSiblingsNodeAndSurvivesAPartition) {
  // Two nodes of two GPUs, one task. Node 0 (where the primary runs) is cut off at
  // 400 s for good. With replicas on another node the copy there finishes at 1000 s;
  // with any device allowed, the replica sits on node 0 too and both are lost.
  LongTasks setup(2, 2, 1, 1000);
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;
  o.replicas = 2;
  o.explicit_failures.push_back({400, FailureKind::partition, 0, 1e9, 1});
  const RunReport apart = setup.run(o);
  EXPECT_DOUBLE_EQ(apart.makespan_seconds, 1000);
  EXPECT_EQ(apart.faults->retries, 0u);
  o.replica_domain = ReplicaDomain::any;
  const RunReport together = setup.run(o);
  EXPECT_GT(together.makespan_seconds, 1400);
  EXPECT_EQ(together.faults->retries, 1u);
  EXPECT_EQ(together.tasks_completed, 1u);
}

TEST(Replication, LostCopyIsRestartedFromTheNewestCheckpoint) {
  // Three GPUs, one 1000 s task, 10 s checkpoints every 300 s of work (fixed).
  // Copies on devices 0 and 1; device 1 crashes at 700 s. Both copies wrote
  // checkpoints at 310 and 620 s (600 s of work saved), so a third copy starts on
  // device 2 at 700 s from 60 %; device 0's copy finishes first at 1030 s (1000 s of
  // work and 3 checkpoints).
  // Then device 0 crashes at 800 s: the copy on device 2 (restart 10 s, 400 s of
  // work, one checkpoint) finishes at 700 + 10 + 400 + 10 = 1120 s.
  LongTasks setup(1, 3, 1, 1000);
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;
  o.replicas = 2;
  o.checkpoint.mode = CheckpointMode::fixed;
  o.checkpoint.fixed_interval_seconds = 300;
  o.checkpoint.storage_bandwidth = 1e9;
  o.explicit_failures.push_back({700, FailureKind::crash, 1, 1e9, 1});
  RunReport r = setup.run(o);
  EXPECT_EQ(r.faults->replicas_started, 2u);
  EXPECT_NEAR(r.makespan_seconds, 1030, 1e-9);
  o.explicit_failures.push_back({800, FailureKind::crash, 0, 1e9, 1});
  r = setup.run(o);
  EXPECT_NEAR(r.makespan_seconds, 1120, 1e-9);
  EXPECT_EQ(r.faults->retries, 0u);
  EXPECT_NEAR(r.faults->useful_device_seconds, 1000, 1e-9);
  // Every second the copies used is accounted for once.
  const double used = 700 + 800 + (1120 - 700);
  EXPECT_NEAR(r.faults->busy_device_seconds(), used, 1e-6);
  // Without restarting lost copies the task still completes, later or equal.
  o.respawn_replicas = false;
  EXPECT_GE(setup.run(o).makespan_seconds, 1120);
}

TEST(FaultFile, ReadsPredictorTelemetryAndReplicaDomain) {
  LongTasks setup(1, 2, 1, 10);
  const FaultOptions o = parse_fault_yaml(
      "predictor: {ecc_shift_per_hour: 30, inspection_seconds: 120, require_both: false}\n"
      "telemetry: {sample_seconds: 30, bursts_per_device_hour: 0.5}\n"
      "replicas: 2\nreplica_domain: rack\nrespawn_replicas: false\n",
      "f.yaml", setup.cluster);
  EXPECT_TRUE(o.predictor.enabled);
  EXPECT_EQ(o.predictor.ecc_shift_per_hour, 30);
  EXPECT_FALSE(o.predictor.require_both);
  EXPECT_EQ(o.predictor.telemetry.sample_seconds, 30);
  EXPECT_EQ(o.replica_domain, ReplicaDomain::rack);
  EXPECT_FALSE(o.respawn_replicas);
  EXPECT_THROW(parse_fault_yaml("replica_domain: switch\n", "f.yaml", setup.cluster), InputError);
  EXPECT_THROW(parse_fault_yaml("predictor: {ecc_shift_per_hour: 0.5}\n", "f.yaml", setup.cluster),
               InputError);
  EXPECT_THROW(parse_fault_yaml("telemetry: {sample_seconds: 0}\n", "f.yaml", setup.cluster),
               InputError);
}

}  // namespace
}  // namespace hetsched
