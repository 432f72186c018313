#include "boosted_forecaster.hpp"

#include <algorithm>
#include <cmath>

namespace hetsched {

BoostedForecaster::BoostedForecaster(std::size_t season_bins, std::size_t horizon_bins,
                                     std::uint64_t seed)
    : season_(std::max<std::size_t>(season_bins, 1)),
      horizon_(std::clamp<std::size_t>(horizon_bins, 1, season_)),  // seasonal lags stay seen
      seed_(seed),
      until_fitted_(season_) {}

double BoostedForecaster::level(std::size_t t) const {
  return (history_[t] + history_[t - 1] + history_[t - 2]) / 3.0;
}

std::array<float, BoostedForecaster::kFeatureCount> BoostedForecaster::features(
    std::size_t t, std::size_t h) const {
  const std::size_t s = season_;
  const double last_season = (prefix_[t + 1] - prefix_[t + 1 - s]) / double(s);
  const double base = level(t) + 1;
  auto relative = [&](double value) { return static_cast<float>(std::log((value + 1) / base)); };
  return {relative(history_[t]),
          relative(history_[t - 1]),
          relative(history_[t - 2]),
          relative(last_season),
          relative(history_[t + h - s]),
          relative(history_[t + h - 2 * s]),
          static_cast<float>(std::log((history_[t] + 1) / (history_[t - s] + 1))),
          static_cast<float>(std::log(base)),
          static_cast<float>((t + h) % s),
          static_cast<float>(h)};
}

void BoostedForecaster::refit() {
  const std::size_t n = history_.size();
  const std::size_t first =
      std::max(2 * season_ + 2,  // the features' reach (t - 2, t + h - 2S)
               n > kWindowSeasons * season_ ? n - kWindowSeasons * season_ : std::size_t{0});
  std::vector<float> rows, targets;
  for (std::size_t t = first; t + 1 < n; ++t)
    for (std::size_t h = 1; h <= horizon_ && t + h < n; ++h) {
      const auto f = features(t, h);
      rows.insert(rows.end(), f.begin(), f.end());
      targets.push_back(static_cast<float>(std::log((history_[t + h] + 1) / (level(t) + 1))));
    }
  if (targets.empty()) return;
  ForestOptions options;
  options.rounds = 100;
  options.max_depth = 4;
  options.learning_rate = 0.1;
  options.min_child_weight = 5;
  options.seed = seed_;
  forest_ = RegressionForest::fit(rows, kFeatureCount, targets, options);
  fitted_at_ = n;
}

void BoostedForecaster::observe(double arrivals) {
  history_.push_back(arrivals);
  prefix_.push_back(prefix_.back() + arrivals);
  if (!forest_) until_fitted_.observe(arrivals);
  if (history_.size() >= warm_up_bins(season_) &&
      (!forest_ || history_.size() >= fitted_at_ + season_))
    refit();
}

std::optional<double> BoostedForecaster::forecast(std::size_t steps_ahead) const {
  if (!forest_) return until_fitted_.forecast(steps_ahead);
  if (steps_ahead == 0) return std::nullopt;
  const std::size_t t = history_.size() - 1;
  // Beyond the trained horizon, the furthest trained step answers.
  const double relative = forest_->predict(features(t, std::min(steps_ahead, horizon_)));
  return std::max(0.0, (level(t) + 1) * std::exp(relative) - 1);
}

}  // namespace hetsched
