// BoostedForecaster: arrivals per bin forecast by gradient-boosted trees learned from the
// history itself (a "direct" multi-step forecaster: one model for every step ahead, the
// step a feature). Everything is relative to the level L, the mean of the last three bins,
// so that what is learned carries over to levels never seen (a trace's busiest days come
// late): for a forecast made after bin t of the bin t + h, the target is
// ln((y[t+h] + 1) / (L + 1)), and the features are the last three bins, the mean of the last
// season and the same bin one and two seasons before (t + h − S, t + h − 2S), each as
// ln((y + 1) / (L + 1)); the change over a season at t; ln(L + 1); the bin's position in the
// season; and h. Once three seasons have been seen it fits RegressionForest on
// every (t, h) of the last `kWindowSeasons` seasons whose answer is known, and refits after
// every further season; between fits it answers with the last model, and before the first
// with Holt-Winters.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "hetsched/perf/regression_forest.hpp"
#include "hetsched/scaling/arrival_forecaster.hpp"
#include "holt_winters.hpp"

namespace hetsched {

class BoostedForecaster final : public ArrivalForecaster {
 public:
  static constexpr std::size_t kFeatureCount = 10;
  static constexpr std::size_t kWindowSeasons = 14;

  BoostedForecaster(std::size_t season_bins, std::size_t horizon_bins, std::uint64_t seed);
  // The bins observed before the first fit (Holt-Winters answers from one season on).
  static std::size_t warm_up_bins(std::size_t season_bins) { return 3 * season_bins + 2; }

  void observe(double arrivals) override;
  bool ready() const override { return forest_.has_value() || until_fitted_.ready(); }
  std::optional<double> forecast(std::size_t steps_ahead) const override;

 private:
  // The features of a forecast made after bin `t` of bin t + h (t ≥ 2S − 1).
  std::array<float, kFeatureCount> features(std::size_t t, std::size_t h) const;
  void refit();
  double level(std::size_t t) const;  // mean of bins t − 2 .. t

  std::size_t season_, horizon_;
  std::uint64_t seed_;
  std::vector<double> history_;
  std::vector<double> prefix_{0.0};  // prefix_[i]: the sum of history_[0 .. i)
  std::optional<RegressionForest> forest_;
  HoltWinters until_fitted_;   // answers until the first fit
  std::size_t fitted_at_ = 0;  // history_.size() at the last fit
};

}  // namespace hetsched
