// `hetsched bench report`: how big the HTML report is and how long headless Chromium takes
// to draw it, for the default `simulate --out` run and for a run of 100,000 tasks.
// The timing is web/tests/render_time.mjs (playwright-core, Debian's chromium): from the
// start of navigation until the charts of the first screen are drawn (the first render) and
// until every chart is (complete), the medians of three loads.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/io/report_page.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/io/scheduling_input.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "option_checks.hpp"
#include "throughput_benchmark.hpp"

namespace hetsched::cli {
namespace {

struct BenchReportOptions {
  std::size_t large_tasks = 100'000;
  std::string out_dir;  // empty: a temporary folder, removed afterwards
  std::string web_dir = HETSCHED_WEB_DIR;
  std::string format = "table";
  bool quiet = false;
};

// Simulates `workload` under each policy and writes the report page of all runs to `path`.
void write_report(const std::string& path, const std::string& title, const Cluster& cluster,
                  const Workload& workload, const std::vector<std::string>& policies) {
  const RooflineModel perf(cluster);
  ReportPageInput page;
  page.title = title;
  for (const std::string& name : policies) {
    const auto policy = make_policy(name, PolicyOptions{1});
    Simulator simulator(cluster, workload, perf, *policy, SimulationOptions{.seed = 1});
    page.runs.push_back(report_to_json(simulator.run(), cluster, simulator.graph()));
    page.sources.push_back(name);
  }
  write_text_file(path, render_report_page(page));
}

void run_bench_report(const BenchReportOptions& options) {
  const bool temporary = options.out_dir.empty();
  const std::filesystem::path dir =
      temporary ? std::filesystem::temp_directory_path() /
                      fmt::format("hetsched-bench-report-{}", static_cast<long>(getpid()))
                : std::filesystem::path(options.out_dir);
  create_output_directory(dir.string());
  const std::string small = (dir / "default.html").string(), large = (dir / "large.html").string();
  {
    Progress progress("bench report: simulating", options.quiet);
    const SchedulingInput input = load_scheduling_input("", "", 1);
    write_report(small, "default simulate run", input.cluster, input.workload,
                 {"round-robin", "random", "greedy-eft"});
    SimThroughputParams params;
    params.tasks = options.large_tasks;
    params.nodes = 16;
    params.devices_per_node = 4;
    params.jobs = std::max<std::size_t>(1, options.large_tasks / 100);
    write_report(large, fmt::format("{} tasks", options.large_tasks),
                 sim_throughput_cluster(params), sim_throughput_workload(params), {"greedy-eft"});
  }
  const std::string script = options.web_dir + "/tests/render_time.mjs";
  if (!std::filesystem::exists(script))
    throw InputError(SourcePosition{script, 0, 0},
                     "missing: give --web-dir, the repository's web/ folder (bootstrap.sh "
                     "installs its npm packages)");
  const std::string command = fmt::format("node '{}' '{}' '{}'", script, small, large);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw InputError("cannot start node for web/tests/render_time.mjs");
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) text += buffer;
  const int status = pclose(pipe);
  std::vector<nlohmann::json> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end - begin);
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line, nullptr, false));
    begin = end == std::string::npos ? text.size() : end + 1;
  }
  const auto timed = [](const nlohmann::json& line) {
    return !line.is_discarded() && line.contains("render_seconds") &&
           line.contains("complete_seconds");
  };
  if (status != 0 || lines.size() != 2 || !timed(lines[0]) || !timed(lines[1]))
    throw InputError(fmt::format("{} failed (status {}): {}", command, status, text));
  nlohmann::ordered_json out{{"default_render_seconds", lines[0]["render_seconds"]},
                             {"large_render_seconds", lines[1]["render_seconds"]},
                             {"default_complete_seconds", lines[0]["complete_seconds"]},
                             {"large_complete_seconds", lines[1]["complete_seconds"]},
                             {"default_bytes", std::filesystem::file_size(small)},
                             {"large_bytes", std::filesystem::file_size(large)},
                             {"large_tasks", options.large_tasks}};
  if (temporary) std::filesystem::remove_all(dir);
  if (options.format == "json") {
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "HTML report in headless Chromium (median of 3 loads): first screen drawn, every chart\n"
      "  default simulate run  {:.3f} s  {:.3f} s  {:.1f} MB\n"
      "  {} tasks        {:.3f} s  {:.3f} s  {:.1f} MB\n",
      out["default_render_seconds"].get<double>(), out["default_complete_seconds"].get<double>(),
      out["default_bytes"].get<double>() / 1e6, options.large_tasks,
      out["large_render_seconds"].get<double>(), out["large_complete_seconds"].get<double>(),
      out["large_bytes"].get<double>() / 1e6);
}

}  // namespace

void add_bench_report_command(CLI::App& bench) {
  auto options = std::make_shared<BenchReportOptions>();
  CLI::App* command = bench.add_subcommand(
      "report", "HTML report: file size and time to first render in headless Chromium");
  command->add_option("--large-tasks", options->large_tasks, "tasks of the large run")
      ->capture_default_str()
      ->check(finite_range(1, 10'000'000));
  command->add_option("--out", options->out_dir, "keep the two pages in this folder");
  command
      ->add_option("--web-dir", options->web_dir,
                   "the repository's web/ folder (render_time.mjs and its npm packages)")
      ->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_report(*options); });
}

}  // namespace hetsched::cli
