// Arrival forecasters: the boosted trees answer with Holt-Winters until they have three
// seasons, then from their own model; what they learn is relative to the level, so a
// level ten times any seen is forecast from the bins just observed; the same series and
// seed give the same forecasts. The walk-forward scoring, a trace's rate profile (its
// sparse beginning cut), traffic that follows the profile, and a predictive pool on the
// learned forecaster that loses nothing.
#include "hetsched/scaling/arrival_forecaster.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "hetsched/scaling/elastic_pool.hpp"
#include "scaling_benchmark.hpp"

namespace hetsched {
namespace {

constexpr std::size_t kSeason = 24;

// A daily shape (one bin per hour) at a level.
double daily_shape(std::size_t bin, double level) {
  return level * (1.0 + 0.5 * std::sin(2 * std::numbers::pi * double(bin % kSeason) / kSeason));
}

TEST(BoostedForecaster, AnswersWithHoltWintersUntilItHasThreeSeasonsThenFromItsTrees) {
  auto boosted = make_arrival_forecaster(ForecasterKind::boosted_trees, kSeason, 3);
  auto holt_winters = make_arrival_forecaster(ForecasterKind::holt_winters, kSeason, 3);
  std::size_t bin = 0;
  for (; bin < kSeason; ++bin) {
    EXPECT_FALSE(boosted->ready());
    boosted->observe(daily_shape(bin, 100));
    holt_winters->observe(daily_shape(bin, 100));
  }
  ASSERT_TRUE(boosted->ready());
  EXPECT_DOUBLE_EQ(*boosted->forecast(2), *holt_winters->forecast(2));
  const std::size_t warm = forecaster_warm_up_bins(ForecasterKind::boosted_trees, kSeason);
  EXPECT_EQ(warm, 3 * kSeason + 2);
  for (; bin < warm; ++bin) {
    boosted->observe(daily_shape(bin, 100));
    holt_winters->observe(daily_shape(bin, 100));
  }
  // Its own model now: close to the shape, and no longer Holt-Winters' number.
  EXPECT_NEAR(*boosted->forecast(1), daily_shape(bin, 100), 5.0);
  EXPECT_NE(*boosted->forecast(1), *holt_winters->forecast(1));
  EXPECT_FALSE(boosted->forecast(0));
}

TEST(BoostedForecaster, ALevelTenTimesAnySeenIsForecastFromTheBinsJustObserved) {
  auto boosted = make_arrival_forecaster(ForecasterKind::boosted_trees, kSeason, 3);
  std::size_t bin = 0;
  for (; bin < 5 * kSeason; ++bin) boosted->observe(daily_shape(bin, 100));
  for (std::size_t k = 0; k < 4; ++k, ++bin) boosted->observe(daily_shape(bin, 1000));
  // Trees on absolute counts could not answer above the largest count they were fitted on
  // (150); relative to the level they answer at the new level (the seasonal lags, a tenth of
  // it, are far from anything learned, so only the level is expected to carry over).
  const double expected = daily_shape(bin, 1000);
  EXPECT_GT(*boosted->forecast(1), 0.5 * expected);
  EXPECT_LT(*boosted->forecast(1), 2.0 * expected);
}

TEST(BoostedForecaster, SameSeriesAndSeedSameForecasts) {
  std::vector<double> series;
  for (std::size_t bin = 0; bin < 6 * kSeason; ++bin)
    series.push_back(daily_shape(bin, 50) + double((bin * 7919) % 13));
  auto a = make_arrival_forecaster(ForecasterKind::boosted_trees, kSeason, 3, 5);
  auto b = make_arrival_forecaster(ForecasterKind::boosted_trees, kSeason, 3, 5);
  for (double y : series) a->observe(y), b->observe(y);
  for (std::size_t h = 1; h <= 3; ++h) EXPECT_EQ(*a->forecast(h), *b->forecast(h));
  const ForecastAccuracy first =
      evaluate_forecaster(ForecasterKind::boosted_trees, series, kSeason, 3, 4 * kSeason);
  const ForecastAccuracy second =
      evaluate_forecaster(ForecasterKind::boosted_trees, series, kSeason, 3, 4 * kSeason);
  EXPECT_EQ(first.mape, second.mape);
  // Forecasts after bins 96..143, 1..3 bins ahead while inside the series (143: none).
  EXPECT_EQ(first.forecasts, 48u * 3 - 6);
  EXPECT_LT(first.wape, 0.2);
}

TEST(ArrivalForecast, WalkForwardScoresEveryForecastAgainstWhatCame) {
  // A season of 2 and a constant series: Holt-Winters is exact, so both errors are 0.
  const std::vector<double> flat(10, 8.0);
  const ForecastAccuracy exact = evaluate_forecaster(ForecasterKind::holt_winters, flat, 2, 2, 0);
  EXPECT_EQ(exact.forecasts, 7u * 2 + 1);  // after bins 1..7: 2 ahead each; after bin 8: 1
  EXPECT_DOUBLE_EQ(exact.mape, 0.0);
  EXPECT_DOUBLE_EQ(exact.wape, 0.0);
  // A step the forecaster has not seen: errors are scored.
  std::vector<double> step(flat);
  step[9] = 16.0;
  const ForecastAccuracy missed = evaluate_forecaster(ForecasterKind::holt_winters, step, 2, 1, 0);
  EXPECT_GT(missed.mape, 0.0);
  EXPECT_EQ(parse_forecaster_kind("boosted-trees"), ForecasterKind::boosted_trees);
  EXPECT_FALSE(parse_forecaster_kind("arima"));
}

TEST(ArrivalRateProfile, CountsPerBinWithTheSparseBeginningCutAndMeanOne) {
  std::vector<double> arrivals = {0.0};  // one early arrival, then a dense stretch 10 days on
  const double start = 10 * 86400.0;
  for (int hour = 0; hour < 48; ++hour)
    for (int k = 0; k < (hour % 2 ? 3 : 1); ++k) arrivals.push_back(start + hour * 3600.0 + k);
  const std::vector<double> profile = arrival_rate_profile(arrivals, 3600);
  ASSERT_EQ(profile.size(), 48u);
  EXPECT_DOUBLE_EQ(profile[0], 0.5);  // 1 of a mean of 2
  EXPECT_DOUBLE_EQ(profile[1], 1.5);
  DailyTraffic traffic;
  traffic.mean_rate_per_second = 4;
  traffic.rate_profile = profile;
  EXPECT_DOUBLE_EQ(traffic.duration_seconds(), 48 * 3600.0);
  EXPECT_DOUBLE_EQ(traffic.peak_rate(), 6.0);
  EXPECT_DOUBLE_EQ(traffic.rate_at(3600.0 * 1.5), 6.0);
  EXPECT_DOUBLE_EQ(traffic.rate_at(1e9), 6.0);  // past the end: the last bin's
}

// Four days of a daily pattern on a predictive pool of 2-slot nodes.
ScalingBenchmarkParams four_small_days(double rate_per_second) {
  ScalingBenchmarkParams p;
  p.traffic.mean_rate_per_second = rate_per_second;
  p.traffic.days = 4;
  p.node.slots = 2;
  p.autoscaler.mode = ScalingMode::predictive;
  return p;
}

TEST(ElasticPool, PredictiveOnTheLearnedForecasterLosesNothingAndSeesTheTrafficsDraw) {
  ScalingBenchmarkParams p = four_small_days(0.2);
  p.autoscaler.forecaster = ForecasterKind::boosted_trees;
  const ElasticPoolResult r = simulate_elastic_pool(p.traffic, p.node, p.autoscaler, 60, 7);
  EXPECT_EQ(r.completed, r.requests);
  // The pool's arrivals are the traffic's draw for the seed.
  const std::vector<double> bins = arrivals_per_bin(p.traffic, 300, 7);
  double total = 0;
  for (double b : bins) total += b;
  EXPECT_EQ(static_cast<std::uint64_t>(total), r.requests);
}

TEST(ElasticPool, AForecastRaisedByItsErrorQuantileBuysNodesAndSparesWaits) {
  ScalingBenchmarkParams p = four_small_days(0.25);
  p.autoscaler.forecast_quantile = 0;
  const ElasticPoolResult plain = simulate_elastic_pool(p.traffic, p.node, p.autoscaler, 60, 3);
  p.autoscaler.forecast_quantile = 0.9;
  const ElasticPoolResult raised = simulate_elastic_pool(p.traffic, p.node, p.autoscaler, 60, 3);
  EXPECT_EQ(raised.requests, plain.requests);  // the same arrivals
  EXPECT_GT(raised.node_hours, plain.node_hours);
  EXPECT_LE(raised.slo_violations, plain.slo_violations);
  p.autoscaler.forecast_quantile = 1.5;
  EXPECT_THROW(p.autoscaler.validate(), InputError);
}

}  // namespace
}  // namespace hetsched
