#include "hetsched/scaling/elastic_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <numeric>

#include "hetsched/core/quantile.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/sim/event_queue.hpp"

namespace hetsched {

std::string_view to_string(ScalingMode mode) {
  switch (mode) {
    case ScalingMode::static_peak:
      return "static";
    case ScalingMode::reactive:
      return "reactive";
    case ScalingMode::predictive:
      return "predictive";
  }
  return "?";
}

void AutoscalerConfig::validate(const SourcePosition& where) const {
  if (min_nodes > max_nodes)
    throw InputError(where, fmt::format("autoscaler: min nodes ({}) is more than max nodes ({})",
                                        min_nodes, max_nodes));
  if (!(target_utilization > 0 && target_utilization <= 1))
    throw InputError(where, fmt::format("autoscaler: target utilization must be in (0, 1], got {}",
                                        target_utilization));
  if (!(scale_in_utilization < scale_out_utilization))
    throw InputError(where, fmt::format("autoscaler: scale-in utilization ({}) must be below "
                                        "scale-out utilization ({})",
                                        scale_in_utilization, scale_out_utilization));
  if (!(decision_interval_seconds > 0) || !(forecast_bin_seconds > 0) ||
      !(season_seconds >= forecast_bin_seconds) || !(scale_in_cooldown_seconds >= 0))
    throw InputError(where,
                     "autoscaler: decision interval, forecast bin and season must be more "
                     "than 0 (season at least one bin), cooldown 0 or more");
  if (!(forecast_quantile >= 0 && forecast_quantile <= 1))
    throw InputError(where, fmt::format("autoscaler: forecast quantile must be in [0, 1], got {}",
                                        forecast_quantile));
  if (!(spot_fraction >= 0 && spot_fraction <= 1))
    throw InputError(
        where, fmt::format("autoscaler: spot fraction must be in [0, 1], got {}", spot_fraction));
}

double DailyTraffic::rate_at(double t) const {
  if (!rate_profile.empty()) {
    const auto bin = static_cast<std::size_t>(std::max(0.0, t / rate_profile_bin_seconds));
    return mean_rate_per_second * rate_profile[std::min(bin, rate_profile.size() - 1)];
  }
  const double day = 86400.0;
  const double phase = 2 * std::numbers::pi * (t - (peak_hour - 6.0) * 3600.0) / day;
  return std::max(0.0, mean_rate_per_second * (1 + amplitude * std::sin(phase)));
}

double DailyTraffic::peak_rate() const {
  if (rate_profile.empty()) return mean_rate_per_second * (1 + amplitude);
  return mean_rate_per_second * *std::max_element(rate_profile.begin(), rate_profile.end());
}

double DailyTraffic::duration_seconds() const {
  return rate_profile.empty() ? days * 86400.0
                              : double(rate_profile.size()) * rate_profile_bin_seconds;
}

std::vector<double> arrival_rate_profile(std::vector<double> arrival_seconds, double bin_seconds,
                                         double dense_fraction) {
  if (arrival_seconds.empty() || !(bin_seconds > 0)) return {};
  std::sort(arrival_seconds.begin(), arrival_seconds.end());
  const double start = arrival_seconds.front();
  std::vector<double> counts(
      static_cast<std::size_t>((arrival_seconds.back() - start) / bin_seconds) + 1, 0.0);
  for (double t : arrival_seconds) counts[static_cast<std::size_t>((t - start) / bin_seconds)] += 1;
  const double mean = double(arrival_seconds.size()) / double(counts.size());
  // The dense part: from the first day whose arrivals reach dense_fraction of a mean day.
  const std::size_t day = std::max<std::size_t>(1, static_cast<std::size_t>(86400 / bin_seconds));
  std::size_t first = 0;
  double window = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    window += counts[i];
    if (i >= day) window -= counts[i - day];
    if (i + 1 >= std::min(day, counts.size()) && window >= dense_fraction * mean * double(day)) {
      first = i + 1 - std::min(day, i + 1);
      while (counts[first] == 0) ++first;  // the day's first arrival
      break;
    }
  }
  std::vector<double> profile(counts.begin() + static_cast<std::ptrdiff_t>(first), counts.end());
  const double dense_mean = std::accumulate(profile.begin(), profile.end(), 0.0) /
                            double(std::max<std::size_t>(profile.size(), 1));
  for (double& p : profile) p /= dense_mean;
  return profile;
}

