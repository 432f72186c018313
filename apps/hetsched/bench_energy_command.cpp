#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/energy/energy_benchmark.hpp"

namespace hetsched::cli {
namespace {

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
        {"tasks_slowed_5pct_stretch", r.tasks_slowed_stretch}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "DVFS slack reclamation on {} random layered DAGs ({} tasks) on {} devices\n"
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
}

}  // namespace

void add_bench_energy_command(CLI::App& bench) {
  auto options = std::make_shared<BenchEnergyOptions>();
  CLI::App* command = bench.add_subcommand(
      "energy", "energy saved by DVFS slack reclamation on random DAGs, with and without stretch");
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
