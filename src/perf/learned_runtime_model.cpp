#include "hetsched/perf/learned_runtime_model.hpp"

#include <cmath>

#include "hetsched/perf/history_regression_model.hpp"

namespace hetsched {

std::optional<RuntimePrediction> LearnedRuntimeModel::learned_prediction(
    const Task& task, const Device& device) const {
  if (!predictor_.knows(HistoryRegressionModel::kernel_key(task), device.spec.model))
    return std::nullopt;
  return predictor_.predict(describe_execution(task, device, roofline_, 0.0));
}

double LearnedRuntimeModel::predict_seconds(const Task& task, const Device& device,
                                            std::size_t pstate) const {
  const double roofline = roofline_.task_seconds(task, device, pstate);
  if (!std::isfinite(roofline) ||
      !predictor_.knows(HistoryRegressionModel::kernel_key(task), device.spec.model))
    return roofline;
  const RuntimeMeasurement nominal = describe_execution(task, device, roofline_, 0.0);
  if (!(nominal.roofline_seconds > 0)) return roofline;
  return predictor_.predict(nominal).seconds * (roofline / nominal.roofline_seconds);
}

}  // namespace hetsched
