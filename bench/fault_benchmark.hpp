// The fault-tolerance benchmark (`hetsched bench faults`):
//  1. Many seeded runs of the default workload on the default cluster under random
//     crashes, transients, stragglers and partitions (MTBF of minutes, so a run of
//     a minute sees dozens): counts tasks lost (must be 0) and jobs ended with a reason.
//  2. Goodput (useful / busy device-seconds) and makespan of long tasks (8 h of
//     work each, 4 of them on 8 H100s) against the device MTBF, with no
//     checkpointing, Daly-interval checkpointing and 2-way replication.
//  3. Daly's interval against the best of a sweep of fixed intervals (mean goodput
//     over the same seeded failures): the ratio of goodputs, goal >= 0.95.
//  4. Failure prediction from telemetry (failure_predictor.hpp) on the long tasks at
//     the sweep's MTBF, without and with checkpoints: its precision, recall and
//     lead time, and the device time lost with and without it on the same failures.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetsched/fault/failure_predictor.hpp"
#include "hetsched/sim/sim_run_sink.hpp"

namespace hetsched {

struct FaultBenchmarkParams {
  std::size_t runs = 1000;          // part 1
  std::size_t seeds_per_cell = 32;  // parts 2 and 3
  std::vector<double> mtbf_hours{1, 10, 100, 1000};
  double task_hours = 8;
  std::size_t long_tasks = 4;
  double state_bytes = 80e9;         // checkpoint state of a long task
  double storage_bandwidth = 0.5e9;  // bytes/s: 160 s per checkpoint
  double sweep_mtbf_hours = 10;
  std::uint64_t seed = 1;
  PredictorOptions predictor;  // part 4 (enabled there)
  std::function<void(std::size_t, std::size_t)> progress;
  // Part 2's first-seed runs of each mode at the sweep's MTBF (the first MTBF when the
  // sweep's is not listed) are handed here.
  SimRunSink report_runs;
};

struct GoodputRow {
  double mtbf_hours = 0;
  std::string mode;  // none, daly, replication-2, replication-2+daly
  double goodput = 0;
  double makespan_hours = 0;      // mean over the seeds whose jobs all completed
  double completed_fraction = 0;  // of the long jobs
  double interval_seconds = 0;    // daly: the interval used
};

struct SweepPoint {
  double interval_seconds = 0;
  double goodput = 0;
};

struct PredictionRow {
  std::string checkpoint;  // none, daly
  std::uint64_t alarms = 0, true_alarms = 0, crashes = 0, predicted_crashes = 0;
  double precision = 0, recall = 0, mean_lead_seconds = 0;
  // Device-hours lost (work since the last checkpoint), mean per run.
  double lost_hours_without = 0, lost_hours_with = 0;
  double work_saved_hours = 0;       // lost without − lost with
  double in_flight_saved_hours = 0;  // in-flight work the drains kept (true alarms)
  double goodput_without = 0, goodput_with = 0;
  double makespan_hours_without = 0, makespan_hours_with = 0;
};

struct FaultBenchmarkResult {
  std::size_t runs = 0;
  std::uint64_t tasks = 0;
  std::uint64_t lost_tasks = 0;
  std::uint64_t jobs = 0;
  std::uint64_t jobs_failed_with_reason = 0;
  std::uint64_t failures_injected = 0;
  std::uint64_t retries = 0;
  std::vector<GoodputRow> goodput;
  double daly_interval_seconds = 0;
  double daly_goodput = 0;
  std::vector<SweepPoint> sweep;
  double best_interval_seconds = 0;
  double best_goodput = 0;
  double daly_interval_vs_best = 0;  // daly goodput / best goodput
  std::vector<PredictionRow> prediction;
};

FaultBenchmarkResult run_fault_benchmark(const FaultBenchmarkParams& params);

// The MTBF whose runs go to report_runs: the sweep's when the table lists it, else the first.
double report_mtbf_hours(const FaultBenchmarkParams& params);

}  // namespace hetsched
