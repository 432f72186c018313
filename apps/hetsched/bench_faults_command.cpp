#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench_report_folder.hpp"
#include "commands.hpp"
#include "fault_benchmark.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct BenchFaultsOptions {
  FaultBenchmarkParams params;
  std::string format = "table";
  bool quiet = false;
};

void run_bench_faults(BenchFaultsOptions options, BenchReportFolder& report) {
  for (double m : options.params.mtbf_hours)
    if (!(m > 0))
      throw InputError(fmt::format("--mtbf-hours: MTBF must be more than 0 hours, got {}", m));
  if (!(options.params.sweep_mtbf_hours > 0))
    throw InputError(fmt::format("--sweep-mtbf-hours: MTBF must be more than 0 hours, got {}",
                                 options.params.sweep_mtbf_hours));
  Progress progress("bench faults", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  options.params.report_runs = report.sim_runs(fmt::format(
      "hetsched bench faults: {} long tasks of {} h with MTBF {} h, under each fault-tolerance "
      "mode",
      options.params.long_tasks, options.params.task_hours, report_mtbf_hours(options.params)));
  const FaultBenchmarkResult r = run_fault_benchmark(options.params);
  report.finish(options.format == "table");
  if (options.format == "json") {
    nlohmann::ordered_json table = nlohmann::ordered_json::array();
    for (const GoodputRow& row : r.goodput)
      table.push_back({{"mtbf_hours", row.mtbf_hours},
                       {"mode", row.mode},
                       {"goodput", row.goodput},
                       {"makespan_hours", row.makespan_hours},
                       {"completed_fraction", row.completed_fraction},
                       {"interval_seconds", row.interval_seconds}});
    nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
    for (const SweepPoint& s : r.sweep)
      sweep.push_back({{"interval_seconds", s.interval_seconds}, {"goodput", s.goodput}});
    nlohmann::ordered_json prediction = nlohmann::ordered_json::array();
    for (const PredictionRow& row : r.prediction)
      prediction.push_back({{"checkpoint", row.checkpoint},
                            {"alarms", row.alarms},
                            {"true_alarms", row.true_alarms},
                            {"crashes", row.crashes},
                            {"predicted_crashes", row.predicted_crashes},
                            {"precision", row.precision},
                            {"recall", row.recall},
                            {"mean_lead_seconds", row.mean_lead_seconds},
                            {"lost_device_hours_without", row.lost_hours_without},
                            {"lost_device_hours_with", row.lost_hours_with},
                            {"work_saved_device_hours", row.work_saved_hours},
                            {"in_flight_saved_device_hours", row.in_flight_saved_hours},
                            {"goodput_without", row.goodput_without},
                            {"goodput_with", row.goodput_with},
                            {"makespan_hours_without", row.makespan_hours_without},
                            {"makespan_hours_with", row.makespan_hours_with}});
    // The headline predictor figures: the run with Daly checkpoints (the last row).
    const PredictionRow headline = r.prediction.empty() ? PredictionRow{} : r.prediction.back();
    nlohmann::ordered_json out{{"runs", r.runs},
                               {"tasks", r.tasks},
                               {"lost_tasks", r.lost_tasks},
                               {"jobs", r.jobs},
                               {"jobs_failed_with_reason", r.jobs_failed_with_reason},
                               {"failures_injected", r.failures_injected},
                               {"retries", r.retries},
                               {"daly_interval_seconds", r.daly_interval_seconds},
                               {"daly_goodput", r.daly_goodput},
                               {"best_interval_seconds", r.best_interval_seconds},
                               {"best_goodput", r.best_goodput},
                               {"daly_interval_vs_best", r.daly_interval_vs_best},
                               {"goodput_table", table},
                               {"interval_sweep", sweep},
                               {"predictor_precision", headline.precision},
                               {"predictor_recall", headline.recall},
                               {"predictor_mean_lead_seconds", headline.mean_lead_seconds},
                               {"predictor_work_saved_device_hours", headline.work_saved_hours},
                               {"prediction", prediction}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format(
      "{} seeded runs of the default workload on the default cluster with random failures\n"
      "  tasks {}, failures injected {}, retries {}\n"
      "  lost tasks {} (must be 0); jobs ended with a reason {} of {}\n\n",
      r.runs, r.tasks, r.failures_injected, r.retries, r.lost_tasks, r.jobs_failed_with_reason,
      r.jobs);
  std::cout << fmt::format(
      "goodput (useful / busy device-seconds) of {} tasks of {} h on 8 H100s\n",
      options.params.long_tasks, options.params.task_hours);
  std::cout << fmt::format("{:>10}  {:>14}  {:>8}  {:>14}  {:>10}  {:>12}\n", "MTBF (h)", "mode",
                           "goodput", "makespan (h)", "completed", "interval (s)");
  for (const GoodputRow& row : r.goodput)
    std::cout << fmt::format("{:>10g}  {:>14}  {:>8.4f}  {:>14.2f}  {:>9.0f}%  {:>12.0f}\n",
                             row.mtbf_hours, row.mode, row.goodput, row.makespan_hours,
                             100 * row.completed_fraction, row.interval_seconds);
  std::cout << fmt::format("\ncheckpoint interval sweep at MTBF {} h\n",
                           options.params.sweep_mtbf_hours);
  for (const SweepPoint& s : r.sweep)
    std::cout << fmt::format("  interval {:>8.0f} s  goodput {:.4f}\n", s.interval_seconds,
                             s.goodput);
  std::cout << fmt::format(
      "  Daly {:.0f} s: goodput {:.4f}; best {:.0f} s: {:.4f}; Daly / best = {:.4f}\n",
      r.daly_interval_seconds, r.daly_goodput, r.best_interval_seconds, r.best_goodput,
      r.daly_interval_vs_best);
  std::cout << fmt::format(
      "\nfailure prediction from telemetry (CUSUM on correctable errors, EWMA of the "
      "temperature residual) at MTBF {} h, same failures without and with it\n",
      options.params.sweep_mtbf_hours);
  std::cout << fmt::format("{:>10}  {:>7}  {:>7}  {:>9}  {:>6}  {:>8}  {:>15}  {:>15}  {:>15}\n",
                           "checkpoint", "alarms", "crashes", "precision", "recall", "lead (s)",
                           "lost dev-h w/o", "lost dev-h with", "goodput w/o→with");
  for (const PredictionRow& row : r.prediction)
    std::cout << fmt::format(
        "{:>10}  {:>7}  {:>7}  {:>9.3f}  {:>6.3f}  {:>8.0f}  {:>15.2f}  {:>15.2f}  "
        "{:>7.4f}→{:.4f}\n",
        row.checkpoint, row.alarms, row.crashes, row.precision, row.recall, row.mean_lead_seconds,
        row.lost_hours_without, row.lost_hours_with, row.goodput_without, row.goodput_with);
  for (const PredictionRow& row : r.prediction)
    std::cout << fmt::format(
        "  checkpoints {}: work saved {:.2f} device-hours per run ({:.2f} in flight at true "
        "alarms); makespan {:.2f} h → {:.2f} h\n",
        row.checkpoint, row.work_saved_hours, row.in_flight_saved_hours, row.makespan_hours_without,
        row.makespan_hours_with);
}

}  // namespace

void add_bench_faults_command(CLI::App& bench) {
  auto options = std::make_shared<BenchFaultsOptions>();
  CLI::App* command = bench.add_subcommand(
      "faults", "fault tolerance: nothing lost over seeded runs, goodput against MTBF, Daly");
  command->add_option("--runs", options->params.runs, "seeded runs with random failures")
      ->capture_default_str()
      ->check(finite_range(0, 1'000'000));
  command->add_option("--seeds", options->params.seeds_per_cell, "seeds per goodput cell")
      ->capture_default_str()
      ->check(finite_range(1, 100'000));
  command->add_option("--mtbf-hours", options->params.mtbf_hours, "device MTBFs of the table")
      ->capture_default_str();
  command
      ->add_option("--sweep-mtbf-hours", options->params.sweep_mtbf_hours,
                   "device MTBF of the interval sweep")
      ->capture_default_str();
  command->add_option("--seed", options->params.seed, "seed")->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  auto report = std::make_shared<BenchReportFolder>(
      *command, "the goodput table's first seed under each mode at the sweep's MTBF");
  command->callback([options, report] { run_bench_faults(*options, *report); });
}

}  // namespace hetsched::cli
