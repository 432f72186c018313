#include "predictor_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "hetsched/perf/history_regression_model.hpp"
#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {

namespace {

using Measurements = std::vector<RuntimeMeasurement>;

// Errors of a point predictor (no interval) over the measurements it answers.
PredictionErrors point_errors(const Measurements& test,
                              const std::function<double(const RuntimeMeasurement&)>& predict) {
  std::vector<double> relative;
  for (const RuntimeMeasurement& m : test)
    if (m.seconds > 0) relative.push_back(std::abs(predict(m) - m.seconds) / m.seconds);
  return summarize_errors(std::move(relative), 0);
}

// The history regression (power law per kernel and device model) fitted on `train`; where it
// has no fit, the roofline.
double history_prediction(const HistoryRegressionModel& history, const RuntimeMeasurement& m) {
  if (const auto seen = history.history_seconds(m.kernel, m.device_model, m.bytes)) return *seen;
  if (const auto fitted = history.regression_seconds(m.kernel, m.device_model, m.bytes))
    return *fitted;
  return m.roofline_seconds;
}

PredictorSetting compare(const std::string& name, const Measurements& train,
                         const Measurements& test, const RuntimePredictorOptions& options) {
  // Only its history and regression are asked, never a device: an empty cluster will do.
  const Cluster no_devices;
  const RooflineModel unused(no_devices);
  HistoryRegressionModel history(no_devices, unused);
  for (const RuntimeMeasurement& m : train)
    history.record(m.kernel, m.device_model, m.bytes, m.seconds);
  const RuntimePredictor boosted = RuntimePredictor::fit(train, options);
  PredictorSetting setting{name, train.size(), test.size(), {}};
  setting.models.push_back({"roofline", point_errors(test, [](const RuntimeMeasurement& m) {
                              return m.roofline_seconds;
                            })});
  setting.models.push_back(
      {"history-regression", point_errors(test, [&](const RuntimeMeasurement& m) {
         return history_prediction(history, m);
       })});
  setting.models.push_back({"boosted-trees", boosted.errors_on(test)});
  return setting;
}

}  // namespace

PredictorBenchmarkResult run_predictor_benchmark(const PredictorBenchmarkParams& params) {
  const Measurements all = read_measurements(params.measurements);
  PredictorBenchmarkResult result;
  result.measurements = all.size();

  {  // calibration's split
    Measurements train, test;
    for (const RuntimeMeasurement& m : all) (m.held_out ? test : train).push_back(m);
    result.settings.push_back(compare("held-out sizes", train, test, params.fit));
  }
  {  // the two largest sizes of each pair
    std::map<std::pair<std::string, std::string>, std::set<double>> sizes;
    for (const RuntimeMeasurement& m : all) sizes[{m.kernel, m.device_model}].insert(m.bytes);
    Measurements train, test;
    for (const RuntimeMeasurement& m : all) {
      const std::set<double>& s = sizes[{m.kernel, m.device_model}];
      const bool large = s.size() > 3 && m.bytes >= *std::next(s.rbegin());
      (large ? test : train).push_back(m);
    }
    result.settings.push_back(compare("larger sizes", train, test, params.fit));
  }
  {  // each pair predicted from the others: one fit per pair, errors pooled
    std::set<std::pair<std::string, std::string>> pairs;
    for (const RuntimeMeasurement& m : all) pairs.insert({m.kernel, m.device_model});
    std::vector<double> roofline, boosted;
    std::size_t inside = 0, fitted = 0;
    for (const auto& pair : pairs) {
      Measurements train, test;
      for (const RuntimeMeasurement& m : all)
        (std::pair{m.kernel, m.device_model} == pair ? test : train).push_back(m);
      const RuntimePredictor predictor = RuntimePredictor::fit(train, params.fit);
      fitted = std::max(fitted, train.size());
      for (const RuntimeMeasurement& m : test) {
        if (!(m.seconds > 0)) continue;
        const RuntimePrediction p = predictor.predict(m);
        roofline.push_back(std::abs(m.roofline_seconds - m.seconds) / m.seconds);
        boosted.push_back(std::abs(p.seconds - m.seconds) / m.seconds);
        inside += m.seconds >= p.low_seconds && m.seconds <= p.high_seconds;
      }
    }
    PredictorSetting setting{"unseen pairs", fitted, roofline.size(), {}};
    setting.models.push_back({"roofline", summarize_errors(roofline, 0)});
    // The history regression has nothing on a pair never measured: it answers with the roofline.
    setting.models.push_back({"history-regression", summarize_errors(roofline, 0)});
    setting.models.push_back({"boosted-trees", summarize_errors(std::move(boosted), inside)});
    result.settings.push_back(std::move(setting));
  }
  return result;
}

}  // namespace hetsched
