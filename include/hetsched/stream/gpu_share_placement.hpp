// Placement of GPU-sharing pods (Alibaba cluster-trace-gpu-v2023): pods ask for CPU,
// memory and either whole GPUs or a fraction of one GPU (milli-GPUs, isolated: the
// shares on one GPU never exceed 1000). Two placement policies are compared:
//  - best fit: the node (and, for a fraction, the GPU) left with the least free
//    GPU capacity, the classic bin-packing rule;
//  - fragmentation-aware: the node and GPU whose choice least increases the cluster's
//    fragmentation, measured as in FGD (Weng et al., "Beware of Fragmentation",
//    USENIX ATC 2023): for every kind of request seen in the trace, weighted by its
//    popularity, the free GPU capacity of a node that such a request could not use.
// Pods arrive at their creation time and hold their resources until their deletion
// time; a pod that cannot be placed waits and is retried whenever resources free
// up, and counts as not placed if its deletion time comes first. With
// `keep_resources` pods never leave (the packing experiment of the FGD paper: how
// much of the GPU demand fits before the cluster is full).
#pragma once

#include <string>
#include <vector>

#include "hetsched/stream/alibaba_trace.hpp"

namespace hetsched {

enum class GpuSharePolicy { best_fit, fragmentation_aware };

struct GpuShareResult {
  std::string policy;
  std::size_t pods = 0;
  std::size_t gpu_pods = 0;
  std::size_t placed_gpu_pods = 0;
  double placed_fraction = 0;        // GPU demand (milli-GPUs) placed / asked for
  double fragmentation = 0;          // mean over arrivals of fragmented / free GPU capacity
  double fragmented_milli_gpus = 0;  // the same, as milli-GPUs
  double avg_wait_seconds = 0;       // over placed pods
};

GpuShareResult simulate_gpu_share(const std::vector<AlibabaNode>& nodes,
                                  const std::vector<AlibabaPod>& pods, GpuSharePolicy policy,
                                  bool keep_resources = false);

}  // namespace hetsched