double next_traffic_arrival(const DailyTraffic& traffic, double after, Rng& rng) {
  // Thinning (Lewis & Shedler 1979): candidates at the peak rate, kept with probability
  // rate(t) / peak.
  const double peak = traffic.peak_rate();
  const double horizon = traffic.duration_seconds();
  if (!(peak > 0)) return std::numeric_limits<double>::infinity();
  for (double t = after;;) {
    t += rng.exponential(1.0 / peak);
    if (t >= horizon) return std::numeric_limits<double>::infinity();
    if (rng.uniform() * peak < traffic.rate_at(t)) return t;
  }
}

std::size_t predictive_lookahead_bins(const NodeType& type, const AutoscalerConfig& config) {
  return static_cast<std::size_t>(
             std::ceil((type.startup_seconds + config.decision_interval_seconds) /
                       config.forecast_bin_seconds)) +
         1;
}

namespace {

enum PoolEvent : std::uint32_t { arrival, completion, node_ready, decide, revocation };

struct Request {
  double arrival = 0, service = 0, finish_due = -1;
  std::uint32_t node = 0;
};

enum class NodeState : std::uint8_t { booting, ready, draining, gone };

struct PoolNode {
  NodeState state = NodeState::booting;
  bool spot = false;
  double started = 0, ended = 0;
  std::uint32_t busy = 0;
  std::vector<std::uint32_t> running;
};

class PoolSimulation {
 public:
  PoolSimulation(const DailyTraffic& traffic, const NodeType& type, const AutoscalerConfig& config,
                 double slo, std::uint64_t seed)
      : traffic_(traffic),
        type_(type),
        config_(config),
        slo_(slo),
        rng_(seed ^ 0x9e3779b97f4a7c15ULL),
        arrival_rng_(seed),
        season_bins_(static_cast<std::size_t>(config.season_seconds / config.forecast_bin_seconds)),
        lookahead_bins_(predictive_lookahead_bins(type, config)),
        forecaster_(
            make_arrival_forecaster(config.forecaster, season_bins_, lookahead_bins_, seed)) {
    result_.mode = config.mode;
    result_.slo_wait_seconds = slo;
    horizon_ = traffic.duration_seconds();
    bin_end_ = config.forecast_bin_seconds;
  }

  ElasticPoolResult run() {
    const std::uint32_t initial = config_.mode == ScalingMode::static_peak
                                      ? config_.static_nodes
                                      : std::max(config_.min_nodes, 1u);
    for (std::uint32_t i = 0; i < initial; ++i) add_node(/*ready_now=*/true, false);
    schedule_next_arrival(0.0);
    events_.schedule(0.0, decide, 0);
    while (!events_.empty()) {
      const Event e = events_.pop();
      advance(e.time);
      switch (e.kind) {
        case arrival: {
          const std::uint32_t id = static_cast<std::uint32_t>(requests_.size());
          requests_.push_back(Request{now_, rng_.exponential(traffic_.mean_service_seconds)});
          ++arrivals_in_bin_;
          queue_.push_back(id);
          schedule_next_arrival(now_);
          dispatch();
          break;
        }
        case completion:
          complete(e.subject);
          break;
        case node_ready:
          if (nodes_[e.subject].state == NodeState::booting) {
            nodes_[e.subject].state = NodeState::ready;
            dispatch();
          }
          break;
        case decide:
          autoscale();
          if (now_ < horizon_ || !queue_.empty() || running_ > 0)
            events_.schedule(now_ + config_.decision_interval_seconds, decide, 0);
          break;
        case revocation:
          revoke(e.subject);
          break;
      }
    }
    return finish();
  }

