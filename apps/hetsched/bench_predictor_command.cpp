#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "predictor_benchmark.hpp"
#include "predictor_options.hpp"

namespace hetsched::cli {
namespace {

struct BenchPredictorOptions {
  PredictorBenchmarkParams params{"data/measurements/epyc-pocl-calibration.json", {}};
  std::string format = "table";
};

void run_bench_predictor(const BenchPredictorOptions& options) {
  const PredictorBenchmarkResult r = run_predictor_benchmark(options.params);
  if (options.format == "json") {
    nlohmann::ordered_json out{{"measurements", r.measurements},
                               {"settings", nlohmann::ordered_json::array()}};
    for (const PredictorSetting& s : r.settings) {
      nlohmann::ordered_json models = nlohmann::ordered_json::object();
      for (const ModelErrors& m : s.models) {
        models[m.model] = {{"median_relative_error", m.errors.median},
                           {"p95_relative_error", m.errors.p95}};
        if (m.model == "boosted-trees")
          models[m.model]["interval_coverage"] = m.errors.interval_coverage;
      }
      out["settings"].push_back(
          {{"name", s.name}, {"fitted", s.fitted}, {"predicted", s.predicted}, {"models", models}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} measurements from {}\n", r.measurements,
                           options.params.measurements);
  for (const PredictorSetting& s : r.settings) {
    std::cout << fmt::format("\n{} ({} predicted from {} fitted)\n", s.name, s.predicted, s.fitted);
    std::cout << fmt::format("  {:<20} {:>8} {:>8} {:>10}\n", "model", "median", "p95",
                             "in 95% CI");
    for (const ModelErrors& m : s.models)
      std::cout << fmt::format("  {:<20} {:>7.1f}% {:>7.1f}% {:>10}\n", m.model,
                               100 * m.errors.median, 100 * m.errors.p95,
                               m.model == "boosted-trees"
                                   ? fmt::format("{:.0f}%", 100 * m.errors.interval_coverage)
                                   : std::string("-"));
  }
}

}  // namespace

void add_bench_predictor_command(CLI::App& bench) {
  auto options = std::make_shared<BenchPredictorOptions>();
  CLI::App* command = bench.add_subcommand(
      "predictor",
      "the learned run-time predictor against the roofline and history regression, held out");
  command->add_option("--measurements", options->params.measurements, "measurement file")
      ->capture_default_str();
  add_predictor_fit_options(command, options->params.fit);
  command->add_option("--format", options->format, "output on stdout")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->callback([options] { run_bench_predictor(*options); });
}

}  // namespace hetsched::cli
