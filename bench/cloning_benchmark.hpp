// The task-cloning benchmark: a bag of independent fp16 matmul tasks (four jobs of
// 32, about a second each on an H100) on the partitioning benchmark's cluster (2 ×
// H100, A100, V100, TPU v5e) under seeded stragglers only (each device slowed 4×
// for 20 s, 36 times per device-hour, so a fifth of the time; no crashes), simulated with
// greedy-eft with and without cloning (CloneOptions, threshold 1.5 × predicted time). Reported:
// mean makespan with and without over the seeds, their ratio, and what the clones
// cost (device-seconds of the cancelled copies against all busy device-seconds,
// and their energy).
#pragma once

#include <cstdint>

namespace hetsched {

struct CloningBenchmarkResult {
  std::uint32_t runs = 0;
  std::uint32_t tasks = 0;
  double threshold = 0;
  double mean_makespan_without = 0;
  double mean_makespan_with = 0;
  double makespan_speedup = 0;   // without / with
  std::uint64_t stragglers = 0;  // over all runs with cloning
  std::uint64_t clones_started = 0;
  std::uint64_t clones_won = 0;
  double cancelled_device_seconds_fraction = 0;  // of all busy device-seconds, with cloning
  double cancelled_joules = 0;                   // summed over the runs
};

CloningBenchmarkResult run_cloning_benchmark(std::uint32_t runs = 10, double threshold = 1.5);

}  // namespace hetsched
