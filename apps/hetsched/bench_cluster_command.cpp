#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench_report_folder.hpp"
#include "cluster_benchmark.hpp"
#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/stream/stream_policy.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct BenchClusterOptions {
  ClusterBenchParams params;
  std::string format = "table";
  bool quiet = false;
};

nlohmann::ordered_json spread_json(const SeedSpread& spread) {
  return {
      {"mean", spread.mean}, {"stddev", spread.stddev}, {"min", spread.min}, {"max", spread.max}};
}

// Per-seed figures of a row and their spread (agnostic, aware, ratio).
nlohmann::ordered_json seeds_json(const GavelContinuousRow& row) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  std::vector<double> agnostic, aware, ratio;
  for (const auto& run : row.seed_runs) {
    runs.push_back({{"seed", run.seed},
                    {"agnostic_avg_jct_hours", run.agnostic_avg_jct_hours},
                    {"aware_avg_jct_hours", run.aware_avg_jct_hours}});
    agnostic.push_back(run.agnostic_avg_jct_hours);
    aware.push_back(run.aware_avg_jct_hours);
    ratio.push_back(run.agnostic_avg_jct_hours / run.aware_avg_jct_hours);
  }
  return {{"runs", runs},
          {"agnostic_avg_jct_hours", spread_json(seed_spread(agnostic))},
          {"aware_avg_jct_hours", spread_json(seed_spread(aware))},
          {"ratio", spread_json(seed_spread(ratio))}};
}

nlohmann::ordered_json share_json(const GpuShareResult& r) {
  return {{"policy", r.policy},
          {"placed_fraction", r.placed_fraction},
          {"fragmentation", r.fragmentation},
          {"fragmented_milli_gpus", r.fragmented_milli_gpus},
          {"avg_wait_seconds", r.avg_wait_seconds},
          {"gpu_pods", r.gpu_pods},
          {"placed_gpu_pods", r.placed_gpu_pods}};
}

// The arrival rates (jobs/h) Gavel published figures for, which the benchmark reproduces.
constexpr double kPublishedRates[] = {4.0, 4.8, 5.6, 2.6, 2.8};

