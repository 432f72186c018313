// RuntimePredictor: run times learned from measured executions, with an uncertainty.
//
// Gradient-boosted trees (RegressionForest) learn how far the roofline is off,
// ln(measured / roofline seconds), from the kernel (its name and class), the precision, the
// device (its model, kind, peak rates and bandwidth), the task's work and bytes, the
// roofline's prediction and, where the (kernel, device model) pair was measured at two sizes
// or more, StarPU's non-linear regression of that pair (a·sizeᵇ + c fitted to its mean times,
// fit_power_law). A prediction is the roofline's seconds times e to the fitted log-ratio, so
// P-states stretch it as they stretch the roofline. Every measurement is learned twice, with
// its pair's regression and without it (missing), so the same trees answer for pairs never
// measured, from what the other pairs taught them about the kernel and the device.
//
// The uncertainty comes from out-of-fold errors of two kinds: folds of whole sizes (every
// repetition of a (kernel, device model, size) in one fold, so each size is predicted by a
// regression and trees that never saw it) and folds of whole pairs (each pair predicted from
// the others). A second, smaller forest learns the absolute log error of those predictions
// from the same features, so a pair never measured gets the wider spread such pairs showed;
// a prediction's σ (of the log seconds, as for a log-normal) is √(π/2) times it, and the
// 95 % interval is e^(±1.96σ) around the prediction. The out-of-fold errors are also the
// cross-validated errors stored with the model.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/perf/history_regression_model.hpp"
#include "hetsched/perf/regression_forest.hpp"
#include "hetsched/perf/runtime_measurement.hpp"

namespace hetsched {

struct RuntimePrediction {
  double seconds = 0;
  double log_sigma = 0;    // σ of ln(seconds)
  double low_seconds = 0;  // the 95 % interval
  double high_seconds = 0;
};

struct RuntimePredictorOptions {
  ForestOptions mean{300, 6, 0.08, 3.0, 1.0, 1};
  ForestOptions spread{100, 3, 0.08, 2.0, 1.0, 1};
  unsigned folds = 5;
  std::uint64_t seed = 1;  // the fold split and both forests
};

// Relative errors |predicted − measured| / measured over some predictions.
struct PredictionErrors {
  std::size_t count = 0;
  double median = 0;
  double p95 = 0;
  double interval_coverage = 0;  // share of measurements inside the 95 % interval
};

// The errors of `relative` (|predicted − measured| / measured, one per prediction), of which
// `inside_interval` fell inside their 95 % interval.
PredictionErrors summarize_errors(std::vector<double> relative, std::size_t inside_interval);

class RuntimePredictor {
 public:
  static constexpr int kFormatVersion = 1;
  static constexpr std::size_t kFeatureCount = 13;
  static const std::array<std::string_view, kFeatureCount>& feature_names();

  // Fits from the measurements with seconds and a roofline prediction above 0 (others are
  // skipped). Throws InputError when fewer than 2 × folds such measurements remain.
  static RuntimePredictor fit(const std::vector<RuntimeMeasurement>& measurements,
                              const RuntimePredictorOptions& options);

  // The prediction for a described execution (its `seconds` is not read).
  RuntimePrediction predict(const RuntimeMeasurement& execution) const;

  // Whether the fit saw measurements of this kernel on this device model.
  bool knows(std::string_view kernel, std::string_view device_model) const;

  // The out-of-fold errors of the fit: at sizes of measured pairs that the fold did not see,
  // and on pairs the fold did not see.
  const PredictionErrors& cross_validation() const { return cross_validation_; }
  const PredictionErrors& unseen_pair_cross_validation() const {
    return unseen_pair_cross_validation_;
  }
  std::size_t measurement_count() const { return measurement_count_; }

  // Saves as JSON (format "hetsched-runtime-predictor"); throws InputError when the file
  // cannot be written.
  void save(const std::string& path) const;
  // Reads a saved predictor; a missing, corrupt, truncated or other-version file, or one
  // made for another feature layout, is an InputError naming the file and what is wrong.
  static RuntimePredictor load(const std::string& path);

  // The errors of the predictions of `measurements` (interval coverage from this model's σ).
  PredictionErrors errors_on(const std::vector<RuntimeMeasurement>& measurements) const;

 private:
  using Regressions = std::map<std::string, PowerLawFit>;  // by pair key
  // The pair's regression at the execution's size; NaN where the pair has none.
  static double regression_seconds(const Regressions& regressions,
                                   const RuntimeMeasurement& execution);
  std::array<float, kFeatureCount> features(const RuntimeMeasurement& execution,
                                            const Regressions& regressions) const;

  std::vector<std::string> kernels_;        // vocabulary: index = feature value
  std::vector<std::string> device_models_;  // vocabulary
  std::vector<std::string> pairs_;          // "kernel\tdevice model", sorted
  Regressions regressions_;
  RegressionForest mean_;
  RegressionForest spread_;
  PredictionErrors cross_validation_;
  PredictionErrors unseen_pair_cross_validation_;
  std::size_t measurement_count_ = 0;
};

}  // namespace hetsched
