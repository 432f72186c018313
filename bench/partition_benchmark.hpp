// The partitioning benchmark: on a mix of H100, A100, V100 and TPU v5e (two of
// each, one node per part, 100 Gb/s between nodes), the heterogeneity-aware split
// against an equal split for (1) a data-parallel training step (micro-batches by
// throughput, ring all-reduce of the gradients) and (2) a 3-D stencil (slabs by
// rate, halo exchange per iteration), and (3) a map-reduce job (map split by rate,
// shuffle over the NICs, reducers sized by rate). Prints the speedups and the fastest/slowest
// device ratio of each mix.
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/cluster/cluster.hpp"

namespace hetsched {

struct PartitionBenchmarkResult {
  std::uint32_t devices = 0;
  double training_fastest_to_slowest = 0;  // per-device throughput ratio
  double training_step_seconds = 0;
  double training_equal_step_seconds = 0;
  double training_allreduce_seconds = 0;
  std::uint32_t training_devices_used = 0;
  double training_split_speedup = 0;
  double stencil_fastest_to_slowest = 0;
  double stencil_iteration_seconds = 0;
  double stencil_equal_iteration_seconds = 0;
  std::uint32_t stencil_devices_used = 0;
  double stencil_split_speedup = 0;
  double pipeline_bottleneck_seconds = 0;               // the DP's partition of a 48-layer model
  double pipeline_equal_layers_bottleneck_seconds = 0;  // the same number of layers per device
  double pipeline_speedup = 0;
  // Map-reduce: batch inference over 20 GB of images (map), aggregation (reduce).
  double map_reduce_fastest_to_slowest = 0;
  double map_reduce_seconds = 0;
  double map_reduce_equal_seconds = 0;
  double map_reduce_fetch_seconds = 0;  // of the chosen plan: phases
  double map_reduce_map_seconds = 0;
  double map_reduce_shuffle_seconds = 0;
  double map_reduce_reduce_seconds = 0;
  double map_reduce_split_speedup = 0;
};

// The benchmark's cluster: nodes h100, a100, v100, tpu-v5e with two devices each.
Cluster partition_benchmark_cluster();

PartitionBenchmarkResult run_partition_benchmark();

}  // namespace hetsched
