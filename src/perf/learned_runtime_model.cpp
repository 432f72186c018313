#include "hetsched/perf/learned_runtime_model.hpp"

#include <cmath>

namespace hetsched {

std::optional<RuntimeMeasurement> LearnedRuntimeModel::nominal_execution(
    const Task& task, const Device& device) const {
  RuntimeMeasurement nominal = describe_execution(task, device, roofline_, 0.0);
  if (!(nominal.roofline_seconds > 0) || !std::isfinite(nominal.roofline_seconds) ||
      !predictor_.knows(nominal.kernel, nominal.device_model))
    return std::nullopt;
  return nominal;
}

std::optional<RuntimePrediction> LearnedRuntimeModel::learned_prediction(
    const Task& task, const Device& device) const {
  const auto nominal = nominal_execution(task, device);
  if (!nominal) return std::nullopt;
  return predictor_.predict(*nominal);
}

double LearnedRuntimeModel::predict_seconds(const Task& task, const Device& device,
                                            std::size_t pstate) const {
  const double roofline = roofline_.task_seconds(task, device, pstate);
  if (!std::isfinite(roofline)) return roofline;
  const auto nominal = nominal_execution(task, device);
  if (!nominal) return roofline;
  return predictor_.predict(*nominal).seconds * (roofline / nominal->roofline_seconds);
}

}  // namespace hetsched
