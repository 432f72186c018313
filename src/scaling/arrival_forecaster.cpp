#include "hetsched/scaling/arrival_forecaster.hpp"

#include <cmath>

#include "boosted_forecaster.hpp"
#include "holt_winters.hpp"

namespace hetsched {

std::string_view to_string(ForecasterKind kind) {
  switch (kind) {
    case ForecasterKind::holt_winters:
      return "holt-winters";
    case ForecasterKind::boosted_trees:
      return "boosted-trees";
  }
  return "?";
}

std::optional<ForecasterKind> parse_forecaster_kind(std::string_view text) {
  for (ForecasterKind kind : {ForecasterKind::holt_winters, ForecasterKind::boosted_trees})
    if (text == to_string(kind)) return kind;
  return std::nullopt;
}

const std::vector<std::string>& forecaster_kind_names() {
  static const std::vector<std::string> names = {
      std::string(to_string(ForecasterKind::holt_winters)),
      std::string(to_string(ForecasterKind::boosted_trees))};
  return names;
}

std::unique_ptr<ArrivalForecaster> make_arrival_forecaster(ForecasterKind kind,
                                                           std::size_t season_bins,
                                                           std::size_t horizon_bins,
                                                           std::uint64_t seed) {
  if (kind == ForecasterKind::boosted_trees)
    return std::make_unique<BoostedForecaster>(season_bins, horizon_bins, seed);
  return std::make_unique<HoltWinters>(season_bins);
}

std::size_t forecaster_warm_up_bins(ForecasterKind kind, std::size_t season_bins) {
  return kind == ForecasterKind::boosted_trees ? BoostedForecaster::warm_up_bins(season_bins)
                                               : season_bins;
}

ForecastAccuracy evaluate_forecaster(ForecasterKind kind, const std::vector<double>& series,
                                     std::size_t season_bins, std::size_t horizon_bins,
                                     std::size_t first_scored_bin, std::uint64_t seed) {
  const auto forecaster = make_arrival_forecaster(kind, season_bins, horizon_bins, seed);
  ForecastAccuracy accuracy;
  double relative_sum = 0, absolute_sum = 0, actual_sum = 0;
  std::size_t relative_count = 0;
  for (std::size_t t = 0; t < series.size(); ++t) {
    forecaster->observe(series[t]);
    if (t < first_scored_bin || !forecaster->ready()) continue;
    for (std::size_t h = 1; h <= horizon_bins && t + h < series.size(); ++h) {
      const double actual = series[t + h];
      const double error = std::abs(*forecaster->forecast(h) - actual);
      ++accuracy.forecasts;
      absolute_sum += error;
      actual_sum += actual;
      if (actual > 0) relative_sum += error / actual, ++relative_count;
    }
  }
  accuracy.mape = relative_count ? relative_sum / double(relative_count) : 0.0;
  accuracy.wape = actual_sum > 0 ? absolute_sum / actual_sum : 0.0;
  return accuracy;
}

}  // namespace hetsched
