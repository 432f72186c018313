#include "scaling_benchmark.hpp"

#include <algorithm>
#include <cmath>

#include "hetsched/core/rng.hpp"
#include "hetsched/stream/alibaba_trace.hpp"

namespace hetsched {

std::uint32_t peak_provisioned_nodes(const DailyTraffic& traffic, const NodeType& node,
                                     double target_utilization) {
  return static_cast<std::uint32_t>(std::ceil(traffic.peak_rate() * traffic.mean_service_seconds /
                                              (node.slots * target_utilization)));
}

ScalingBenchmarkResult run_scaling_benchmark(const ScalingBenchmarkParams& p) {
  p.autoscaler.validate();
  ScalingBenchmarkResult r;
  r.static_nodes = peak_provisioned_nodes(p.traffic, p.node, p.autoscaler.target_utilization);
  AutoscalerConfig config = p.autoscaler;
  config.mode = ScalingMode::static_peak;
  config.static_nodes = std::min(std::max(r.static_nodes, config.min_nodes), config.max_nodes);
  r.static_peak = simulate_elastic_pool(p.traffic, p.node, config, p.slo_wait_seconds, p.seed);
  config.mode = ScalingMode::reactive;
  r.reactive = simulate_elastic_pool(p.traffic, p.node, config, p.slo_wait_seconds, p.seed);
  config.mode = ScalingMode::predictive;
  config.forecaster = ForecasterKind::holt_winters;
  r.predictive = simulate_elastic_pool(p.traffic, p.node, config, p.slo_wait_seconds, p.seed);
  config.forecaster = ForecasterKind::boosted_trees;
  r.predictive_learned =
      simulate_elastic_pool(p.traffic, p.node, config, p.slo_wait_seconds, p.seed);
  r.reactive_cost_vs_static = r.reactive.cost_usd / r.static_peak.cost_usd;
  r.predictive_cost_vs_static = r.predictive.cost_usd / r.static_peak.cost_usd;
  r.predictive_learned_cost_vs_static = r.predictive_learned.cost_usd / r.static_peak.cost_usd;

  const std::vector<double> series =
      arrivals_per_bin(p.traffic, p.autoscaler.forecast_bin_seconds, p.seed);
  const auto season =
      static_cast<std::size_t>(p.autoscaler.season_seconds / p.autoscaler.forecast_bin_seconds);
  r.forecast_bins_ahead = predictive_lookahead_bins(p.node, p.autoscaler);
  const std::size_t first_scored =
      std::max(forecaster_warm_up_bins(ForecasterKind::holt_winters, season),
               forecaster_warm_up_bins(ForecasterKind::boosted_trees, season));
  r.holt_winters_accuracy = evaluate_forecaster(ForecasterKind::holt_winters, series, season,
                                                r.forecast_bins_ahead, first_scored, p.seed);
  r.boosted_accuracy = evaluate_forecaster(ForecasterKind::boosted_trees, series, season,
                                           r.forecast_bins_ahead, first_scored, p.seed);
  return r;
}

std::vector<double> alibaba_hourly_rate_profile(const std::string& data_dir) {
  std::vector<double> arrivals;
  for (const AlibabaPod& pod :
       load_alibaba_pods(data_dir + "/alibaba-gpu-2023/openb_pod_list_default.csv"))
    arrivals.push_back(pod.creation_seconds);
  return arrival_rate_profile(std::move(arrivals), 3600);
}

std::vector<double> arrivals_per_bin(const DailyTraffic& traffic, double bin_seconds,
                                     std::uint64_t seed) {
  std::vector<double> bins(
      static_cast<std::size_t>(std::ceil(traffic.duration_seconds() / bin_seconds)), 0.0);
  Rng rng(seed);  // as the pool seeds its arrivals: the same arrivals it serves
  for (double t = next_traffic_arrival(traffic, 0.0, rng); std::isfinite(t);
       t = next_traffic_arrival(traffic, t, rng))
    bins[std::min(bins.size() - 1, static_cast<std::size_t>(t / bin_seconds))] += 1;
  return bins;
}

}  // namespace hetsched