 private:
  void advance(double t) {
    node_seconds_ += double(live_nodes_) * (t - now_);
    now_ = t;
  }

  void schedule_next_arrival(double after) {
    const double t = next_traffic_arrival(traffic_, after, arrival_rng_);
    if (t < horizon_) events_.schedule(t, arrival, 0);
  }

  std::uint32_t add_node(bool ready_now, bool spot) {
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    PoolNode node;
    node.spot = spot;
    node.started = now_;
    node.state = ready_now ? NodeState::ready : NodeState::booting;
    nodes_.push_back(node);
    ++live_nodes_;
    peak_nodes_ = std::max(peak_nodes_, live_nodes_);
    ++result_.nodes_started;
    if (!ready_now) events_.schedule(now_ + type_.startup_seconds, node_ready, id);
    if (spot && type_.spot_revocations_per_hour > 0)
      events_.schedule(now_ + rng_.exponential(3600.0 / type_.spot_revocations_per_hour),
                       revocation, id);
    return id;
  }

  void remove_node(std::uint32_t id) {
    PoolNode& node = nodes_[id];
    node.state = NodeState::gone;
    node.ended = now_;
    --live_nodes_;
  }

  void dispatch() {
    if (queue_.empty()) return;
    for (std::uint32_t id = first_live_; id < nodes_.size() && !queue_.empty(); ++id) {
      PoolNode& node = nodes_[id];
      if (node.state != NodeState::ready) continue;
      while (node.busy < type_.slots && !queue_.empty()) {
        const std::uint32_t r = queue_.front();
        queue_.pop_front();
        Request& request = requests_[r];
        const double wait = now_ - request.arrival;
        if (request.finish_due < 0) {  // first start: its wait counts (re-queued ones already did)
          waits_.push_back(wait);
          if (wait > slo_) ++result_.slo_violations;
        }
        request.finish_due = now_ + request.service;
        request.node = id;
        ++node.busy;
        ++running_;
        node.running.push_back(r);
        events_.schedule(request.finish_due, completion, r);
      }
    }
    while (first_live_ < nodes_.size() && nodes_[first_live_].state == NodeState::gone)
      ++first_live_;
  }

  void complete(std::uint32_t r) {
    Request& request = requests_[r];
    if (request.finish_due != now_) return;  // stale: the request was re-queued
    PoolNode& node = nodes_[request.node];
    if (node.state == NodeState::gone) return;
    std::erase(node.running, r);
    --node.busy;
    --running_;
    request.finish_due = -2;  // done
    ++result_.completed;
    completed_service_ += request.service;
    ++completed_count_;
    if (node.state == NodeState::draining && node.busy == 0) remove_node(request.node);
    dispatch();
  }

  void revoke(std::uint32_t id) {
    PoolNode& node = nodes_[id];
    if (node.state == NodeState::gone) return;
    ++result_.revocations;
    // Its requests go back to the head of the queue, in their arrival order.
    std::sort(node.running.begin(), node.running.end());
    for (auto it = node.running.rbegin(); it != node.running.rend(); ++it) {
      requests_[*it].finish_due = 0;  // re-queued: its next completion event is the real one
      queue_.push_front(*it);
      ++result_.requeued_requests;
    }
    running_ -= node.busy;
    node.busy = 0;
    node.running.clear();
    remove_node(id);
    dispatch();
  }

  // Nodes that count as capacity: ready (not draining) and booting.
  void census(std::uint32_t& ready, std::uint32_t& booting, std::uint32_t& busy) const {
    ready = booting = busy = 0;
    for (std::uint32_t id = first_live_; id < nodes_.size(); ++id) {
      const PoolNode& n = nodes_[id];
      if (n.state == NodeState::ready) ++ready, busy += n.busy;
      if (n.state == NodeState::booting) ++booting;
    }
  }

