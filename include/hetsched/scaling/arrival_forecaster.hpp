// ArrivalForecaster: what the predictive autoscaler asks of a forecast of arrivals — it is
// told the arrivals of each bin as the bin closes and asked for the arrivals of a bin some
// steps ahead. Two kinds:
//  - holt-winters: additive triple exponential smoothing with a daily season
//    (src/scaling/holt_winters.hpp);
//  - boosted-trees: gradient-boosted trees (RegressionForest) learned from the history seen
//    so far, refitted once a season on a window of recent seasons, Holt-Winters until its
//    first fit (src/scaling/boosted_forecaster.hpp).
// evaluate_forecaster walks a series bin by bin, as the autoscaler does, and scores every
// forecast it would have been given.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsched {

enum class ForecasterKind : std::uint8_t { holt_winters, boosted_trees };
std::string_view to_string(ForecasterKind kind);
std::optional<ForecasterKind> parse_forecaster_kind(std::string_view text);
const std::vector<std::string>& forecaster_kind_names();

class ArrivalForecaster {
 public:
  virtual ~ArrivalForecaster() = default;
  // The arrivals of the bin that just closed.
  virtual void observe(double arrivals) = 0;
  // Whether forecast() answers yet (each kind needs some history first).
  virtual bool ready() const = 0;
  // The arrivals of the bin `steps_ahead` after the last observed one (1 = the next);
  // nullopt before ready() or for 0 steps.
  virtual std::optional<double> forecast(std::size_t steps_ahead) const = 0;
};

// A forecaster of `kind` for a season of `season_bins` bins that will be asked at most
// `horizon_bins` steps ahead; `seed` seeds what the kind learns.
std::unique_ptr<ArrivalForecaster> make_arrival_forecaster(ForecasterKind kind,
                                                           std::size_t season_bins,
                                                           std::size_t horizon_bins,
                                                           std::uint64_t seed = 1);

// The bins a forecaster of `kind` observes before it answers from its own model (a season
// for Holt-Winters; three, and two bins, for the boosted trees, which answer with
// Holt-Winters until then).
std::size_t forecaster_warm_up_bins(ForecasterKind kind, std::size_t season_bins);

struct ForecastAccuracy {
  std::size_t forecasts = 0;  // bins forecast (× steps ahead)
  double mape = 0;            // mean |error| / actual over bins with arrivals
  double wape = 0;            // Σ |error| / Σ actual
};

// Walks `series` bin by bin: after each observation from bin `first_scored_bin` on, once the
// forecaster is ready, every forecast 1..horizon_bins steps ahead that falls inside the
// series is scored (give kinds compared the same first bin, past both their warm-ups).
ForecastAccuracy evaluate_forecaster(ForecasterKind kind, const std::vector<double>& series,
                                     std::size_t season_bins, std::size_t horizon_bins,
                                     std::size_t first_scored_bin, std::uint64_t seed = 1);

}  // namespace hetsched