void run_bench_cluster(BenchClusterOptions options, BenchReportFolder& report) {
  if (report.wanted() && !options.params.static_cases)
    throw InputError("--out draws the static 100-job case, and --no-static leaves it out");
  // Everything a user can get wrong is checked before the first simulation.
  (void)make_stream_policy(options.params.aware_policy);
  for (double rate : options.params.rates)
    if (std::none_of(std::begin(kPublishedRates), std::end(kPublishedRates),
                     [&](double published) { return std::abs(published - rate) < 1e-9; }))
      throw InputError(
          fmt::format("--rate: no published figures for {} jobs/h; the rates are 4.0, 4.8 and 5.6 "
                      "(single-GPU jobs) and 2.6 and 2.8 (multi-GPU jobs)",
                      rate));
  if (options.params.data_dir.empty()) options.params.data_dir = "data";
  if (!options.quiet && isatty(STDERR_FILENO))  // progress on a terminal only
    options.params.progress = [](const std::string& what) {
      std::cerr << "bench cluster: " << what << "\n";
    };
  options.params.report_runs = report.stream_runs(
      "hetsched bench cluster: Gavel's static 100-job trace, fifo against "
      "aware-min-makespan");
  const ClusterBenchResult r = run_cluster_benchmark(options.params);
  report.finish(options.format == "table");
  if (options.format == "json") {
    nlohmann::ordered_json out;
    out["gavel"] = nlohmann::ordered_json::array();
    for (const auto& row : r.gavel)
      out["gavel"].push_back(
          {{"trace", row.trace},
           {"rate_jobs_per_hour", row.rate_jobs_per_hour},
           {"agnostic_avg_jct_hours", row.agnostic_avg_jct_hours},
           {"aware_avg_jct_hours", row.aware_avg_jct_hours},
           {"published_agnostic", row.published_agnostic},
           {"published_aware", row.published_aware},
           {"measured_jobs", row.measured_jobs},
           {"agnostic_wall_seconds", row.agnostic_wall_seconds},
           {"aware_wall_seconds", row.aware_wall_seconds},
           {"aware_policy", row.aware_policy},
           {"aware_las_avg_jct_hours", row.aware_las_avg_jct_hours},
           {"aware_space_sharing_avg_jct_hours", row.aware_space_sharing_avg_jct_hours},
           {"published_aware_space_sharing", row.published_aware_space_sharing},
           {"agnostic_ftf_rho_average", row.agnostic_ftf_rho_average},
           {"aware_ftf_rho_average", row.aware_ftf_rho_average},
           {"agnostic_jain", row.agnostic_jain},
           {"aware_jain", row.aware_jain},
           {"run_time_bound_hours", row.run_time_bound_hours},
           {"aware_avg_wait_hours", row.aware_avg_wait_hours},
           {"aware_migrations_per_job", row.aware_migrations_per_job},
           {"seeds", seeds_json(row)}});
    out["makespan"] = nlohmann::ordered_json::array();
    for (const auto& row : r.makespan)
      out["makespan"].push_back({{"jobs", row.jobs},
                                 {"fifo_hours", row.fifo_hours},
                                 {"aware_hours", row.aware_hours},
                                 {"published_fifo", row.published_fifo},
                                 {"published_aware", row.published_aware}});
    out["alibaba"] = nlohmann::ordered_json::array();
    for (const auto& row : r.alibaba) out["alibaba"].push_back(share_json(row));
    out["alibaba_packing"] = nlohmann::ordered_json::array();
    for (const auto& row : r.alibaba_packing) out["alibaba_packing"].push_back(share_json(row));
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format(
      "Gavel setting: 36 V100 + 36 P100 + 36 K80, jobs {}-{} measured, average JCT in hours\n"
      "agnostic: las; aware: {}\n",
      r.measure_first, r.measure_last, r.gavel.empty() ? "" : r.gavel.front().aware_policy);
  std::cout << fmt::format("{:<11} {:>8} {:>10} {:>10} {:>7} {:>10} {:>10} {:>7} {:>9}\n", "trace",
                           "jobs/h", "agnostic", "aware", "ratio", "Gavel ag.", "Gavel aw.",
                           "ratio", "wall s");
  for (const auto& row : r.gavel)
    std::cout << fmt::format(
        "{:<11} {:>8.1f} {:>10.2f} {:>10.2f} {:>6.2f}x {:>10.2f} {:>10.2f} {:>6.2f}x {:>9.1f}\n",
        row.trace, row.rate_jobs_per_hour, row.agnostic_avg_jct_hours, row.aware_avg_jct_hours,
        row.agnostic_avg_jct_hours / row.aware_avg_jct_hours, row.published_agnostic,
        row.published_aware, row.published_agnostic / row.published_aware,
        row.agnostic_wall_seconds + row.aware_wall_seconds);
  if (options.params.seeds > 1) {
    std::cout << fmt::format(
        "\nOver {} seeds from {}: mean +- sample standard deviation [min, max]\n",
        options.params.seeds, options.params.seed);
    std::cout << fmt::format("{:<11} {:>8} {:>28} {:>28} {:>24}\n", "trace", "jobs/h", "agnostic",
                             "aware", "ratio");
    for (const auto& row : r.gavel) {
      std::vector<double> agnostic, aware, ratio;
      for (const auto& run : row.seed_runs) {
        agnostic.push_back(run.agnostic_avg_jct_hours);
        aware.push_back(run.aware_avg_jct_hours);
        ratio.push_back(run.agnostic_avg_jct_hours / run.aware_avg_jct_hours);
      }
      auto show = [](const SeedSpread& s) {
        return fmt::format("{:.2f} +- {:.2f} [{:.2f}, {:.2f}]", s.mean, s.stddev, s.min, s.max);
      };
      std::cout << fmt::format("{:<11} {:>8.1f} {:>28} {:>28} {:>24}\n", row.trace,
                               row.rate_jobs_per_hour, show(seed_spread(agnostic)),
                               show(seed_spread(aware)), show(seed_spread(ratio)));
    }
  }
  std::cout << "\nReference runs and fairness (rho: Themis finish-time fairness, average)\n";
  std::cout << fmt::format("{:<11} {:>8} {:>10} {:>10} {:>11} {:>8} {:>8} {:>8} {:>8}\n", "trace",
                           "jobs/h", "aware-las", "aware+SS", "Gavel SS", "rho ag.", "rho aw.",
                           "Jain ag.", "Jain aw.");
  for (const auto& row : r.gavel)
    std::cout << fmt::format(
        "{:<11} {:>8.1f} {:>10} {:>10} {:>11} {:>8.2f} {:>8.2f} {:>8.3f} {:>8.3f}\n", row.trace,
        row.rate_jobs_per_hour,
        row.aware_las_avg_jct_hours > 0 ? fmt::format("{:.2f}", row.aware_las_avg_jct_hours) : "-",
        row.aware_space_sharing_avg_jct_hours > 0
            ? fmt::format("{:.2f}", row.aware_space_sharing_avg_jct_hours)
            : "-",
        row.published_aware_space_sharing > 0
            ? fmt::format("{:.2f}", row.published_aware_space_sharing)
            : "-",
        row.agnostic_ftf_rho_average, row.aware_ftf_rho_average, row.agnostic_jain, row.aware_jain);
  std::cout << "\nStatic multi-GPU traces, makespan in hours\n";
  std::cout << fmt::format("{:>6} {:>10} {:>10} {:>12} {:>12}\n", "jobs", "fifo", "aware",
                           "Gavel fifo", "Gavel aware");
  for (const auto& row : r.makespan)
    std::cout << fmt::format("{:>6} {:>10.1f} {:>10.1f} {:>12.1f} {:>12.1f}\n", row.jobs,
                             row.fifo_hours, row.aware_hours, row.published_fifo,
                             row.published_aware);
  std::cout << "\nAlibaba GPU trace (1,213 nodes, 8,152 pods)\n";
  std::cout << fmt::format("{:<21} {:>8} {:>9} {:>13} {:>10} | {:>14} {:>9}\n", "placement",
                           "placed", "frag.", "frag. mGPU", "wait s", "packing placed", "frag.");
  for (std::size_t i = 0; i < r.alibaba.size(); ++i)
    std::cout << fmt::format(
        "{:<21} {:>7.2f}% {:>8.2f}% {:>13.0f} {:>10.1f} | {:>13.2f}% {:>8.2f}%\n",
        r.alibaba[i].policy, 100 * r.alibaba[i].placed_fraction, 100 * r.alibaba[i].fragmentation,
        r.alibaba[i].fragmented_milli_gpus, r.alibaba[i].avg_wait_seconds,
        100 * r.alibaba_packing[i].placed_fraction, 100 * r.alibaba_packing[i].fragmentation);
}

}  // namespace

