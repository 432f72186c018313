// `hetsched bench dag`: the DAG-scheduling quality benchmark (see
// include/hetsched/policy/dag_benchmark.hpp). Options → run_dag_benchmark → print.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench_report_folder.hpp"
#include "commands.hpp"
#include "dag_benchmark.hpp"
#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/exact_dag_solver.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "option_checks.hpp"
#include "workflow_suite.hpp"

namespace hetsched::cli {
namespace {

struct BenchDagOptions {
  DagBenchmarkParams params;
  std::string data_dir = "data";
  bool workflows = true;
  std::string format = "table";
  bool quiet = false;
};

// The exact solver gives the MILP gaps; the real workflows of the data folder join the
// suite on the built-in cluster.
void wire_dag_benchmark_hooks(DagBenchmarkParams& params, const std::string& data_dir,
                              const PerfModel& perf) {
  params.exact_solver = [](const DagInstance& instance, double limit) {
    return solve_exact_schedule(instance, limit);
  };
  if (!data_dir.empty()) params.extra_instances = workflow_suite_instances(data_dir, perf);
}

void print_dag_quality_table(const BenchDagOptions& options, const DagBenchmarkResult& r);

std::string dag_report_title(const RandomDagParams& p) {
  return fmt::format(
      "hetsched bench dag: a random DAG of {} tasks on {} devices (CCR {}, beta {}, alpha {})",
      p.tasks, p.devices, p.ccr, p.heterogeneity, p.shape);
}

// `--out`: the suite's report graph (dag_report_draw) planned by every compared planner and
// run in the simulator on the cluster the graph's costs describe.
void draw_dag_report(const DagBenchmarkParams& params, RandomDagDraw draw, const SimRunSink& sink) {
  Workload workload;
  workload.jobs.push_back(generate_random_dag(draw.params, draw.rng).as_job("dag"));
  const Cluster cluster = uniform_cost_cluster(draw.params.devices);
  const RooflineModel perf(cluster);
  for (const std::string& name : params.policies) {
    const auto policy = make_policy(name, dag_benchmark_policy_options(params));
    Simulator simulator(cluster, workload, perf, *policy, SimulationOptions{.seed = params.seed});
    sink(name, simulator.run(), cluster, simulator.graph());
  }
}

nlohmann::ordered_json json_or_null(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

void run_bench_dag(BenchDagOptions options, BenchReportFolder& report) {
  if (report.wanted() && options.params.speed_only)
    throw InputError("--out draws the quality suite's planners, and --speed-only leaves it out");
  for (const std::string& name : options.params.policies)
    (void)make_static_planner(name, {});  // unknown or online names: InputError, exit 2
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  if (!options.params.speed_only)
    wire_dag_benchmark_hooks(options.params, options.workflows ? options.data_dir : "", perf);
  Progress progress("bench dag", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  std::optional<RandomDagDraw> drawn;
  SimRunSink sink;
  if (report.wanted()) {  // the folder is made before the long run
    drawn = dag_report_draw(options.params);
    sink = report.sim_runs(dag_report_title(drawn->params));
  }
  const DagBenchmarkResult r = run_dag_benchmark(options.params);
  if (drawn) {
    draw_dag_report(options.params, std::move(*drawn), sink);
    report.finish(options.format == "table");
  }
  if (options.format == "json") {
    nlohmann::ordered_json policies = nlohmann::ordered_json::object();
    nlohmann::ordered_json gaps = nlohmann::ordered_json::object();
    for (const DagPolicyResult& p : r.policies) {
      policies[p.name] = {{"mean_slr", p.mean_slr},
                          {"mean_makespan_vs_heft", p.mean_makespan_vs_heft},
                          {"best_fraction", p.best_fraction},
                          {"worse_than_heft_count", p.worse_than_heft_count},
                          {"mean_schedule_seconds", p.mean_schedule_seconds}};
      gaps[p.name] = json_or_null(p.milp_gap_mean);
    }
    nlohmann::ordered_json out{{"policies", policies},
                               {"milp_gap_mean", gaps},
                               {"heft_10k_64_seconds", json_or_null(r.heft_10k_64_seconds)},
                               {"heft_scaling_exponent", json_or_null(r.heft_scaling_exponent)}};
    std::cout << out.dump() << "\n";
    return;
  }
  if (!options.params.speed_only) print_dag_quality_table(options, r);
  if (options.params.measure_speed || options.params.speed_only) {
    std::cout << "HEFT speed (64 devices, CPU seconds):\n";
    for (const HeftSpeedPoint& s : r.heft_speed)
      std::cout << fmt::format("  v {:>7}  edges {:>7}  {:.4f} s\n", s.tasks, s.edges, s.seconds);
    if (r.heft_10k_64_seconds)
      std::cout << fmt::format("  10k tasks x 64 devices: {:.4f} s\n", *r.heft_10k_64_seconds);
    if (r.heft_scaling_exponent)
      std::cout << fmt::format("  exponent of time vs edges x devices: {:.3f}\n",
                               *r.heft_scaling_exponent);
  }
}

void print_dag_quality_table(const BenchDagOptions& options, const DagBenchmarkResult& r) {
  std::cout << fmt::format("{} graphs ({} random, {} extra); makespan ratios are to HEFT's\n",
                           r.graphs, r.graphs - options.params.extra_instances.size(),
                           options.params.extra_instances.size());
  std::cout << fmt::format("{:<16}{:>9}{:>11}{:>11}{:>9}{:>12}{:>13}{:>10}\n", "policy", "mean SLR",
                           "vs HEFT", "worst", "best", "worse than", "CPU ms", "MILP gap");
  for (const DagPolicyResult& p : r.policies)
    std::cout << fmt::format(
        "{:<16}{:>9.3f}{:>11.4f}{:>11.4f}{:>8.1f}%{:>12}{:>13.3f}{:>10}\n", p.name, p.mean_slr,
        p.mean_makespan_vs_heft, p.worst_makespan_vs_heft, 100 * p.best_fraction,
        p.worse_than_heft_count, 1e3 * p.mean_schedule_seconds,
        p.milp_gap_mean ? fmt::format("{:.2f}%", 100 * *p.milp_gap_mean) : std::string("-"));
  std::cout << "mean makespan vs HEFT by CCR:";
  if (!r.policies.empty())
    for (const auto& [ccr, ratio] : r.policies.front().makespan_vs_heft_by_ccr)
      std::cout << fmt::format("{:>9}", fmt::format("ccr {}", ccr));
  std::cout << "\n";
  for (const DagPolicyResult& p : r.policies) {
    std::cout << fmt::format("  {:<28}", p.name);
    for (const auto& [ccr, ratio] : p.makespan_vs_heft_by_ccr)
      std::cout << fmt::format("{:>9.4f}", ratio);
    std::cout << "\n";
  }
  if (!options.params.exact_solver)
    std::cout << "MILP gap: no exact solver wired in this build\n";
  else
    std::cout << fmt::format("MILP gap over {} small DAGs solved to optimality\n", r.exact_graphs);
}

}  // namespace

void add_bench_dag_command(CLI::App& bench) {
  auto options = std::make_shared<BenchDagOptions>();
  CLI::App* command = bench.add_subcommand(
      "dag", "DAG-scheduling quality: HEFT, PEFT, heft-ils and kin on random DAGs");
  command->add_flag("--quick", options->params.quick, "a small subset (36 graphs, v <= 100)");
  command
      ->add_option("--repetitions", options->params.repetitions,
                   "random graphs per (v, CCR, beta, alpha) combination")
      ->capture_default_str()
      ->check(finite_range(1, 1000));
  command->add_option("--seed", options->params.seed, "seed")->capture_default_str();
  command->add_option("--policies", options->params.policies, "static planners to compare")
      ->delimiter(',')
      ->capture_default_str();
  command
      ->add_option("--ils-iterations", options->params.ils_iterations,
                   "heft-ils: schedules evaluated per graph")
      ->capture_default_str()
      ->check(finite_range(1, 100'000'000));
  command->add_flag("--no-speed{false},--speed{true}", options->params.measure_speed,
                    "measure HEFT's speed on 1k..100k tasks (default on)");
  command
      ->add_option("--speed-sizes", options->params.speed_sizes,
                   "tasks of the HEFT speed DAGs (default 1000,3000,10000,30000,100000)")
      ->delimiter(',')
      ->check(finite_range(16, 2'000'000));
  command->add_flag(
      "--speed-only", options->params.speed_only,
      "only HEFT's speed (1k..100k tasks, or --speed-sizes): skips the quality suite, the real "
      "workflows and the MILP gaps");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command
      ->add_option("--exact-instances", options->params.exact_instances,
                   "small random DAGs solved exactly for the MILP gaps")
      ->capture_default_str()
      ->check(finite_range(0, 1000));
  command
      ->add_option("--data", options->data_dir,
                   "folder with wfcommons/ and pegasus/ workflows added to the suite (the "
                   "repository's data/ when run from its root)")
      ->capture_default_str();
  command->add_flag("--no-workflows{false}", options->workflows,
                    "leave the real workflows of --data out of the suite");
  auto report = std::make_shared<BenchReportFolder>(
      *command, "one random DAG of the suite planned by every compared planner and simulated");
  command->callback([options, report] { run_bench_dag(*options, *report); });
}

}  // namespace hetsched::cli
