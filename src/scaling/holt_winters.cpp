#include "holt_winters.hpp"

#include <numeric>

namespace hetsched {

HoltWinters::HoltWinters(std::size_t season_length, double alpha, double beta, double gamma)
    : season_(season_length), alpha_(alpha), beta_(beta), gamma_(gamma) {}

void HoltWinters::observe(double y) {
  const std::size_t position = observed_ % season_;
  ++observed_;
  if (!initialised_) {
    first_season_.push_back(y);
    if (first_season_.size() == season_) {
      level_ = std::accumulate(first_season_.begin(), first_season_.end(), 0.0) / double(season_);
      trend_ = 0;
      seasonal_.resize(season_);
      for (std::size_t i = 0; i < season_; ++i) seasonal_[i] = first_season_[i] - level_;
      initialised_ = true;
    }
    return;
  }
  const double previous_level = level_;
  level_ = alpha_ * (y - seasonal_[position]) + (1 - alpha_) * (level_ + trend_);
  trend_ = beta_ * (level_ - previous_level) + (1 - beta_) * trend_;
  seasonal_[position] = gamma_ * (y - level_) + (1 - gamma_) * seasonal_[position];
}

std::optional<double> HoltWinters::forecast(std::size_t steps_ahead) const {
  if (!initialised_ || steps_ahead == 0) return std::nullopt;
  const std::size_t position = (observed_ + steps_ahead - 1) % season_;
  return level_ + double(steps_ahead) * trend_ + seasonal_[position];
}

}  // namespace hetsched