  void scale_to(std::uint32_t target, std::uint32_t ready, std::uint32_t booting) {
    target = std::clamp(target, config_.min_nodes, config_.max_nodes);
    const std::uint32_t current = ready + booting;
    if (target > current) {
      const std::uint32_t add = target - current;
      const auto spot = static_cast<std::uint32_t>(std::lround(add * config_.spot_fraction));
      for (std::uint32_t i = 0; i < add; ++i) add_node(false, i < spot);
      return;
    }
    std::uint32_t remove = current - target;
    // Booting nodes first (newest first), then the least busy ready ones drain.
    for (std::uint32_t id = static_cast<std::uint32_t>(nodes_.size());
         id-- > first_live_ && remove;)
      if (nodes_[id].state == NodeState::booting) remove_node(id), --remove;
    while (remove) {
      std::uint32_t pick = 0;
      bool found = false;
      for (std::uint32_t id = first_live_; id < nodes_.size(); ++id)
        if (nodes_[id].state == NodeState::ready && (!found || nodes_[id].busy < nodes_[pick].busy))
          pick = id, found = true;
      if (!found) break;
      ++result_.drains;
      if (nodes_[pick].busy == 0)
        remove_node(pick);
      else
        nodes_[pick].state = NodeState::draining;
      --remove;
    }
  }

  // A closed bin: the forecaster learns it, the forecasts made for it are scored (and the
  // margin with them), and the next bins' forecasts are recorded for scoring in turn.
  void observe_bin(double arrivals) {
    forecaster_->observe(arrivals);
    if (config_.mode != ScalingMode::predictive || !(config_.forecast_quantile > 0)) return;
    const std::size_t bin = bins_closed_++;
    if (const auto made = pending_forecasts_.find(bin); made != pending_forecasts_.end()) {
      for (double forecast : made->second)
        forecast_ratios_.push_back((arrivals + 1) / (std::max(forecast, 0.0) + 1));
      pending_forecasts_.erase(made);
      while (forecast_ratios_.size() > season_bins_ * lookahead_bins_) forecast_ratios_.pop_front();
      // The forecast_quantile of actual / forecast over the latest season, at least 1 (1 until
      // a season of forecasts has been scored).
      if (forecast_ratios_.size() >= season_bins_) {
        std::vector<double> ratios(forecast_ratios_.begin(), forecast_ratios_.end());
        forecast_margin_ = std::max(1.0, nearest_rank_quantile(ratios, config_.forecast_quantile));
      }
    }
    if (!forecaster_->ready()) return;
    for (std::size_t h = 1; h <= lookahead_bins_; ++h)
      pending_forecasts_[bin + h].push_back(*forecaster_->forecast(h));
  }

  void autoscale() {
    // Close the forecast bins that ended.
    while (now_ >= bin_end_) {
      observe_bin(double(arrivals_in_bin_));
      arrivals_in_bin_ = 0;
      bin_end_ += config_.forecast_bin_seconds;
    }
    if (config_.mode == ScalingMode::static_peak) {
      std::uint32_t ready, booting, busy;
      census(ready, booting, busy);
      if (ready + booting < config_.static_nodes) scale_to(config_.static_nodes, ready, booting);
      return;
    }
    std::uint32_t ready, booting, busy;
    census(ready, booting, busy);
    const double slots = double(type_.slots);
    const double demand = double(busy + queue_.size());
    const double utilization = ready ? busy / (ready * slots) : 1.0;
    const auto reactive_target =
        static_cast<std::uint32_t>(std::ceil(demand / (slots * config_.target_utilization)));
    const std::uint32_t current = ready + booting;

    std::optional<std::uint32_t> predicted;
    if (config_.mode == ScalingMode::predictive && forecaster_->ready() && completed_count_ > 0) {
      const double service = completed_service_ / double(completed_count_);
      double busiest = 0;
      for (std::size_t h = 1; h <= lookahead_bins_; ++h)
        busiest = std::max(busiest, *forecaster_->forecast(h) / config_.forecast_bin_seconds);
      busiest *= forecast_margin_;
      predicted = static_cast<std::uint32_t>(
          std::ceil(busiest * service / (slots * config_.target_utilization)));
    }

    if (predicted) {
      std::uint32_t target = *predicted;
      if (utilization > config_.scale_out_utilization && !queue_.empty())
        target = std::max(target, reactive_target);
      if (target > current) {
        scale_to(target, ready, booting);
        low_since_ = -1;
      } else if (target < current) {
        if (low_since_ < 0) low_since_ = now_;
        if (now_ - low_since_ >= config_.scale_in_cooldown_seconds) {
          scale_to(target, ready, booting);
          low_since_ = -1;
        }
      } else {
        low_since_ = -1;
      }
      return;
    }
    if (utilization > config_.scale_out_utilization || !queue_.empty()) {
      if (reactive_target > current) scale_to(reactive_target, ready, booting);
      low_since_ = -1;
    } else if (utilization < config_.scale_in_utilization) {
      if (low_since_ < 0) low_since_ = now_;
      if (now_ - low_since_ >= config_.scale_in_cooldown_seconds) {
        scale_to(std::min(current, reactive_target), ready, booting);
        low_since_ = -1;
      }
    } else {
      low_since_ = -1;
    }
  }

