// The learned run-time predictor against the roofline and StarPU-style history regression
// on held-out measurements (`hetsched bench predictor`). Three settings, each fitting on
// some measurements and predicting the others:
//  - held-out sizes: calibration's own split (sizes in between the fitted ones);
//  - larger sizes: per kernel and device, the two largest sizes predicted from the smaller;
//  - unseen pairs: each (kernel, device model) in turn predicted from all the others (the
//    history regression has nothing there and answers with the roofline).
#pragma once

#include <string>
#include <vector>

#include "hetsched/perf/runtime_predictor.hpp"

namespace hetsched {

struct PredictorBenchmarkParams {
  std::string measurements;  // a measurement file (hetsched calibrate --measurements)
  RuntimePredictorOptions fit;
};

struct ModelErrors {
  std::string model;  // roofline, history-regression, boosted-trees
  PredictionErrors errors;
};

struct PredictorSetting {
  std::string name;
  std::size_t fitted = 0;  // measurements fitted on (per fit, for unseen pairs: all but one pair)
  std::size_t predicted = 0;  // held-out measurements predicted
  std::vector<ModelErrors> models;
};

struct PredictorBenchmarkResult {
  std::size_t measurements = 0;
  std::vector<PredictorSetting> settings;
};

PredictorBenchmarkResult run_predictor_benchmark(const PredictorBenchmarkParams& params);

}  // namespace hetsched
