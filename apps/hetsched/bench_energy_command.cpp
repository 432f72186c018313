#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench_report_folder.hpp"
#include "commands.hpp"
#include "energy_benchmark.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

nlohmann::ordered_json devices_json(const std::vector<DeviceEnergyBreakdown>& devices) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const DeviceEnergyBreakdown& d : devices)
    out.push_back({{"device", d.device},
                   {"devices_used", d.devices_used},
                   {"held_seconds", d.held_seconds},
                   {"tasks", d.tasks},
                   {"tasks_below_full_speed", d.tasks_below_full_speed},
                   {"busy_seconds", d.busy_seconds},
                   {"dynamic_joules", d.dynamic_joules},
                   {"busy_floor_joules", d.busy_floor_joules},
                   {"idle_joules", d.idle_joules}});
  return out;
}

void print_devices(const char* title, const std::vector<DeviceEnergyBreakdown>& devices,
                   double reference_joules) {
  std::cout << fmt::format(
      "{}\n  {:<10} {:>7} {:>6} {:>7} {:>11} {:>6} {:>12} {:>11} {:>11} {:>6}\n", title, "device",
      "devices", "tasks", "slowed", "busy s", "idle", "dynamic J", "floor J", "idle J", "share");
  for (const DeviceEnergyBreakdown& d : devices)
    std::cout << fmt::format(
        "  {:<10} {:>7} {:>6} {:>7} {:>11.0f} {:>5.1f}% {:>12.0f} {:>11.0f} {:>11.0f} {:>5.1f}%\n",
        d.device, d.devices_used, d.tasks, d.tasks_below_full_speed, d.busy_seconds,
        d.held_seconds > 0 ? 100 * (1 - d.busy_seconds / d.held_seconds) : 0.0, d.dynamic_joules,
        d.busy_floor_joules, d.idle_joules,
        reference_joules > 0 ? 100 * d.total_joules() / reference_joules : 0.0);
}

struct BenchEnergyOptions {
  EnergyBenchmarkParams params;
  std::string format = "table";
  std::string suite = "random-dag";
  bool hold_unused = false;
  bool no_simulate = false;
  bool no_sleep = false;
  bool mixed = false;
  bool quiet = false;
};