  ElasticPoolResult finish() {
    const double end = std::max(now_, horizon_);
    advance(end);
    for (PoolNode& node : nodes_) {
      if (node.state != NodeState::gone) node.ended = end;
      const double billed = std::max(node.ended - node.started, type_.billing_minimum_seconds);
      const double price = node.spot ? type_.spot_price_per_hour : type_.price_per_hour;
      result_.cost_usd += billed * price / 3600.0;
      result_.node_hours += billed / 3600.0;
    }
    result_.requests = requests_.size();
    result_.mean_nodes = node_seconds_ / end;
    result_.peak_nodes = peak_nodes_;
    if (!waits_.empty()) {
      double sum = 0;
      for (double w : waits_) sum += w;
      result_.mean_wait_seconds = sum / double(waits_.size());
      result_.p99_wait_seconds = nearest_rank_quantile(waits_, 0.99);
    }
    return result_;
  }

  const DailyTraffic& traffic_;
  const NodeType& type_;
  const AutoscalerConfig& config_;
  double slo_;
  Rng rng_;                     // service times, spot revocations
  Rng arrival_rng_;             // arrivals alone, so that they are the traffic's draw for the seed
  std::size_t season_bins_;     // forecast bins per season
  std::size_t lookahead_bins_;  // predictive_lookahead_bins
  std::unique_ptr<ArrivalForecaster> forecaster_;
  EventQueue events_;
  double now_ = 0, horizon_ = 0;
  std::vector<Request> requests_;
  std::deque<std::uint32_t> queue_;
  std::vector<PoolNode> nodes_;
  std::uint32_t first_live_ = 0;
  std::uint32_t live_nodes_ = 0;
  std::uint32_t peak_nodes_ = 0;
  std::uint64_t running_ = 0;
  double node_seconds_ = 0;
  double low_since_ = -1;
  double bin_end_ = 0;
  std::uint64_t arrivals_in_bin_ = 0;
  std::size_t bins_closed_ = 0;
  // Forecasts made for bins still to close (bin index → forecasts), and actual / forecast
  // of the latest season's closed bins.
  std::map<std::size_t, std::vector<double>> pending_forecasts_;
  std::deque<double> forecast_ratios_;
  double forecast_margin_ = 1.0;  // what the predictive target is raised by
  double completed_service_ = 0;
  std::uint64_t completed_count_ = 0;
  std::vector<double> waits_;
  ElasticPoolResult result_;
};

}  // namespace

ElasticPoolResult simulate_elastic_pool(const DailyTraffic& traffic, const NodeType& node,
                                        const AutoscalerConfig& config, double slo_wait_seconds,
                                        std::uint64_t seed) {
  config.validate();
  PoolSimulation simulation(traffic, node, config, slo_wait_seconds, seed);
  return simulation.run();
}

}  // namespace hetsched
