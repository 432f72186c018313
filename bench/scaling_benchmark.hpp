// The autoscaling benchmark (`hetsched bench scaling`): the same seeded requests
// with a daily pattern served by a pool sized for the peak all the time, by the
// reactive autoscaler and by the predictive one; cost and SLO violations of each.
// Goal: predictive at least 30 % cheaper than static peak with no more SLO
// violations than reactive.
#pragma once

#include <cstdint>

#include "hetsched/scaling/elastic_pool.hpp"

namespace hetsched {

struct ScalingBenchmarkParams {
  DailyTraffic traffic;
  NodeType node;
  AutoscalerConfig autoscaler;  // mode ignored: each mode is run
  double slo_wait_seconds = 60;
  std::uint64_t seed = 1;
};

struct ScalingBenchmarkResult {
  std::uint32_t static_nodes = 0;
  ElasticPoolResult static_peak, reactive, predictive;
  double reactive_cost_vs_static = 0;
  double predictive_cost_vs_static = 0;
};

// Nodes needed for the peak rate at the target utilisation.
std::uint32_t peak_provisioned_nodes(const DailyTraffic& traffic, const NodeType& node,
                                     double target_utilization);

ScalingBenchmarkResult run_scaling_benchmark(const ScalingBenchmarkParams& params);

}  // namespace hetsched