void run_bench_energy(BenchEnergyOptions options, BenchReportFolder& report) {
  if (report.wanted() && options.no_simulate)
    throw InputError(
        "--out draws the simulated runs of the first DAG, and --no-simulate "
        "leaves the simulation out");
  Progress progress("bench energy", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  options.params.suite =
      options.suite == "workflow" ? EnergySuite::workflow : EnergySuite::random_dag;
  options.params.release_unused_devices = !options.hold_unused;
  options.params.simulate = !options.no_simulate;
  options.params.sleep_idle_gaps = !options.no_sleep;
  options.params.mixed_devices = options.mixed;
  options.params.report_runs = report.sim_runs(
      "hetsched bench energy: the first DAG at full speed and under the energy-aware plans");
  const EnergyBenchmarkResult r = run_energy_benchmark(options.params);
  report.finish(options.format == "table");
  if (options.format == "json") {
    nlohmann::ordered_json out{
        {"suite", r.suite},
        {"dags", r.dags},
        {"tasks", r.tasks},
        {"devices", r.devices},
        {"stretch", r.stretch},
        {"mixed_devices", r.mixed_devices},
        {"release_unused_devices", r.release_unused_devices},
        {"sleep_idle_gaps", r.sleep_idle_gaps},
        {"baseline_kwh", r.baseline_joules / 3.6e6},
        {"baseline_idle_fraction",
         r.baseline_joules > 0 ? r.baseline_idle_joules / r.baseline_joules : 0.0},
        {"energy_saved_no_stretch", r.energy_saved_no_stretch},
        {"energy_saved_5pct_stretch", r.energy_saved_stretch},
        {"max_makespan_increase_no_stretch", r.max_makespan_increase_no_stretch},
        {"max_makespan_increase_5pct_stretch", r.max_makespan_increase_stretch},
        {"simulated", r.simulated},
        {"simulated_energy_saved_no_stretch", r.simulated_energy_saved_no_stretch},
        {"simulated_energy_saved_5pct_stretch", r.simulated_energy_saved_stretch},
        {"max_simulated_makespan_increase_no_stretch",
         r.max_simulated_makespan_increase_no_stretch},
        {"max_simulated_makespan_increase_5pct_stretch", r.max_simulated_makespan_increase_stretch},
        {"max_simulation_vs_plan_gap", r.max_simulation_vs_plan_gap},
        {"mean_energy_saved_per_dag_5pct_stretch", r.mean_energy_saved_per_dag_stretch},
        {"tasks_slowed_no_stretch", r.tasks_slowed_no_stretch},
        {"tasks_slowed_5pct_stretch", r.tasks_slowed_stretch},
        {"tasks_moved_5pct_stretch", r.tasks_moved_stretch},
        {"dags_consolidated_5pct_stretch", r.dags_consolidated_stretch},
        {"remap_saved_no_stretch", r.remap_saved_no_stretch},
        {"remap_saved_5pct_stretch", r.remap_saved_stretch},
        {"slack_reclamation_saved_no_stretch", r.slack_reclamation_saved_no_stretch},
        {"slack_reclamation_saved_5pct_stretch", r.slack_reclamation_saved_stretch},
        {"heft_kwh", r.heft_joules / 3.6e6},
        {"energy_saved_vs_heft_no_stretch", r.energy_saved_vs_heft_no_stretch},
        {"energy_saved_vs_heft_5pct_stretch", r.energy_saved_vs_heft_stretch},
        {"max_makespan_vs_heft_no_stretch", r.max_makespan_vs_heft_no_stretch},
        {"max_makespan_vs_heft_5pct_stretch", r.max_makespan_vs_heft_stretch},
        {"dvfs_ceiling_saved", r.dvfs_ceiling_saved}};
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const KernelEnergyBreakdown& k : r.baseline_kernels)
      kernels.push_back({{"kernel", k.kernel},
                         {"tasks", k.tasks},
                         {"dynamic_joules", k.dynamic_joules},
                         {"memory_bound_fraction", k.memory_bound_fraction}});
    out["breakdown"] = {{"baseline_devices", devices_json(r.baseline_devices)},
                        {"5pct_stretch_devices", devices_json(r.stretch_devices)},
                        {"baseline_kernels", kernels}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "Energy minimised within a makespan bound, {} suite{}: {} DAGs, {} tasks, up to {} devices\n"
      "(baseline: the insertion-EFT list schedule at full speed, {:.3f} kWh, {:.1f} % of it "
      "idle; devices a DAG does not use are {}; idle gaps {})\n"
      "  energy saved, no makespan increase      {:6.2f} %  (max makespan change {:+.2f} %)\n"
      "  energy saved, makespan +{:g} %            {:6.2f} %  (max makespan change {:+.2f} %)\n",
      r.suite, r.mixed_devices ? " (mixed devices)" : "", r.dags, r.tasks, r.devices,
      r.baseline_joules / 3.6e6,
      r.baseline_joules > 0 ? 100 * r.baseline_idle_joules / r.baseline_joules : 0.0,
      r.release_unused_devices ? "released (charged nothing)" : "held (charged idle power)",
      r.sleep_idle_gaps ? "of 60 s or more suspended to RAM when cheaper" : "at idle power",
      100 * r.energy_saved_no_stretch, 100 * r.max_makespan_increase_no_stretch, 100 * r.stretch,
      100 * r.energy_saved_stretch, 100 * r.max_makespan_increase_stretch);
  if (r.simulated)
    std::cout << fmt::format(
        "  simulated runs: {:.2f} % saved, max makespan change {:+.2f} % (no increase); {:.2f} % "
        "saved, max {:+.2f} % (+{:g} %); simulated vs planned makespan within {:.2g} %\n",
        100 * r.simulated_energy_saved_no_stretch,
        100 * r.max_simulated_makespan_increase_no_stretch, 100 * r.simulated_energy_saved_stretch,
        100 * r.max_simulated_makespan_increase_stretch, 100 * r.stretch,
        100 * r.max_simulation_vs_plan_gap);
  std::cout << fmt::format(
      "  goal: >= 15 % saved at <= 5 % makespan increase: {}\n"
      "  tasks moved {} / {}, slowed {}; DAGs run on fewer devices than the baseline: {} / {}\n"
      "  re-mapping the baseline + DVFS: {:.2f} % (no increase), {:.2f} % (+{:g} %); slack "
      "reclamation alone: {:.2f} %, {:.2f} %\n"
      "  against HEFT at full speed ({:.3f} kWh): {:.2f} % saved (makespan vs HEFT max {:+.2f} "
      "%), {:.2f} % at +{:g} % (max {:+.2f} %)\n"
      "  DVFS ceiling (every task at its slowest P-state, no bound): {:.2f} %\n",
      r.energy_saved_stretch >= 0.15 && r.max_makespan_increase_stretch <= 0.05 + 1e-9 &&
              (!r.simulated || r.max_simulated_makespan_increase_stretch <= 0.05 + 1e-9)
          ? "met"
          : "NOT met",
      r.tasks_moved_stretch, r.tasks, r.tasks_slowed_stretch, r.dags_consolidated_stretch, r.dags,
      100 * r.remap_saved_no_stretch, 100 * r.remap_saved_stretch, 100 * r.stretch,
      100 * r.slack_reclamation_saved_no_stretch, 100 * r.slack_reclamation_saved_stretch,
      r.heft_joules / 3.6e6, 100 * r.energy_saved_vs_heft_no_stretch,
      100 * r.max_makespan_vs_heft_no_stretch, 100 * r.energy_saved_vs_heft_stretch,
      100 * r.stretch, 100 * r.max_makespan_vs_heft_stretch, 100 * r.dvfs_ceiling_saved);
  print_devices("Baseline at full speed, per device (share of the baseline's energy):",
                r.baseline_devices, r.baseline_joules);
  print_devices("Best plans at the stretch bound, per device (share of the baseline's energy):",
                r.stretch_devices, r.baseline_joules);
  std::cout << "Baseline dynamic energy per kernel class:\n";
  for (const KernelEnergyBreakdown& k : r.baseline_kernels)
    std::cout << fmt::format("  {:<14} {:>5} tasks {:>10.0f} J  {:5.1f} % memory-bound\n", k.kernel,
                             k.tasks, k.dynamic_joules, 100 * k.memory_bound_fraction);
}

}  // namespace

