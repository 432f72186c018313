#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/perf/runtime_predictor.hpp"
#include "predictor_options.hpp"

namespace hetsched::cli {
namespace {

struct FitPredictorOptions {
  std::vector<std::string> measurements;
  std::string out = "hetsched-predictor.json";
  RuntimePredictorOptions fit;
  std::string format = "table";
};

void run_fit_predictor(const FitPredictorOptions& options) {
  std::vector<RuntimeMeasurement> measurements;
  for (const std::string& path : options.measurements) {
    std::vector<RuntimeMeasurement> more = read_measurements(path);
    measurements.insert(measurements.end(), more.begin(), more.end());
  }
  const RuntimePredictor predictor = RuntimePredictor::fit(measurements, options.fit);
  predictor.save(options.out);
  const PredictionErrors& cv = predictor.cross_validation();
  if (options.format == "json") {
    std::cout << nlohmann::ordered_json{{"file", options.out},
                                        {"measurements", predictor.measurement_count()},
                                        {"cross_validated_median_relative_error", cv.median},
                                        {"cross_validated_p95_relative_error", cv.p95},
                                        {"interval_coverage", cv.interval_coverage}}
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format(
      "fitted on {} measurements; cross-validated error (every size predicted by trees that "
      "never saw it): median {:.1f} %, p95 {:.1f} %; {:.0f} % inside the 95 % intervals\n"
      "predictor written to {} (use it with hetsched run --predictor)\n",
      predictor.measurement_count(), 100 * cv.median, 100 * cv.p95, 100 * cv.interval_coverage,
      options.out);
}

}  // namespace

void add_fit_predictor_command(CLI::App& app) {
  auto options = std::make_shared<FitPredictorOptions>();
  CLI::App* command = app.add_subcommand(
      "fit-predictor",
      "learn run times from measured executions (gradient-boosted trees, with uncertainty)");
  command
      ->add_option("--measurements", options->measurements,
                   "measurement file (hetsched calibrate or run --measurements); repeatable")
      ->required();
  command->add_option("--out", options->out, "predictor file to write")->capture_default_str();
  add_predictor_fit_options(command, options->fit);
  command->add_option("--format", options->format, "output on stdout")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->callback([options] { run_fit_predictor(*options); });
}

}  // namespace hetsched::cli
