#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/energy/pareto_output.hpp"
#include "hetsched/io/report_page.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/workload/generators.hpp"
#include "input_options.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct ParetoCommandOptions {
  InputOptions input;
  std::string job;
  std::uint32_t tasks = 40;
  std::uint32_t width = 6;
  std::vector<double> weights{1.0, 1.0, 0.0};
  double usd_per_kwh = 0.15;
  std::string csv_path;  // written only when asked for
  std::string svg_path;
  std::string html_path;
  std::string format = "table";
};

void run_pareto(const ParetoCommandOptions& options) {
  for (double w : options.weights)
    if (!(w >= 0))
      throw InputError(fmt::format("--weights: expected non-negative numbers, got {}", w));
  SchedulingInput input = options.input.load();
  if (input.workload_kind == ConfigKind::stream_workload)
    throw InputError(SourcePosition{options.input.workload_file, 1, 1},
                     "pareto plans a job of tasks; this file is a job stream (kind: stream)");
  const Cluster& cluster = input.cluster;
  Workload& workload = input.workload;
  if (options.input.workload_file.empty()) {
    Rng rng(options.input.seed);
    workload.jobs.clear();
    workload.jobs.push_back(workflow_job({"workflow", options.tasks, options.width, 0.0}, rng));
  }
  JobIndex job = 0;
  if (!options.job.empty()) {
    std::vector<std::string> names;
    for (const Job& j : workload.jobs) names.push_back(j.name);
    const auto it = std::find(names.begin(), names.end(), options.job);
    if (it == names.end())
      throw InputError(
          SourcePosition{options.input.workload_file.empty() ? std::string("<built-in workflow>")
                                                             : options.input.workload_file,
                         0, 0},
          unknown_name_message("job", options.job, names) + " (--job)");
    job = static_cast<JobIndex>(it - names.begin());
  }
  if (workload.jobs.empty()) throw InputError("the workload has no jobs");
  const RooflineModel perf(cluster);
  const TaskGraph graph(workload);
  const DagInstance instance(graph, job, perf);
  const JobEnergyModel model(instance, graph, job, perf);
  ParetoOptions pareto;
  pareto.electricity_usd_per_kwh = options.usd_per_kwh;
  for (const Device& d : cluster.devices()) pareto.price_per_hour.push_back(d.spec.price_per_hour);
  const std::vector<ParetoPoint> front = pareto_front(model, pareto);
  if (front.empty())
    throw InputError(fmt::format("job '{}' has tasks no device of the cluster can run",
                                 workload.jobs[job].name));
  const std::size_t picked =
      pick_by_weights(front, {options.weights[0], options.weights[1], options.weights[2]});
  const std::string title =
      fmt::format("Pareto front of job '{}' ({} tasks, {} devices)", workload.jobs[job].name,
                  instance.task_count(), cluster.device_count());
  if (!options.csv_path.empty()) write_text_file(options.csv_path, pareto_to_csv(front, picked));
  if (!options.svg_path.empty())
    write_text_file(options.svg_path, pareto_to_svg(front, picked, title));
  if (!options.html_path.empty()) {
    // The front is over three objectives; the chart shows two, and marks the points that no
    // other beats on both of them.
    ReportPareto chart{.x_label = "makespan (s)", .y_label = "energy (kJ)"};
    for (const ParetoPoint& p : front) {
      const bool beaten = std::any_of(front.begin(), front.end(), [&](const ParetoPoint& q) {
        return q.makespan_seconds <= p.makespan_seconds && q.energy_joules <= p.energy_joules &&
               (q.makespan_seconds < p.makespan_seconds || q.energy_joules < p.energy_joules);
      });
      chart.points.push_back({p.origin, p.makespan_seconds, p.energy_joules / 1e3, !beaten});
    }
    chart.chosen = static_cast<int>(picked);
    write_text_file(options.html_path, render_report_page({.title = title, .pareto = &chart}));
  }
  if (options.format == "json") {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < front.size(); ++i)
      points.push_back({{"makespan_seconds", front[i].makespan_seconds},
                        {"energy_joules", front[i].energy_joules},
                        {"cost_usd", front[i].cost_usd},
                        {"picked", i == picked},
                        {"origin", front[i].origin}});
    std::cout << nlohmann::ordered_json{{"job", workload.jobs[job].name}, {"front", points}}.dump()
              << "\n";
    return;
  }
  std::cout << title << "\n";
  std::cout << fmt::format("  {:>3}  {:>12}  {:>12}  {:>10}  {}\n", "#", "makespan (s)",
                           "energy (kJ)", "cost (USD)", "schedule");
  for (std::size_t i = 0; i < front.size(); ++i)
    std::cout << fmt::format("{} {:>3}  {:>12.4f}  {:>12.3f}  {:>10.5f}  {}\n",
                             i == picked ? "*" : " ", i, front[i].makespan_seconds,
                             front[i].energy_joules / 1e3, front[i].cost_usd, front[i].origin);
  std::cout << fmt::format("* picked by weights (makespan {}, energy {}, cost {})",
                           options.weights[0], options.weights[1], options.weights[2]);
  if (!options.csv_path.empty()) std::cout << "; CSV: " << options.csv_path;
  if (!options.svg_path.empty()) std::cout << "; plot: " << options.svg_path;
  if (!options.html_path.empty()) std::cout << "; report: " << options.html_path;
  std::cout << "\n";
}

}  // namespace

void add_pareto_command(CLI::App& app) {
  auto options = std::make_shared<ParetoCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "pareto", "Pareto front of one job's schedules over makespan, energy and cost");
  options->input.add_to(*command);
  command->add_option("--job", options->job, "job of the workload (default: the first)");
  command->add_option("--tasks", options->tasks, "tasks of the generated DAG (no --workload)")
      ->capture_default_str()
      ->check(finite_range(1, 100000));
  command->add_option("--width", options->width, "mean tasks per level of the generated DAG")
      ->capture_default_str()
      ->check(finite_range(1, 10000));
  command->add_option("--weights", options->weights, "weights of makespan, energy, cost")
      ->expected(3)
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--usd-per-kwh", options->usd_per_kwh, "electricity price")
      ->capture_default_str()
      ->check(finite_non_negative);
  command->add_option("--csv", options->csv_path, "write the front as CSV to this file");
  command->add_option("--svg", options->svg_path, "write a plot of the front as SVG to this file");
  command->add_option("--html", options->html_path,
                      "write the front as a self-contained HTML report to this file");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([options] { run_pareto(*options); });
}

}  // namespace hetsched::cli