void add_bench_energy_command(CLI::App& bench) {
  auto options = std::make_shared<BenchEnergyOptions>();
  CLI::App* command = bench.add_subcommand("energy",
                                           "energy saved by DVFS, re-mapping and consolidation on "
                                           "random DAGs, with and without stretch");
  command
      ->add_option("--suite", options->suite,
                   "random-dag (bench dag's random suite) or workflow (random layered workflows)")
      ->capture_default_str()
      ->check(CLI::IsMember({"random-dag", "workflow"}));
  command
      ->add_option("--dags", options->params.dags,
                   "DAGs in the suite (0: 100 of bench dag's 600 random graphs; 20 workflows)")
      ->capture_default_str()
      ->check(finite_range(0, 100000));
  command->add_flag("--hold-unused-devices", options->hold_unused,
                    "charge idle power to devices a DAG does not use (default: released)");
  command->add_flag("--no-sleep", options->no_sleep,
                    "idle gaps at idle power (default: suspended to RAM when cheaper, in the "
                    "baseline and the plans alike)");
  command->add_flag("--mixed-devices", options->mixed,
                    "random-dag suite: devices get the power of H100, A100, V100, EPYC in turn "
                    "(default: identical EPYC-9654 sockets, bench dag's uniform_cost_cluster)");
  command->add_flag("--no-simulate", options->no_simulate,
                    "skip running the baseline and the plans in the simulator");
  command->add_option("--tasks", options->params.tasks_per_dag, "tasks per DAG (workflow suite)")
      ->capture_default_str()
      ->check(finite_range(1, 100000));
  command->add_option("--width", options->params.width, "mean tasks per DAG level (workflow suite)")
      ->capture_default_str()
      ->check(finite_range(1, 10000));
  command
      ->add_option("--stretch", options->params.stretch, "allowed makespan stretch (0.05 = +5 %)")
      ->capture_default_str()
      ->check(finite_range(0.0, 10.0));
  command->add_option("--seed", options->params.seed, "seed")->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  auto report = std::make_shared<BenchReportFolder>(
      *command, "the first DAG's simulated runs (full speed and the energy-aware plans)");
  command->callback([options, report] { run_bench_energy(*options, *report); });
}

}  // namespace hetsched::cli