void add_bench_cluster_command(CLI::App& bench) {
  auto options = std::make_shared<BenchClusterOptions>();
  CLI::App* command = bench.add_subcommand(
      "cluster", "job-stream scheduling against Gavel's published figures and the Alibaba trace");
  command->add_option(
      "--data", options->params.data_dir,
      "folder with gavel/ and alibaba-gpu-2023/ (default data, the repository's data/ "
      "when run from its root)");
  command->add_flag("--quick", options->params.quick,
                    "a faster subset: 3 rates, jobs 1000-1250 measured, no 700-job case");
  command->add_option("--seed", options->params.seed, "seed of the job generator")
      ->capture_default_str();
  command
      ->add_option("--seeds", options->params.seeds,
                   "run the continuous rates with this many seeds (from --seed) and report "
                   "their mean and spread")
      ->check(finite_range(1, 100))
      ->capture_default_str();
  command
      ->add_option("--migration-seconds", options->params.migration_seconds,
                   "checkpoint/restart time charged when a job moves")
      ->capture_default_str();
  command
      ->add_option("--aware-policy", options->params.aware_policy,
                   "our heterogeneity-aware stream policy")
      ->capture_default_str();
  command->add_option("--rate", options->params.rates,
                      "only these arrival rates in jobs/h (4.0, 4.8, 5.6, 2.6, 2.8)");
  command->add_flag("--no-static{false}", options->params.static_cases,
                    "skip the static 100- and 700-job makespan cases");
  command->add_flag("--no-alibaba{false}", options->params.alibaba,
                    "skip the Alibaba placement runs");
  command->add_flag("--no-reference{false}", options->params.reference_runs,
                    "skip Gavel's aware-las and the space-sharing runs");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  auto report = std::make_shared<BenchReportFolder>(
      *command, "the static 100-job case under fifo and aware-min-makespan");
  command->callback([options, report] { run_bench_cluster(*options, *report); });
}

}  // namespace hetsched::cli
