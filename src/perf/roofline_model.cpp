#include "hetsched/perf/roofline_model.hpp"

#include <algorithm>

namespace hetsched {

const RooflineModel::EfficiencyTable& RooflineModel::default_efficiency() {
  // Rows: kernel class; columns: CPU, GPU, TPU. {compute, memory, activity}.
  // GPUs and TPUs are strong on dense math and weak on branchy, irregular code;
  // TPUs are weakest on sparse and branchy work; CPUs handle control flow well.
  // clang-format off
  static const EfficiencyTable table{{
    /* dense_matmul */ {{{0.85, 0.80, 0.90}, {0.75, 0.80, 0.95}, {0.85, 0.85, 0.95}}},
    /* convolution  */ {{{0.60, 0.75, 0.85}, {0.65, 0.80, 0.90}, {0.75, 0.85, 0.90}}},
    /* attention    */ {{{0.40, 0.70, 0.80}, {0.55, 0.80, 0.85}, {0.60, 0.80, 0.85}}},
    /* elementwise  */ {{{0.50, 0.80, 0.60}, {0.60, 0.85, 0.60}, {0.40, 0.75, 0.55}}},
    /* reduction    */ {{{0.50, 0.75, 0.60}, {0.50, 0.75, 0.55}, {0.30, 0.60, 0.50}}},
    /* sparse       */ {{{0.10, 0.35, 0.55}, {0.05, 0.25, 0.45}, {0.01, 0.05, 0.40}}},
    /* branchy      */ {{{0.30, 0.40, 0.60}, {0.02, 0.10, 0.35}, {0.005, 0.03, 0.30}}},
    /* io           */ {{{0.05, 0.50, 0.30}, {0.01, 0.30, 0.20}, {0.01, 0.20, 0.20}}},
  }};
  // clang-format on
  return table;
}

RooflineModel::RooflineModel(const Cluster& cluster)
    : RooflineModel(cluster, default_efficiency()) {}

RooflineModel::RooflineModel(const Cluster& cluster, const EfficiencyTable& table)
    : PerfModel(cluster), table_(table) {}

namespace {

bool uses_matrix_units(KernelClass kernel) {
  return kernel == KernelClass::dense_matmul || kernel == KernelClass::convolution ||
         kernel == KernelClass::attention;
}

}  // namespace

double RooflineModel::predict_seconds(const Task& task, const Device& device,
                                      std::size_t pstate) const {
  const DeviceSpec& spec = device.spec;
  const KernelEfficiency& eff = efficiency(task.kernel, spec.kind);
  const auto p = static_cast<std::size_t>(task.precision);
  double peak = uses_matrix_units(task.kernel) ? spec.matrix_flops[p] : spec.vector_flops[p];
  if (peak <= 0) peak = std::max(spec.matrix_flops[p], spec.vector_flops[p]);
  const double compute =
      task.flops > 0 ? task.flops / (peak * eff.compute * spec.pstates[pstate].speed_scale) : 0.0;
  const double memory = task.bytes > 0 ? task.bytes / (spec.memory_bandwidth * eff.memory) : 0.0;
  return spec.launch_overhead_seconds + std::max(compute, memory);
}

double RooflineModel::task_watts(const Task& task, const Device& device, std::size_t pstate) const {
  const DeviceSpec& spec = device.spec;
  const double activity = efficiency(task.kernel, spec.kind).activity;
  return spec.idle_watts +
         (spec.peak_watts - spec.idle_watts) * activity * spec.pstates[pstate].power_scale;
}

}  // namespace hetsched
