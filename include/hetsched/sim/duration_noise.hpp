// DurationNoise: how long a task really runs next to what the performance model predicts.
// Static plans assume the model is exact; real kernels vary and now and then one straggles.
// Each task draws one factor that multiplies its predicted run time on whatever device and
// at whatever P-state it runs: a log-normal of the given σ whose mean is 1 (the prediction
// is right on average), times `straggler_slowdown` with probability `straggler_probability`.
//
// The draw depends only on the seed and the task's index, never on the order in which
// tasks start, so every policy run on the same workload and seed meets the same durations:
// comparing policies under noise compares them on the same draws.
#pragma once

#include <cstdint>

#include "hetsched/core/expected.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

struct DurationNoiseOptions {
  double sigma = 0;                  // of the log-normal factor; 0: none
  double straggler_probability = 0;  // per task
  double straggler_slowdown = 1;     // a straggler's run time × this (≥ 1)
  bool enabled() const { return sigma != 0 || straggler_probability != 0; }
};

// Fails with why the options cannot be used: σ negative or not finite, a probability
// outside [0, 1], a slowdown below 1.
Status check_duration_noise(const DurationNoiseOptions& options);

class DurationNoise {
 public:
  DurationNoise(const DurationNoiseOptions& options, std::uint64_t seed)
      : options_(options), seed_(seed) {}
  // The factor of the task's actual run time over its predicted one (1 without noise).
  double factor(TaskIndex task) const;

 private:
  DurationNoiseOptions options_;
  std::uint64_t seed_;
};

}  // namespace hetsched
