// The energy benchmark: the energy a plan saves against the same schedule at full
// speed, (a) with no makespan increase and (b) within a makespan stretch (+5 % by
// default), summed over a suite of DAGs.
//
// Suites. `random_dag` (the default) is the random-DAG suite of the DAG-scheduling
// benchmark (`hetsched bench dag`): Topcuoglu et al.'s generator over the same grid
// (v ∈ {20, 50, 100, 300, 1000}, CCR ∈ {0.1, 0.5, 1, 5, 10}, β ∈ {0.1, 0.5, 1, 2},
// α ∈ {0.5, 1, 2}, 2 repetitions, 4–64 devices, the same seeded draws, so graph i
// is bench dag's graph i), every k-th graph of its 600 taken so that `dags` remain.
// Its devices are abstract (a random cost per task and device). By default the DAGs
// run where bench dag simulates them, uniform_cost_cluster: identical EPYC-9654
// sockets (idle 100 W, peak 360 W, the catalog's P-states) on one node whose link
// moves a byte per second, so power differs between devices only through the task
// costs. With `mixed_devices` device j instead gets the power figures of H100-SXM,
// A100-80GB, V100, EPYC-9654 in turn — the generator's costs do not follow those
// parts' speeds, so there a low-power part is as fast on average as a high-power one
// (a variant that flatters re-mapping; reported, not the headline). Costs scale
// with the clock. `workflow` is the earlier suite: random
// layered scientific workflows (the workflow generator) on 2×H100, 2×A100, 2×V100
// and an EPYC-9654, times and watts from the roofline model.
//
// Baseline: the insertion-EFT list schedule (HEFT's rank and insertion rule) at full
// speed, under the same power model as the plans. With `release_unused_devices`
// (the default) a device that runs none of a DAG's tasks is charged nothing, in the
// baseline and in the plans alike (JobEnergyModel::set_release_unused_devices); with
// `sleep_idle_gaps` (the default) every idle gap of a used device long enough to
// suspend and resume (2 × 30 s) is spent in suspend-to-RAM at 10 % of idle power
// when that is cheaper, again in the baseline and the plans alike — so what the plans
// save is not idle power the baseline would have saved by powering devices down.
//
// Plans. The headline figures are the energy-aware planner's (energy_aware_planner:
// the least energy among DVFS slack reclamation, re-mapping of the baseline for
// energy plus DVFS, consolidation onto fewer devices plus DVFS, and an energy-first
// list schedule) with the deadline = baseline makespan × (1 + stretch). The
// re-mapping of the baseline alone (minimise_energy_within) and slack reclamation
// alone are reported beside them, and everything against HEFT at full speed too.
//
// Simulation (`simulate`, on by default): the baseline and both plans are run in the
// discrete-event simulator (the plan replayed: devices, P-states and order), the
// makespan increase is measured on the simulated runs and the energy of each
// simulated run is evaluated under the same power model.
//
// The breakdown says where the energy goes, per device kind: time busy, dynamic
// energy (above idle), the idle floor while busy, idle energy while held but not
// busy, and the device-seconds held (used devices × makespan).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/sim/sim_run_sink.hpp"

