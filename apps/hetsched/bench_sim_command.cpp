// `hetsched bench sim`: the simulator's speed (sim/throughput_benchmark.hpp) on one cluster
// size or a sweep of them (--devices), optionally side by side with another hetsched binary
// (--baseline, e.g. the previous main's), the two run alternately as child processes on the
// same case so that the machine's drift touches both alike.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/service/process_runner.hpp"
#include "hetsched/sim/simulation_memory.hpp"
#include "option_checks.hpp"
#include "throughput_benchmark.hpp"

namespace hetsched::cli {
namespace {

struct BenchSimOptions {
  SimThroughputParams params;
  std::vector<std::size_t> devices;  // a sweep: nodes of devices_per_node each, rounded up
  std::string cluster_file;          // instead: one cluster from a file
  std::string baseline;              // another hetsched binary to run alternately
  std::size_t repetitions = 1;       // with --baseline: runs of each binary per size
  std::string format = "table";
  bool quiet = false;
};

nlohmann::ordered_json result_json(const SimThroughputResult& r) {
  return {{"tasks", r.tasks},
          {"devices", r.devices},
          {"events", r.events},
          {"transfers", r.transfers},
          {"edges", r.edges},
          {"wall_seconds", r.wall_seconds},
          {"cpu_seconds", r.cpu_seconds},
          {"simulated_makespan_seconds", r.simulated_makespan_seconds},
          {"tasks_per_second", r.tasks_per_second},
          {"events_per_second", r.events_per_second}};
}

// One run of `binary bench sim` on the case, as a child process; its JSON figures.
nlohmann::ordered_json run_binary(const std::string& binary, const SimThroughputParams& p,
                                  const std::string& cluster_file) {
  ProcessRequest request;
  request.argv = {binary, "bench", "sim", "--tasks", std::to_string(p.tasks)};
  if (!cluster_file.empty()) {
    request.argv.insert(request.argv.end(), {"--cluster", cluster_file});
  } else {
    request.argv.insert(request.argv.end(),
                        {"--nodes", std::to_string(p.nodes), "--devices-per-node",
                         std::to_string(p.devices_per_node)});
  }
  if (p.dag)
    request.argv.insert(request.argv.end(),
                        {"--dag", "--dag-min-tasks", std::to_string(p.dag_min_tasks),
                         "--dag-max-tasks", std::to_string(p.dag_max_tasks)});
  if (p.policy != "greedy-eft") request.argv.insert(request.argv.end(), {"--policy", p.policy});
  request.argv.insert(request.argv.end(),
                      {"--seed", std::to_string(p.seed), "--format", "json", "--quiet"});
  request.timeout = std::chrono::hours(2);
  const ProcessResult result = run_process(request);
  if (!result.succeeded()) {
    const std::string said = result.standard_error.substr(0, result.standard_error.find('\n'));
    throw InputError(fmt::format(
        "--baseline: '{}' did not run the benchmark ({}{})", describe_command(request.argv),
        !result.started    ? "it could not be started"
        : result.timed_out ? "it timed out"
                           : fmt::format("exit status {}", result.exit_code),
        said.empty() ? "" : ": " + said));
  }
  try {
    nlohmann::ordered_json figures = nlohmann::ordered_json::parse(result.standard_output);
    if (figures.contains("tasks_per_second")) return figures;
  } catch (const nlohmann::json::exception&) {
  }
  throw InputError(fmt::format("--baseline: '{}' printed no figures of bench sim", binary));
}

double median_rate(const nlohmann::ordered_json& runs) {
  std::vector<double> rates;
  for (const auto& run : runs) rates.push_back(run["tasks_per_second"].get<double>());
  if (rates.empty()) return 0.0;
  std::sort(rates.begin(), rates.end());
  const std::size_t middle = rates.size() / 2;
  return rates.size() % 2 ? rates[middle] : (rates[middle - 1] + rates[middle]) / 2;
}

void print_table_row(const SimThroughputResult& r, const std::string& policy) {
  std::cout << fmt::format(
      "simulated {} {} on {} devices under {}\n"
      "  time on one core   {:.3f} s (wall {:.3f} s)\n"
      "  tasks per second   {:.0f}\n"
      "  events per second  {:.0f} ({} events, {} transfers)\n"
      "  simulated makespan {:.1f} s\n",
      r.tasks,
      r.edges > 0 ? fmt::format("tasks of workflows ({} edges)", r.edges)
                  : std::string("independent tasks with input transfers"),
      r.devices, policy, r.cpu_seconds, r.wall_seconds, r.tasks_per_second, r.events_per_second,
      r.events, r.transfers, r.simulated_makespan_seconds);
}

void run_bench_sim(BenchSimOptions options) {
  (void)make_policy(options.params.policy, {});  // an unknown name: InputError, exit 2
  if (options.params.dag_min_tasks > options.params.dag_max_tasks)
    throw InputError(fmt::format("--dag-min-tasks ({}) is more than --dag-max-tasks ({})",
                                 options.params.dag_min_tasks, options.params.dag_max_tasks));
  std::optional<Cluster> cluster;
  if (!options.cluster_file.empty()) {
    cluster = load_cluster_file(options.cluster_file);
    options.params.cluster = &*cluster;
  }
  std::vector<SimThroughputParams> cases;
  if (options.devices.empty()) cases.push_back(options.params);
  for (std::size_t devices : options.devices) {
    SimThroughputParams p = options.params;
    p.nodes = (devices + p.devices_per_node - 1) / p.devices_per_node;
    cases.push_back(p);
  }
  for (const SimThroughputParams& p : cases)  // refused before anything is generated
    check_simulation_fits(p.tasks,
                          p.cluster ? p.cluster->device_count() : p.nodes * p.devices_per_node);
  const bool sweep = !options.devices.empty() || !options.baseline.empty();
  if (!sweep) {
    Progress progress("bench sim", options.quiet);
    options.params.progress = [&](std::size_t done, std::size_t total) {
      progress.update(done, total);
    };
    const SimThroughputResult r = run_sim_throughput_benchmark(options.params);
    if (options.format == "json")
      std::cout << result_json(r).dump() << "\n";
    else
      print_table_row(r, options.params.policy);
    return;
  }
  nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
  Progress progress("bench sim", options.quiet);
  const std::size_t repetitions = options.baseline.empty() ? 1 : options.repetitions;
  std::size_t done = 0;
  for (const SimThroughputParams& p : cases) {
    nlohmann::ordered_json ours = nlohmann::ordered_json::array();
    nlohmann::ordered_json baseline = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < repetitions; ++r) {
      if (options.baseline.empty()) {
        ours.push_back(result_json(run_sim_throughput_benchmark(p)));
      } else {
        // ABBA order: each binary goes first as often as the other.
        const bool baseline_first = r % 2 == 0;
        if (baseline_first)
          baseline.push_back(run_binary(options.baseline, p, options.cluster_file));
        ours.push_back(run_binary("/proc/self/exe", p, options.cluster_file));
        if (!baseline_first)
          baseline.push_back(run_binary(options.baseline, p, options.cluster_file));
      }
      progress.update(++done, cases.size() * repetitions);
    }
    nlohmann::ordered_json size{{"devices", ours[0]["devices"]},
                                {"tasks", ours[0]["tasks"]},
                                {"tasks_per_second", median_rate(ours)}};
    if (!options.baseline.empty()) {
      size["baseline_tasks_per_second"] = median_rate(baseline);
      size["runs"] = ours;
      size["baseline_runs"] = baseline;
    } else {
      size["run"] = ours[0];
    }
    sizes.push_back(std::move(size));
  }
  if (options.format == "json") {
    nlohmann::ordered_json out{{"sizes", sizes}};
    if (!options.baseline.empty()) out["baseline"] = options.baseline;
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "{} {} under {}{}\n", options.params.tasks,
      options.params.dag ? "tasks of workflows" : "independent tasks with input transfers",
      options.params.policy,
      options.baseline.empty()
          ? ""
          : fmt::format(", median of {} alternate runs against {}", repetitions, options.baseline));
  std::cout << fmt::format("{:>10} {:>16}{}\n", "devices", "tasks/s",
                           options.baseline.empty() ? "" : fmt::format(" {:>16}", "baseline"));
  for (const auto& size : sizes)
    std::cout << fmt::format(
        "{:>10} {:>16.0f}{}\n", size["devices"].get<std::size_t>(),
        size["tasks_per_second"].get<double>(),
        options.baseline.empty()
            ? ""
            : fmt::format(" {:>16.0f}", size["baseline_tasks_per_second"].get<double>()));
}

}  // namespace

