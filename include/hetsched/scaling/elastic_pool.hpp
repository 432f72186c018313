// ElasticPool: a simulated pool of identical nodes serving a stream of requests,
// grown and shrunk by an autoscaler, with what a cloud bills for it.
//
// Why its own discrete-event simulator (on hetsched::EventQueue) rather than nodes
// added to the DAG simulator: autoscaling is about hours and days of request
// traffic (millions of short independent jobs), node boot delays, billing periods
// and spot revocations — not about the placement of DAG tasks on heterogeneous
// devices. A node here is a set of `slots` identical workers; requests queue
// first-come first-served and run on any free slot. This keeps a week of traffic to
// seconds of simulation, while the fault rules (nothing lost, revocation = failure
// with re-queue, drain before removal) are the same as in the DAG simulator.
//
// Autoscalers (Kubernetes' HPA/cluster-autoscaler and AWS predictive scaling are
// the models):
//  - static: the peak's node count, all the time;
//  - reactive: every decision interval, utilisation above `scale_out_utilization`
//    (or a queue) scales out to the demand at the target utilisation at once;
//    utilisation below `scale_in_utilization` for `scale_in_cooldown_seconds`
//    scales in (hysteresis: two thresholds and a cooldown);
//  - predictive: a forecast of arrivals (Holt-Winters with a daily season, or boosted
//    trees: AutoscalerConfig::forecaster) sizes the pool for the busiest bin between now
//    and now + start-up delay + decision interval, raised by a quantile of how far actual
//    arrivals exceeded the forecasts over the last day (forecast_quantile), so nodes are
//    booted before the demand arrives; a queue still triggers the reactive rule. Before
//    a full day has been seen, it behaves as reactive.
// Nodes boot for `startup_seconds` (billed), are billed per second with a minimum
// period, and a scale-in drains a node (no new work; removed when its requests are
// done). Spot nodes cost less and are revoked at random; their requests go back to
// the head of the queue — nothing is lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/scaling/arrival_forecaster.hpp"

namespace hetsched {

enum class ScalingMode : std::uint8_t { static_peak, reactive, predictive };
std::string_view to_string(ScalingMode mode);

struct NodeType {
  std::string name = "gpu-node";
  std::uint32_t slots = 4;           // requests served at once
  double price_per_hour = 12.0;      // on demand, USD
  double spot_price_per_hour = 4.0;  // USD
  double spot_revocations_per_hour = 0.05;
  double startup_seconds = 300;
  double billing_minimum_seconds = 600;
};

struct AutoscalerConfig {
  ScalingMode mode = ScalingMode::reactive;
  std::uint32_t min_nodes = 1;
  std::uint32_t max_nodes = 200;
  std::uint32_t static_nodes = 0;  // static mode; 0: sized for the peak by the caller
  double decision_interval_seconds = 60;
  double target_utilization = 0.7;
  double scale_out_utilization = 0.85;
  double scale_in_utilization = 0.5;
  double scale_in_cooldown_seconds = 600;
  double spot_fraction = 0;  // of the nodes added, the share bought as spot
  double forecast_bin_seconds = 300;
  double season_seconds = 86400;
  ForecasterKind forecaster = ForecasterKind::holt_winters;  // predictive mode
  // Predictive mode sizes for the forecast raised by this quantile of actual / forecast
  // over the latest season (0: the forecast as it is).
  double forecast_quantile = 0.9;
  // Throws InputError: min > max, a target outside (0, 1], thresholds out of order...
  void validate(const SourcePosition& where = {}) const;
};

// Requests with a daily pattern: a Poisson process whose rate follows
// mean · (1 + amplitude · sin(2π·(t − peak_hour_shift)/day)), service times exponential.
// With a rate profile (e.g. a trace's arrivals per hour, arrival_rate_profile), the rate
// is instead mean · profile[t / profile bin] (the profile's mean is 1), and the traffic
// lasts as long as the profile.
struct DailyTraffic {
  double mean_rate_per_second = 2.0;
  double amplitude = 0.8;
  double peak_hour = 14;  // the hour of the day with the most requests
  double mean_service_seconds = 20;
  double days = 3;
  std::vector<double> rate_profile;  // relative rates, mean 1; empty: the sine
  double rate_profile_bin_seconds = 3600;
  double rate_at(double seconds) const;
  double peak_rate() const;
  double duration_seconds() const;
};

// The traffic's next arrival after `after` (infinity when none is left before its end),
// drawn from `rng`: the pool draws its arrivals so, from a generator of their own seeded
// with the pool's seed, so a generator seeded alike replays them.
double next_traffic_arrival(const DailyTraffic& traffic, double after, Rng& rng);

// Relative arrival rates per bin of `bin_seconds` (mean 1) from arrival times, from the
// first day whose arrivals reach `dense_fraction` of the mean day to the last arrival (a
// trace's sparse beginning left out).
std::vector<double> arrival_rate_profile(std::vector<double> arrival_seconds, double bin_seconds,
                                         double dense_fraction = 0.25);

struct ElasticPoolResult {
  ScalingMode mode = ScalingMode::reactive;
  std::uint64_t requests = 0;
  std::uint64_t completed = 0;       // equals requests: nothing lost
  std::uint64_t slo_violations = 0;  // waited longer than the SLO
  double slo_wait_seconds = 0;
  double mean_wait_seconds = 0;
  double p99_wait_seconds = 0;
  double cost_usd = 0;
  double node_hours = 0;
  std::uint32_t peak_nodes = 0;
  double mean_nodes = 0;
  std::uint64_t nodes_started = 0;
  std::uint64_t revocations = 0;
  std::uint64_t requeued_requests = 0;
  std::uint64_t drains = 0;
};

// The forecast bins the predictive autoscaler looks ahead: a node asked for now serves from
// the end of its start-up until the decision after that.
std::size_t predictive_lookahead_bins(const NodeType& type, const AutoscalerConfig& config);

ElasticPoolResult simulate_elastic_pool(const DailyTraffic& traffic, const NodeType& node,
                                        const AutoscalerConfig& config, double slo_wait_seconds,
                                        std::uint64_t seed);

}  // namespace hetsched
