// RooflineModel: seconds = launch overhead + max(compute time, memory time), where
// compute time = FLOPs / (peak × efficiency[kernel class][device kind] × P-state
// speed) and memory time = bytes / (bandwidth × memory efficiency). Matmul-like
// kernels use the matrix units' peak, all others the vector units'. Memory time
// does not shrink with the core clock, which is what makes DVFS pay off on
// memory-bound work. (Williams, Waterman, Patterson, "Roofline", CACM 2009.)
#pragma once

#include <array>

#include "hetsched/perf/perf_model.hpp"

namespace hetsched {

struct KernelEfficiency {
  double compute;   // fraction of peak flop rate reached
  double memory;    // fraction of peak bandwidth reached
  double activity;  // fraction of (peak − idle) power drawn while running
};

class RooflineModel final : public PerfModel {
 public:
  using EfficiencyTable =
      std::array<std::array<KernelEfficiency, kDeviceKindCount>, kKernelClassCount>;

  explicit RooflineModel(const Cluster& cluster);
  RooflineModel(const Cluster& cluster, const EfficiencyTable& table);

  std::string_view name() const override { return "roofline"; }
  bool predicts_by_spec() const override { return true; }
  double task_watts(const Task& task, const Device& device, std::size_t pstate) const override;
  const KernelEfficiency& efficiency(KernelClass kernel, DeviceKind kind) const {
    return table_[static_cast<std::size_t>(kernel)][static_cast<std::size_t>(kind)];
  }
  static const EfficiencyTable& default_efficiency();

 protected:
  double predict_seconds(const Task& task, const Device& device, std::size_t pstate) const override;

 private:
  EfficiencyTable table_;
};

}  // namespace hetsched
