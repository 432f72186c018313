#include "scaling_benchmark.hpp"

#include <cmath>

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
  r.predictive = simulate_elastic_pool(p.traffic, p.node, config, p.slo_wait_seconds, p.seed);
  r.reactive_cost_vs_static = r.reactive.cost_usd / r.static_peak.cost_usd;
  r.predictive_cost_vs_static = r.predictive.cost_usd / r.static_peak.cost_usd;
  return r;
}

}  // namespace hetsched
