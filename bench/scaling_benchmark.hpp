// The autoscaling benchmark (`hetsched bench scaling`): the same seeded requests
// with a daily pattern served by a pool sized for the peak all the time, by the
// reactive autoscaler and by the predictive one; cost and SLO violations of each.
// Goal: predictive at least 30 % cheaper than static peak with no more SLO
// violations than reactive. The predictive pool runs once with each arrival forecaster
// (Holt-Winters, boosted trees), and each forecaster's error is measured on the traffic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetsched/scaling/elastic_pool.hpp"

namespace hetsched {

struct ScalingBenchmarkParams {
  DailyTraffic traffic;  // with a rate profile: the traffic follows it (e.g. a trace's)
  NodeType node;
  AutoscalerConfig autoscaler;  // mode ignored: each mode is run
  double slo_wait_seconds = 60;
  std::uint64_t seed = 1;
};

struct ScalingBenchmarkResult {
  std::uint32_t static_nodes = 0;
  // predictive: Holt-Winters forecasts; predictive_learned: boosted trees.
  ElasticPoolResult static_peak, reactive, predictive, predictive_learned;
  double reactive_cost_vs_static = 0;
  double predictive_cost_vs_static = 0;
  double predictive_learned_cost_vs_static = 0;
  // Each forecaster on the arrivals per forecast bin the pools saw, scored
  // 1..(the bins the autoscaler looks ahead) steps ahead once both are warm.
  ForecastAccuracy holt_winters_accuracy, boosted_accuracy;
  std::size_t forecast_bins_ahead = 0;
};

// The Alibaba GPU trace's pod arrivals per hour as a rate profile (arrival_rate_profile) of
// `data_dir`/alibaba-gpu-2023/openb_pod_list_default.csv.
std::vector<double> alibaba_hourly_rate_profile(const std::string& data_dir);

// Arrivals per bin of the traffic for the seed: the arrivals the pool serves.
std::vector<double> arrivals_per_bin(const DailyTraffic& traffic, double bin_seconds,
                                     std::uint64_t seed);

// Nodes needed for the peak rate at the target utilisation.
std::uint32_t peak_provisioned_nodes(const DailyTraffic& traffic, const NodeType& node,
                                     double target_utilization);

ScalingBenchmarkResult run_scaling_benchmark(const ScalingBenchmarkParams& params);

}  // namespace hetsched
