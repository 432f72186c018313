#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/sim/throughput_benchmark.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct BenchSimOptions {
  SimThroughputParams params;
  std::string format = "table";
  bool quiet = false;
};

void run_bench_sim(BenchSimOptions options) {
  Progress progress("bench sim", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  const SimThroughputResult r = run_sim_throughput_benchmark(options.params);
  if (options.format == "json") {
    nlohmann::ordered_json out{{"tasks", r.tasks},
                               {"devices", r.devices},
                               {"events", r.events},
                               {"transfers", r.transfers},
                               {"wall_seconds", r.wall_seconds},
                               {"cpu_seconds", r.cpu_seconds},
                               {"simulated_makespan_seconds", r.simulated_makespan_seconds},
                               {"tasks_per_second", r.tasks_per_second},
                               {"events_per_second", r.events_per_second}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "simulated {} independent tasks with input transfers on {} devices under greedy-eft\n"
      "  time on one core   {:.3f} s (wall {:.3f} s)\n"
      "  tasks per second   {:.0f}\n"
      "  events per second  {:.0f} ({} events, {} transfers)\n"
      "  simulated makespan {:.1f} s\n",
      r.tasks, r.devices, r.cpu_seconds, r.wall_seconds, r.tasks_per_second, r.events_per_second,
      r.events, r.transfers, r.simulated_makespan_seconds);
}

}  // namespace

void add_bench_sim_command(CLI::App& bench) {
  auto options = std::make_shared<BenchSimOptions>();
  CLI::App* command = bench.add_subcommand("sim", "simulator speed: tasks and events per second");
  command->add_option("--tasks", options->params.tasks, "independent tasks")
      ->capture_default_str()
      ->check(finite_range(1, 100'000'000));
  command->add_option("--nodes", options->params.nodes, "nodes")
      ->capture_default_str()
      ->check(finite_range(1, 100'000));
  command->add_option("--devices-per-node", options->params.devices_per_node, "devices per node")
      ->capture_default_str()
      ->check(finite_range(1, 1024));
  command->add_option("--seed", options->params.seed, "seed")->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_sim(*options); });
}

}  // namespace hetsched::cli