void add_bench_sim_command(CLI::App& bench) {
  auto options = std::make_shared<BenchSimOptions>();
  CLI::App* command = bench.add_subcommand("sim", "simulator speed: tasks and events per second");
  command->add_option("--tasks", options->params.tasks, "independent tasks")
      ->capture_default_str()
      ->check(finite_range(1, 100'000'000));
  CLI::Option* nodes = command->add_option("--nodes", options->params.nodes, "nodes")
                           ->capture_default_str()
                           ->check(finite_range(1, 100'000));
  command->add_option("--devices-per-node", options->params.devices_per_node, "devices per node")
      ->capture_default_str()
      ->check(finite_range(1, 1024));
  command
      ->add_option("--devices", options->devices,
                   "a sweep of cluster sizes, e.g. 1024,10000,100000 (nodes of "
                   "--devices-per-node devices, rounded up)")
      ->delimiter(',')
      ->check(finite_range(1, 10'000'000))
      ->excludes(nodes);
  command
      ->add_option("--cluster", options->cluster_file,
                   "run on this cluster file instead (e.g. examples/fleet_100k.yaml); the jobs' "
                   "inputs live on its nodes in turn")
      ->excludes(nodes)
      ->excludes("--devices")
      ->excludes("--devices-per-node");
  command->add_option("--baseline", options->baseline,
                      "another hetsched binary (e.g. the previous main's) run alternately on "
                      "each case, both as child processes; both figures are printed");
  command
      ->add_option("--repetitions", options->repetitions,
                   "with --baseline: runs of each binary per case (the median is printed)")
      ->capture_default_str()
      ->check(finite_range(1, 100));
  command->add_flag("--dag", options->params.dag,
                    "tasks in layered workflows with edges carrying bytes instead of independent "
                    "tasks");
  command
      ->add_option("--dag-min-tasks", options->params.dag_min_tasks,
                   "with --dag: the smallest workflow")
      ->capture_default_str()
      ->check(finite_range(1, 10'000'000));
  command
      ->add_option("--dag-max-tasks", options->params.dag_max_tasks,
                   "with --dag: the largest workflow (sizes are log-uniform in between)")
      ->capture_default_str()
      ->check(finite_range(1, 10'000'000));
  command->add_option("--policy", options->params.policy, "the task policy (e.g. heft)")
      ->capture_default_str();
  command->add_option("--seed", options->params.seed, "seed")->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_sim(*options); });
}

}  // namespace hetsched::cli
