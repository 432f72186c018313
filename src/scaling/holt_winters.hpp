// HoltWinters: additive triple exponential smoothing (Holt 1957, Winters 1960) of
// a seasonal series — here, request arrivals per time bin with a daily season. It
// keeps a level, a trend and one seasonal offset per bin of the season:
//   level  = α·(y − s[t−m]) + (1−α)·(level + trend)
//   trend  = β·(level − level_prev) + (1−β)·trend
//   s[t]   = γ·(y − level) + (1−γ)·s[t−m]
// and forecasts h bins ahead as level + h·trend + s[t−m+h]. The first full season
// initialises it (level = its mean, offsets = deviations from it); before that it
// has no forecast.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "hetsched/scaling/arrival_forecaster.hpp"

namespace hetsched {

class HoltWinters final : public ArrivalForecaster {
 public:
  HoltWinters(std::size_t season_length, double alpha = 0.3, double beta = 0.01,
              double gamma = 0.3);

  void observe(double value) override;
  bool ready() const override { return initialised_; }
  // Forecast `steps_ahead` bins after the last observed one (1 = the next bin).
  std::optional<double> forecast(std::size_t steps_ahead) const override;
  std::size_t observed() const { return observed_; }

 private:
  std::size_t season_;
  double alpha_, beta_, gamma_;
  std::vector<double> first_season_;
  std::vector<double> seasonal_;
  double level_ = 0, trend_ = 0;
  bool initialised_ = false;
  std::size_t observed_ = 0;
};

}  // namespace hetsched