namespace hetsched {

enum class EnergySuite { random_dag, workflow };

struct EnergyBenchmarkParams {
  EnergySuite suite = EnergySuite::random_dag;
  std::uint32_t dags = 0;             // 0: the suite's default (random_dag: 100; workflow: 20)
  std::uint32_t max_graph_tasks = 0;  // random_dag: > 0 drops the chosen graphs larger than this
  std::uint32_t tasks_per_dag = 60;   // workflow suite
  std::uint32_t width = 6;            // workflow suite
  double stretch = 0.05;
  std::uint64_t seed = 1;
  bool mixed_devices = false;  // random_dag: catalog parts in turn instead of uniform CPUs
  bool release_unused_devices = true;
  bool sleep_idle_gaps = true;  // idle gaps asleep when cheaper (suspend_to_ram_sleep_state)
  bool simulate = true;
  std::function<void(std::size_t, std::size_t)> progress;
  // With `simulate`: the first DAG's simulated runs (the full-speed baseline and the plans
  // without and with the stretch) are handed here.
  SimRunSink report_runs;
};

// Where the energy of a set of schedules goes on one device kind (summed over the suite).
struct DeviceEnergyBreakdown {
  std::string device;  // catalog model, e.g. "H100-SXM"
  double busy_seconds = 0;
  double held_seconds = 0;       // makespan × devices of this kind charged
  double dynamic_joules = 0;     // above idle power, while running tasks
  double busy_floor_joules = 0;  // idle power while running tasks
  double idle_joules = 0;        // idle power while held but not running tasks
  std::uint64_t devices_used = 0;
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
  std::string suite;
  std::uint32_t dags = 0;
  std::uint32_t tasks = 0;
  std::uint32_t devices = 0;  // most devices of a DAG's cluster
  bool mixed_devices = false;
  double stretch = 0;
  bool release_unused_devices = true;
  bool sleep_idle_gaps = true;
  double baseline_joules = 0;  // the suite at full speed (tasks + idle)
  double baseline_idle_joules = 0;
  // Headline: the energy-aware planner within the baseline's makespan (× 1 + stretch).
  double energy_saved_no_stretch = 0;
  double energy_saved_stretch = 0;
  double max_makespan_increase_no_stretch = 0;  // planned, max over DAGs
  double max_makespan_increase_stretch = 0;
  double mean_energy_saved_per_dag_stretch = 0;
  std::uint64_t tasks_slowed_no_stretch = 0;
  std::uint64_t tasks_slowed_stretch = 0;
  std::uint64_t tasks_moved_stretch = 0;
  std::uint64_t dags_consolidated_stretch = 0;  // plans on fewer devices than the baseline
  // The same plans run in the simulator.
  bool simulated = false;
  double simulated_energy_saved_no_stretch = 0;
  double simulated_energy_saved_stretch = 0;
  double max_simulated_makespan_increase_no_stretch = 0;
  double max_simulated_makespan_increase_stretch = 0;
  double max_simulation_vs_plan_gap = 0;  // max |simulated / planned makespan − 1|
  // Re-mapping of the baseline itself plus DVFS (minimise_energy_within).
  double remap_saved_no_stretch = 0;
  double remap_saved_stretch = 0;
  // Slack reclamation alone.
  double slack_reclamation_saved_no_stretch = 0;
  double slack_reclamation_saved_stretch = 0;
  // Against HEFT at full speed (energy and makespan of the suite's HEFT schedules).
  double heft_joules = 0;
  double energy_saved_vs_heft_no_stretch = 0;
  double energy_saved_vs_heft_stretch = 0;
  double max_makespan_vs_heft_no_stretch = 0;  // max over DAGs of makespan / HEFT's − 1
  double max_makespan_vs_heft_stretch = 0;
  // Ceiling of DVFS alone: every task of the baseline at its slowest P-state, no bound.
  double dvfs_ceiling_saved = 0;
  // Breakdowns: the baseline at full speed and the headline plans at +stretch.
  std::vector<DeviceEnergyBreakdown> baseline_devices, stretch_devices;
  std::vector<KernelEnergyBreakdown> baseline_kernels;
};

// The workflow suite's cluster: 2 × H100, 2 × A100, 2 × V100 (one node each) and a CPU node.
Cluster energy_benchmark_cluster();
// The random-DAG suite's cluster of `devices` devices: one node whose link moves one
// byte per second with no latency (an edge's bytes are its seconds, as in
// uniform_cost_cluster), device j the catalog part H100-SXM, A100-80GB, V100,
// EPYC-9654 in turn.
Cluster random_dag_energy_cluster(std::size_t devices);

EnergyBenchmarkResult run_energy_benchmark(const EnergyBenchmarkParams& params);

}  // namespace hetsched
