#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "option_checks.hpp"
#include "scaling_benchmark.hpp"

namespace hetsched::cli {
namespace {

struct BenchScalingOptions {
  ScalingBenchmarkParams params;
  std::string traffic = "sine";
  std::string data_dir = "data";
  std::string format = "table";
};

nlohmann::ordered_json accuracy_json(const ForecastAccuracy& a) {
  return {{"mape", a.mape}, {"wape", a.wape}, {"forecasts", a.forecasts}};
}

nlohmann::ordered_json mode_json(const ElasticPoolResult& r) {
  return {{"cost_usd", r.cost_usd},
          {"slo_violations", r.slo_violations},
          {"requests", r.requests},
          {"completed", r.completed},
          {"mean_wait_seconds", r.mean_wait_seconds},
          {"p99_wait_seconds", r.p99_wait_seconds},
          {"node_hours", r.node_hours},
          {"mean_nodes", r.mean_nodes},
          {"peak_nodes", r.peak_nodes},
          {"nodes_started", r.nodes_started},
          {"drains", r.drains},
          {"revocations", r.revocations},
          {"requeued_requests", r.requeued_requests}};
}

void run_bench_scaling(BenchScalingOptions& options) {
  ScalingBenchmarkParams& p = options.params;
  if (options.traffic == "alibaba") {  // the shape of the trace's arrivals, hour by hour
    p.traffic.rate_profile = alibaba_hourly_rate_profile(options.data_dir);
    p.traffic.rate_profile_bin_seconds = 3600;
  }
  const ScalingBenchmarkResult r = run_scaling_benchmark(p);
  if (options.format == "json") {
    nlohmann::ordered_json out{
        {"traffic", options.traffic},
        {"days", p.traffic.duration_seconds() / 86400},
        {"static_nodes", r.static_nodes},
        {"predictive_cost_vs_static", r.predictive_cost_vs_static},
        {"predictive_learned_cost_vs_static", r.predictive_learned_cost_vs_static},
        {"reactive_cost_vs_static", r.reactive_cost_vs_static},
        {"slo_violations",
         {{"static", r.static_peak.slo_violations},
          {"reactive", r.reactive.slo_violations},
          {"predictive", r.predictive.slo_violations},
          {"predictive_learned", r.predictive_learned.slo_violations}}},
        {"forecast_accuracy",
         {{"bins_ahead", r.forecast_bins_ahead},
          {"holt_winters", accuracy_json(r.holt_winters_accuracy)},
          {"boosted_trees", accuracy_json(r.boosted_accuracy)}}},
        {"modes",
         {{"static", mode_json(r.static_peak)},
          {"reactive", mode_json(r.reactive)},
          {"predictive", mode_json(r.predictive)},
          {"predictive_learned", mode_json(r.predictive_learned)}}}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (options.traffic == "alibaba")
    std::cout << fmt::format(
        "{:.1f} days of requests shaped like the Alibaba GPU trace's arrivals per hour (mean {} "
        "/s, service {} s)",
        p.traffic.duration_seconds() / 86400, p.traffic.mean_rate_per_second,
        p.traffic.mean_service_seconds);
  else
    std::cout << fmt::format("{} days of requests (mean {} /s, daily amplitude {}, service {} s)",
                             p.traffic.days, p.traffic.mean_rate_per_second, p.traffic.amplitude,
                             p.traffic.mean_service_seconds);
  std::cout << fmt::format(
      " on {}-slot nodes (${}/h, start-up {} s, billing minimum {} s); SLO: wait <= {} s\n",
      p.node.slots, p.node.price_per_hour, p.node.startup_seconds, p.node.billing_minimum_seconds,
      p.slo_wait_seconds);
  std::cout << fmt::format("{:>26}  {:>10}  {:>8}  {:>14}  {:>10}  {:>10}  {:>6}\n", "mode",
                           "cost ($)", "vs static", "SLO violations", "mean wait", "p99 wait",
                           "nodes");
  for (const auto& [name, m] :
       {std::pair{"static", &r.static_peak}, std::pair{"reactive", &r.reactive},
        std::pair{"predictive (holt-winters)", &r.predictive},
        std::pair{"predictive (boosted-trees)", &r.predictive_learned}})
    std::cout << fmt::format(
        "{:>26}  {:>10.2f}  {:>8.3f}  {:>14}  {:>9.2f}s  {:>9.2f}s  {:>6.1f}\n", name, m->cost_usd,
        m->cost_usd / r.static_peak.cost_usd, m->slo_violations, m->mean_wait_seconds,
        m->p99_wait_seconds, m->mean_nodes);
  std::cout << fmt::format("arrival forecasts 1..{} bins ahead, once both forecasters are warm:\n",
                           r.forecast_bins_ahead);
  for (const auto& [name, a] : {std::pair{"holt-winters", &r.holt_winters_accuracy},
                                std::pair{"boosted-trees", &r.boosted_accuracy}})
    std::cout << fmt::format("{:>26}  MAPE {:.1f} %, WAPE {:.1f} % ({} forecasts)\n", name,
                             100 * a->mape, 100 * a->wape, a->forecasts);
}

}  // namespace

void add_bench_scaling_command(CLI::App& bench) {
  auto options = std::make_shared<BenchScalingOptions>();
  ScalingBenchmarkParams& p = options->params;
  p.traffic.days = 7;  // a week: the learned forecaster needs three days before it answers
  CLI::App* command = bench.add_subcommand(
      "scaling", "autoscaling: cost and SLO violations of static, reactive and predictive pools");
  command->add_option("--days", p.traffic.days, "days of traffic")
      ->capture_default_str()
      ->check(finite_range(0.01, 365.0));
  command->add_option("--rate", p.traffic.mean_rate_per_second, "mean requests per second")
      ->capture_default_str()
      ->check(finite_positive);
  command->add_option("--min-nodes", p.autoscaler.min_nodes, "autoscaler minimum")
      ->capture_default_str();
  command->add_option("--max-nodes", p.autoscaler.max_nodes, "autoscaler maximum")
      ->capture_default_str();
  command
      ->add_option("--spot-fraction", p.autoscaler.spot_fraction,
                   "share of added nodes bought as spot")
      ->capture_default_str();
  command->add_option("--startup-seconds", p.node.startup_seconds, "node start-up delay")
      ->capture_default_str()
      ->check(finite_non_negative);
  command->add_option("--slo-wait-seconds", p.slo_wait_seconds, "SLO on queueing delay")
      ->capture_default_str()
      ->check(finite_non_negative);
  command
      ->add_option("--forecast-quantile", p.autoscaler.forecast_quantile,
                   "predictive pools size for the forecast raised by this quantile of actual / "
                   "forecast over the last day (0: the forecast as it is)")
      ->capture_default_str()
      ->check(finite_range(0, 1));
  command->add_option("--seed", p.seed, "seed")->capture_default_str();
  command
      ->add_option("--traffic", options->traffic,
                   "sine (a daily sine) or alibaba (the Alibaba GPU trace's arrivals per hour, "
                   "scaled to --rate; --days is then the trace's)")
      ->check(CLI::IsMember({"sine", "alibaba"}))
      ->capture_default_str();
  command->add_option("--data", options->data_dir, "the data folder (holds alibaba-gpu-2023/)")
      ->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([options] { run_bench_scaling(*options); });
}

}  // namespace hetsched::cli
