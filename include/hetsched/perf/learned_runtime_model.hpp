// LearnedRuntimeModel: the performance model that answers from a RuntimePredictor where the
// predictor has measurements of the kernel on the device model, and from the roofline
// everywhere else ("replacing the roofline where it has data"). Power, transfers and
// P-states are the roofline's: a P-state stretches the learned seconds as it stretches the
// roofline's.
#pragma once

#include <optional>

#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/perf/runtime_predictor.hpp"

namespace hetsched {

class LearnedRuntimeModel final : public PerfModel {
 public:
  // `roofline` and `predictor` must outlive this model.
  LearnedRuntimeModel(const RooflineModel& roofline, const RuntimePredictor& predictor)
      : PerfModel(roofline.cluster()), roofline_(roofline), predictor_(predictor) {}

  std::string_view name() const override { return "learned-runtime"; }
  double task_watts(const Task& task, const Device& device, std::size_t pstate) const override {
    return roofline_.task_watts(task, device, pstate);
  }

  // The prediction with its 95 % interval at the nominal P-state; nullopt where the
  // predictor has no measurements of the pair (the roofline answers there).
  std::optional<RuntimePrediction> learned_prediction(const Task& task, const Device& device) const;

 protected:
  double predict_seconds(const Task& task, const Device& device, std::size_t pstate) const override;

 private:
  // The task described at the nominal P-state, where the predictor knows its pair.
  std::optional<RuntimeMeasurement> nominal_execution(const Task& task, const Device& device) const;

  const RooflineModel& roofline_;
  const RuntimePredictor& predictor_;
};

}  // namespace hetsched
