// `hetsched import FILE`: reads a workflow (WfCommons JSON, Pegasus DAX XML) or a
// cost-matrix file (YAML or JSON), told by content, and prints what it holds — tasks, edges, bytes,
// work — so a file can be checked before it is scheduled; `--exact` also solves a cost matrix to
// proven optimality with the MILP solver. Bad input: one line, exit 2.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/io/config_kind.hpp"
#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/io/pegasus_dax_importer.hpp"
#include "hetsched/io/wfcommons_importer.hpp"
#include "hetsched/policy/exact_dag_solver.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct ImportOptions {
  std::string file;
  std::string format = "table";
  bool exact = false;
  double time_limit_seconds = 60;
};

void run_import(const ImportOptions& options) {
  nlohmann::ordered_json out;
  const std::string text = read_text_file(options.file, "file");
  const ConfigKind kind = detect_config_kind_of_text(text);
  if (kind == ConfigKind::cost_matrix) {
    const CostMatrix m = parse_cost_matrix(text, options.file);
    out = {{"kind", "cost-matrix"},
           {"name", m.name},
           {"tasks", m.task_names.size()},
           {"devices", m.device_names.size()},
           {"edges", m.edges.size()}};
    if (options.exact) {
      const DagInstance instance = cost_matrix_instance(m);
      const ExactSolveResult r = solve_exact_schedule_with_status(
          instance, ExactSolveOptions{options.time_limit_seconds, 0, {}});
      const char* status = r.status == ExactSolveStatus::optimal      ? "optimal"
                           : r.status == ExactSolveStatus::not_proven ? "not proven"
                           : r.status == ExactSolveStatus::too_large  ? "too large"
                                                                      : "infeasible";
      out["exact_status"] = status;
      if (r.schedule) out["exact_makespan_seconds"] = r.schedule->makespan_seconds;
      out["list_plan_makespan_seconds"] = r.heuristic_makespan_seconds;
      out["lower_bound_seconds"] = r.lower_bound_seconds;
    }
  } else {
    Job job;
    if (kind == ConfigKind::wfcommons)
      job = parse_wfcommons(text, options.file);
    else if (kind == ConfigKind::pegasus_dax)
      job = parse_pegasus_dax(text, options.file);
    else
      throw InputError(
          SourcePosition{options.file, 1, 1},
          fmt::format("expected a WfCommons workflow (JSON with `workflow`), a "
                      "Pegasus DAX (XML) or a cost matrix (`devices:` and "
                      "`tasks:`); found {}",
                      kind == ConfigKind::unknown ? std::string("none of these")
                                                  : "a " + std::string(config_kind_name(kind))));
    double edge_bytes = 0, input_bytes = 0, flops = 0;
    for (const Edge& e : job.edges) edge_bytes += e.bytes;
    for (const Task& t : job.tasks) input_bytes += t.input_bytes, flops += t.flops;
    out = {{"kind", kind == ConfigKind::wfcommons ? "wfcommons" : "pegasus-dax"},
           {"name", job.name},
           {"tasks", job.tasks.size()},
           {"edges", job.edges.size()},
           {"edge_bytes", edge_bytes},
           {"external_input_bytes", input_bytes},
           {"flops", flops}};
  }
  if (options.format == "json") {
    std::cout << out.dump() << "\n";
    return;
  }
  for (const auto& [key, value] : out.items())
    std::cout << fmt::format("{:<28} {}\n", key,
                             value.is_string() ? value.get<std::string>() : value.dump());
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* command = app.add_subcommand(
      "import", "read a workflow (WfCommons JSON, Pegasus DAX) or a cost matrix and summarise it");
  command->add_option("file", options->file, "the file (its kind is told by its content)")
      ->required();
  command->add_option("--format", options->format, "table or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--exact", options->exact,
                    "cost matrix: solve to proven optimality (MILP, <= 12 tasks, <= 3 devices)");
  command->add_option("--time-limit", options->time_limit_seconds, "seconds for --exact")
      ->capture_default_str()
      ->check(finite_range(0.001, 86400.0));
  command->callback([options] { run_import(*options); });
}

}  // namespace hetsched::cli
