// The energy benchmark: a suite of random layered DAGs (the workflow generator's
// scientific workflows) on a small heterogeneous cluster; each DAG is scheduled
// for makespan by the insertion-EFT list schedule at full speed, and DVFS slack
// reclamation then lowers P-states (a) with no makespan increase and (b) within a
// makespan stretch (+5 % by default). Energy saved = 1 − energy after / energy of
// the same schedule at full speed, idle energy of every device included, summed
// over the suite. The energy-aware planner (free to re-place tasks) is measured at
// the same deadline for comparison.
//
// The headline figures (energy_saved_no_stretch, energy_saved_stretch) are those of
// minimise_energy_within: the least energy among slack reclamation, stepwise slack
// reclamation and energy-aware re-mapping within the same makespan bound. Slack
// reclamation alone is reported beside them, and everything is also measured
// against HEFT (heft_plan) at full speed. The breakdown says where the energy goes:
// per device, time busy, dynamic energy (above idle), the idle floor while busy and
// idle energy while not busy; per kernel class, the dynamic energy of the baseline.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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

// Where the energy of a set of schedules goes on one device (summed over the suite).
struct DeviceEnergyBreakdown {
  std::string device;  // "H100-SXM#0"
  double busy_seconds = 0;
  double dynamic_joules = 0;     // above idle power, while running tasks
  double busy_floor_joules = 0;  // idle power while running tasks
  double idle_joules = 0;        // idle power while not running tasks, up to the makespan
  std::uint64_t tasks = 0;
  std::uint64_t tasks_below_full_speed = 0;
  double total_joules() const { return dynamic_joules + busy_floor_joules + idle_joules; }
};

struct KernelEnergyBreakdown {
  std::string kernel;
  std::uint64_t tasks = 0;
  double dynamic_joules = 0;         // baseline, at full speed
  double memory_bound_fraction = 0;  // of its tasks, memory-bound on their baseline device
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
  // Slack reclamation alone (the headline figures take the best method).
  double slack_reclamation_saved_no_stretch = 0;
  double slack_reclamation_saved_stretch = 0;
  std::uint64_t tasks_moved_no_stretch = 0;  // by re-mapping, in the winning plans
  std::uint64_t tasks_moved_stretch = 0;
  // Against HEFT at full speed (energy and makespan of the suite's HEFT schedules).
  double heft_joules = 0;
  double energy_saved_vs_heft_no_stretch = 0;
  double energy_saved_vs_heft_stretch = 0;
  double max_makespan_vs_heft_no_stretch = 0;  // max over DAGs of makespan / HEFT's − 1
  double max_makespan_vs_heft_stretch = 0;
  // Ceiling of DVFS alone: every task of the baseline at its slowest P-state, no bound.
  double dvfs_ceiling_saved = 0;
  // Breakdowns: the baseline at full speed and the best plans at +stretch.
  std::vector<DeviceEnergyBreakdown> baseline_devices, stretch_devices;
  std::vector<KernelEnergyBreakdown> baseline_kernels;
};

// The suite's cluster: 2 × H100, 2 × A100, 2 × V100 (one node each) and a CPU node.
Cluster energy_benchmark_cluster();

EnergyBenchmarkResult run_energy_benchmark(const EnergyBenchmarkParams& params);

}  // namespace hetsched
