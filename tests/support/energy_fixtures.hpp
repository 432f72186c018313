// Shared fixtures of the energy tests: a three-P-state ladder (full speed, 80 % at
// 60 % power, half speed at a quarter power), a 10 TFLOP/s, 50–350 W test GPU with four
// P-states whose power follows f·V² (V = 0.6 + 0.4 f), and a batch of independent
// matrix products.
#pragma once

#include <string>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

inline const std::vector<PState> kThreePstates{{1.0, 1.0, 1.0}, {0.8, 0.8, 0.6}, {0.5, 0.5, 0.25}};

inline DeviceSpec test_gpu_with_four_pstates() {
  DeviceSpec s;
  s.model = "gpu";
  s.kind = DeviceKind::gpu;
  s.matrix_flops = s.vector_flops = {1e13, 1e13, 1e13, 1e13};
  s.memory_bytes = 8e10;
  s.memory_bandwidth = 1e12;
  s.idle_watts = 50;
  s.peak_watts = 350;
  s.pstates.clear();
  for (double f : {1.0, 0.85, 0.7, 0.55}) {
    const double v = 0.6 + 0.4 * f;
    s.pstates.push_back(PState{f, f, f * v * v});
  }
  return s;
}

inline Workload independent_matmuls(int count, double flops) {
  Workload w;
  Job job;
  job.name = "batch";
  for (int i = 0; i < count; ++i) {
    Task t;
    t.name = "mm" + std::to_string(i);
    t.kernel = KernelClass::dense_matmul;
    t.flops = flops;
    job.tasks.push_back(t);
  }
  w.jobs.push_back(job);
  return w;
}

}  // namespace hetsched
