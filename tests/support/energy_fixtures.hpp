// Shared fixtures of the energy tests: a three-P-state ladder (full speed, 80 % at
// 60 % power, half speed at a quarter power) and a batch of independent matrix products.
#pragma once

#include <string>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

inline const std::vector<PState> kThreePstates{{1.0, 1.0, 1.0}, {0.8, 0.8, 0.6}, {0.5, 0.5, 0.25}};

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
