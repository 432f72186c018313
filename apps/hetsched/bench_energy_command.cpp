#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/energy/energy_benchmark.hpp"

namespace hetsched::cli {
namespace {

nlohmann::ordered_json devices_json(const std::vector<DeviceEnergyBreakdown>& devices) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const DeviceEnergyBreakdown& d : devices)
    out.push_back({{"device", d.device},
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
  std::cout << fmt::format("{}\n  {:<14} {:>6} {:>7} {:>9} {:>10} {:>10} {:>10} {:>7}\n", title,
                           "device", "tasks", "slowed", "busy s", "dynamic J", "floor J", "idle J",
                           "share");
  for (const DeviceEnergyBreakdown& d : devices)
    std::cout << fmt::format(
        "  {:<14} {:>6} {:>7} {:>9.2f} {:>10.0f} {:>10.0f} {:>10.0f} {:>6.1f}%\n", d.device,
        d.tasks, d.tasks_below_full_speed, d.busy_seconds, d.dynamic_joules, d.busy_floor_joules,
        d.idle_joules, reference_joules > 0 ? 100 * d.total_joules() / reference_joules : 0.0);
}

struct BenchEnergyOptions {
  EnergyBenchmarkParams params;
  std::string format = "table";
  bool quiet = false;
};

void run_bench_energy(BenchEnergyOptions options) {
  Progress progress("bench energy", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  const EnergyBenchmarkResult r = run_energy_benchmark(options.params);
  if (options.format == "json") {
    nlohmann::ordered_json out{
        {"dags", r.dags},
        {"tasks", r.tasks},
        {"devices", r.devices},
        {"stretch", r.stretch},
        {"baseline_kwh", r.baseline_joules / 3.6e6},
        {"baseline_idle_fraction",
         r.baseline_joules > 0 ? r.baseline_idle_joules / r.baseline_joules : 0.0},
        {"energy_saved_no_stretch", r.energy_saved_no_stretch},
        {"energy_saved_5pct_stretch", r.energy_saved_stretch},
        {"energy_aware_saved_5pct_stretch", r.energy_aware_saved_stretch},
        {"max_makespan_increase_no_stretch", r.max_makespan_increase_no_stretch},
        {"max_makespan_increase_5pct_stretch", r.max_makespan_increase_stretch},
        {"max_makespan_increase_energy_aware", r.max_makespan_increase_energy_aware},
        {"mean_energy_saved_per_dag_5pct_stretch", r.mean_energy_saved_per_dag_stretch},
        {"tasks_slowed_no_stretch", r.tasks_slowed_no_stretch},
        {"tasks_slowed_5pct_stretch", r.tasks_slowed_stretch},
        {"slack_reclamation_saved_no_stretch", r.slack_reclamation_saved_no_stretch},
        {"slack_reclamation_saved_5pct_stretch", r.slack_reclamation_saved_stretch},
        {"tasks_moved_no_stretch", r.tasks_moved_no_stretch},
        {"tasks_moved_5pct_stretch", r.tasks_moved_stretch},
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
      "Energy minimised within a makespan bound on {} random layered DAGs ({} tasks) on {} "
      "devices\n"
      "(baseline: insertion-EFT list schedule at full speed, {:.3f} kWh, {:.1f} % of it idle)\n"
      "  energy saved, no makespan increase      {:6.2f} %  (max makespan change {:+.2f} %)\n"
      "  energy saved, makespan +{:g} %            {:6.2f} %  (max makespan change {:+.2f} %)\n"
      "  energy-aware placement, deadline +{:g} %  {:6.2f} %  (max makespan change {:+.2f} %)\n"
      "  goal: >= 15 % saved at <= 5 % makespan increase: {}\n",
      r.dags, r.tasks, r.devices, r.baseline_joules / 3.6e6,
      r.baseline_joules > 0 ? 100 * r.baseline_idle_joules / r.baseline_joules : 0.0,
      100 * r.energy_saved_no_stretch, 100 * r.max_makespan_increase_no_stretch, 100 * r.stretch,
      100 * r.energy_saved_stretch, 100 * r.max_makespan_increase_stretch, 100 * r.stretch,
      100 * r.energy_aware_saved_stretch, 100 * r.max_makespan_increase_energy_aware,
      std::max(r.energy_saved_stretch, r.energy_aware_saved_stretch) >= 0.15 ? "met" : "NOT met");
  std::cout << fmt::format(
      "  slack reclamation alone: {:.2f} % (no increase), {:.2f} % (+{:g} %); tasks re-mapped: "
      "{} / {}\n"
      "  against HEFT at full speed ({:.3f} kWh): {:.2f} % saved (makespan vs HEFT max {:+.2f} "
      "%), {:.2f} % at +{:g} % (max {:+.2f} %)\n"
      "  DVFS ceiling (every task at its slowest P-state, no bound): {:.2f} %\n",
      100 * r.slack_reclamation_saved_no_stretch, 100 * r.slack_reclamation_saved_stretch,
      100 * r.stretch, r.tasks_moved_no_stretch, r.tasks_moved_stretch, r.heft_joules / 3.6e6,
      100 * r.energy_saved_vs_heft_no_stretch, 100 * r.max_makespan_vs_heft_no_stretch,
      100 * r.energy_saved_vs_heft_stretch, 100 * r.stretch, 100 * r.max_makespan_vs_heft_stretch,
      100 * r.dvfs_ceiling_saved);
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
  CLI::App* command = bench.add_subcommand(
      "energy",
      "energy saved by DVFS and energy-aware re-mapping on random DAGs, with and without stretch");
  command->add_option("--dags", options->params.dags, "DAGs in the suite")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  command->add_option("--tasks", options->params.tasks_per_dag, "tasks per DAG")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  command->add_option("--width", options->params.width, "mean tasks per DAG level")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  command
      ->add_option("--stretch", options->params.stretch, "allowed makespan stretch (0.05 = +5 %)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  command->add_option("--seed", options->params.seed, "seed")->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_energy(*options); });
}

}  // namespace hetsched::cli
