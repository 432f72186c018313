// Data-parallel training step over heterogeneous GPUs and TPUs: each device gets a
// micro-batch in proportion to its throughput (the equal-finish split of
// data_parallel_split.hpp, with its launch overhead as start-up), and then the
// gradients are all-reduced over a ring: 2(n−1)/n × model bytes / the slowest ring
// link's bandwidth, plus 2(n−1) hop latencies (Patarasuk and Yuan 2009). Because
// the all-reduce grows with the slowest link and a slow device adds little, the
// subset of devices with the shortest step is chosen (every subset, up to 16
// devices). The result is compared with an equal split over all the devices.
#pragma once

#include <string>
#include <vector>

#include "hetsched/perf/perf_model.hpp"

namespace hetsched {

struct TrainingStepSpec {
  double parameters = 1.3e9;
  double gradient_bytes_per_parameter = 2;       // bf16 gradients
  double model_memory_bytes_per_parameter = 16;  // weights, gradients, Adam state (mixed precision)
  double global_batch_samples = 512;
  double flops_per_sample = 0;  // 0: 6 × parameters × tokens_per_sample
  double tokens_per_sample = 1024;
  Precision precision = Precision::fp16;
};

// Ring all-reduce seconds for `bytes` over the devices in ring order.
double ring_allreduce_seconds(const Cluster& cluster, const std::vector<DeviceId>& ring,
                              double bytes);

struct TrainingSplit {
  bool feasible = false;
  std::string message;
  std::vector<DeviceId> devices;  // the candidates
  std::vector<double> samples;    // per candidate (0: left out)
  double compute_seconds = 0;     // slowest part
  double allreduce_seconds = 0;
  double step_seconds = 0;
  double samples_per_second = 0;
  double equal_step_seconds = 0;  // equal split over every candidate
  double equal_samples_per_second = 0;
  double speedup_over_equal() const {
    return step_seconds > 0 ? equal_step_seconds / step_seconds : 0;
  }
};

TrainingSplit split_training_step(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                                  const TrainingStepSpec& spec);

}  // namespace hetsched
