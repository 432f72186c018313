#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/runtime/calibration.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct CalibrateOptions {
  std::string out = "hetsched-perf-model.json";
  std::string measurements;  // every timed run, for hetsched fit-predictor
  unsigned repetitions = 3;
  bool quick = false;
  bool no_opencl = false;
  bool no_cuda = false;
  std::vector<std::string> kernels;
  std::string format = "table";
  bool quiet = false;
};

void run_calibrate(const CalibrateOptions& options) {
  CalibrationOptions calibration;
  calibration.repetitions = options.repetitions;
  calibration.quick = options.quick;
  for (const std::string& name : options.kernels) {
    const auto kernel = parse_kernel_id(name);
    if (!kernel || *kernel == KernelId::empty)
      throw InputError("--kernel: " + unknown_name_message("kernel", name, kernel_id_names()));
    calibration.kernels.push_back(*kernel);
  }
  if (!options.quiet && isatty(STDERR_FILENO))  // progress on a terminal only
    calibration.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  LocalDevices devices(
      LocalDevicesOptions{1, !options.no_opencl, true, !options.no_opencl && !options.no_cuda});
  if (!devices.notice().empty()) std::cerr << "hetsched: " << devices.notice() << "\n";
  RooflineModel roofline(devices.cluster());
  HistoryRegressionModel model(devices.cluster(), roofline);
  const CalibrationReport report = calibrate(devices, model, calibration);
  model.save(options.out, devices.fingerprint());
  if (!options.measurements.empty())
    write_measurements(options.measurements, devices.fingerprint(), report.measurements);
  if (options.format == "json") {
    nlohmann::ordered_json out;
    out["file"] = options.out;
    out["median_relative_error"] = report.median_relative_error;
    out["p95_relative_error"] = report.p95_relative_error;
    out["fits"] = nlohmann::ordered_json::array();
    for (const CalibrationFit& f : report.fits)
      out["fits"].push_back({{"kernel", f.kernel},
                             {"device", f.device_model},
                             {"samples", f.samples},
                             {"held_out_sizes", f.held_out_sizes},
                             {"median_relative_error", f.median_relative_error},
                             {"p95_relative_error", f.p95_relative_error},
                             {"failure", f.failure}});
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{:<10} {:<50} {:>7} {:>9} {:>9}\n", "kernel", "device", "samples",
                           "median", "p95");
  for (const CalibrationFit& f : report.fits) {
    if (!f.failure.empty()) {
      std::cout << fmt::format("{:<10} {:<50} failed: {}\n", f.kernel, f.device_model.substr(0, 50),
                               f.failure);
      continue;
    }
    std::cout << fmt::format("{:<10} {:<50} {:>7} {:>8.1f}% {:>8.1f}%\n", f.kernel,
                             f.device_model.substr(0, 50), f.samples, 100 * f.median_relative_error,
                             100 * f.p95_relative_error);
  }
  std::cout << fmt::format(
      "\nregression error on held-out sizes: median {:.1f}%, p95 {:.1f}%\nmodel written to {}\n",
      100 * report.median_relative_error, 100 * report.p95_relative_error, options.out);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate", "measure every kernel on every local device and fit the learned perf model");
  command->add_option("--out", options->out, "calibration file to write")->capture_default_str();
  command->add_option("--measurements", options->measurements,
                      "also write every timed run to this file (for hetsched fit-predictor)");
  command->add_option("--repetitions", options->repetitions, "timed runs per size")
      ->capture_default_str()
      ->check(finite_range(1, 100));
  command->add_option("--kernel", options->kernels,
                      "kernel to calibrate (repeatable); default: all");
  command->add_flag("--quick", options->quick, "small sizes only");
  command->add_flag("--no-opencl", options->no_opencl, "CPU workers only");
  command->add_flag("--no-cuda", options->no_cuda, "no CUDA workers");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_calibrate(*options); });
}

}  // namespace hetsched::cli
