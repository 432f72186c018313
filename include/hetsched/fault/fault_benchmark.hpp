// The fault-tolerance benchmark (`hetsched bench faults`):
//  1. Many seeded runs of the default workload on the default cluster under random
//     crashes, transients, stragglers and partitions (MTBF of minutes, so a run of
//     a minute sees dozens): counts tasks lost (must be 0) and jobs ended with a reason.
//  2. Goodput (useful / busy device-seconds) and makespan of long tasks (8 h of
//     work each, 4 of them on 8 H100s) against the device MTBF, with no
//     checkpointing, Daly-interval checkpointing and 2-way replication.
//  3. Daly's interval against the best of a sweep of fixed intervals (mean goodput
//     over the same seeded failures): the ratio of goodputs, goal >= 0.95.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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
  std::function<void(std::size_t, std::size_t)> progress;
};

struct GoodputRow {
  double mtbf_hours = 0;
  std::string mode;  // none, daly, replication-2
  double goodput = 0;
  double makespan_hours = 0;      // mean over the seeds whose jobs all completed
  double completed_fraction = 0;  // of the long jobs
  double interval_seconds = 0;    // daly: the interval used
};

struct SweepPoint {
  double interval_seconds = 0;
  double goodput = 0;
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
};

FaultBenchmarkResult run_fault_benchmark(const FaultBenchmarkParams& params);

}  // namespace hetsched
