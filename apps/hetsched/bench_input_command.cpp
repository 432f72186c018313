#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "input_benchmark.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct BenchInputOptions {
  InputBenchParams params;
  std::string format = "table";
};

void run_bench_input(const BenchInputOptions& options) {
  const std::vector<InputBenchRow> rows = run_input_benchmark(options.params);
  if (options.format == "json") {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const InputBenchRow& r : rows)
      out[r.format] = {{"file_bytes", r.file_bytes},
                       {"tasks", r.tasks},
                       {"seconds", r.seconds},
                       {"megabytes_per_second", r.megabytes_per_second},
                       {"peak_megabytes", r.peak_megabytes},
                       {"model_megabytes", r.model_megabytes},
                       {"peak_over_file_size", r.peak_over_file_size}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format("{:<9} {:>10} {:>9} {:>9} {:>9} {:>10} {:>10} {:>14}\n", "format",
                           "file MB", "tasks", "seconds", "MB/s", "peak MB", "model MB",
                           "(peak-model)/file");
  for (const InputBenchRow& r : rows)
    std::cout << fmt::format(
        "{:<9} {:>10.1f} {:>9} {:>9.3f} {:>9.1f} {:>10.1f} {:>10.1f} {:>14.2f}\n", r.format,
        static_cast<double>(r.file_bytes) / 1e6, r.tasks, r.seconds, r.megabytes_per_second,
        r.peak_megabytes, r.model_megabytes, r.peak_over_file_size);
}

}  // namespace

void add_bench_input_command(CLI::App& bench) {
  auto options = std::make_shared<BenchInputOptions>();
  CLI::App* command = bench.add_subcommand(
      "input", "reading big input files: MB/s and peak memory, YAML, JSON and WfCommons");
  command->add_option("--tasks", options->params.tasks, "tasks of the generated workload")
      ->capture_default_str()
      ->check(finite_range(100, 20'000'000));
  command
      ->add_option("--workflow-tasks", options->params.workflow_tasks,
                   "tasks of the generated WfCommons instance")
      ->capture_default_str()
      ->check(finite_range(100, 5'000'000));
  command->add_option("--format", options->format, "table or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([options] { run_bench_input(*options); });
}

}  // namespace hetsched::cli
