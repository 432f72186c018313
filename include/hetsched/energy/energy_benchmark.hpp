// The energy benchmark: a suite of random layered DAGs (the workflow generator's
// scientific workflows) on a small heterogeneous cluster; each DAG is scheduled
// for makespan by the insertion-EFT list schedule at full speed, and DVFS slack
// reclamation then lowers P-states (a) with no makespan increase and (b) within a
// makespan stretch (+5 % by default). Energy saved = 1 − energy after / energy of
// the same schedule at full speed, idle energy of every device included, summed
// over the suite. The energy-aware planner (free to re-place tasks) is measured at
// the same deadline for comparison.
#pragma once

#include <cstdint>
#include <functional>

#include "hetsched/cluster/cluster.hpp"

namespace hetsched {

struct EnergyBenchmarkParams {
  std::uint32_t dags = 20;
  std::uint32_t tasks_per_dag = 60;
  std::uint32_t width = 6;
  double stretch = 0.05;
  std::uint64_t seed = 1;
  std::function<void(std::size_t, std::size_t)> progress;
};

struct EnergyBenchmarkResult {
  std::uint32_t dags = 0;
  std::uint32_t tasks = 0;
  std::uint32_t devices = 0;
  double stretch = 0;
  double baseline_joules = 0;  // the suite at full speed (tasks + idle)
  double baseline_idle_joules = 0;
  double energy_saved_no_stretch = 0;
  double energy_saved_stretch = 0;
  double energy_aware_saved_stretch = 0;  // energy-aware planner at the same deadline
  double max_makespan_increase_no_stretch = 0;
  double max_makespan_increase_stretch = 0;
  double max_makespan_increase_energy_aware = 0;
  double mean_energy_saved_per_dag_stretch = 0;
  std::uint64_t tasks_slowed_no_stretch = 0;
  std::uint64_t tasks_slowed_stretch = 0;
};

// The suite's cluster: 2 × H100, 2 × A100, 2 × V100 (one node each) and a CPU node.
Cluster energy_benchmark_cluster();

EnergyBenchmarkResult run_energy_benchmark(const EnergyBenchmarkParams& params);

}  // namespace hetsched
