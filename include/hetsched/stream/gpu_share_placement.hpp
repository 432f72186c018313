// Placement of GPU-sharing pods (Alibaba cluster-trace-gpu-v2023) by the one job-stream
// core: pods ask for CPU, memory and either whole GPUs or a fraction of one GPU
// (milli-GPUs, isolated: the shares on one GPU never exceed 1000). The core places them
// by one of its rules (StreamSchedulerOptions::device_placement): best fit, or
// fragmentation-aware as in FGD (Weng et al., "Beware of Fragmentation", USENIX ATC
// 2023), with the trace's own request mix as FGD's target workload.
// Pods arrive at their creation time and hold their resources until their deletion
// time; a pod that cannot be placed waits, without holding back the pods behind it, is
// retried whenever resources free up, and counts as not placed if its deletion time
// comes first. With `keep_resources` pods never leave (the packing experiment of the
// FGD paper: how much of the GPU demand fits before the cluster is full).
#pragma once

#include <string>
#include <vector>

#include "hetsched/stream/alibaba_trace.hpp"
#include "hetsched/stream/stream_scheduler.hpp"

namespace hetsched {

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

// The core's view of the trace's nodes: one device type per GPU model (in order of
// first appearance), one node per trace node with its CPU and memory.
StreamResources alibaba_stream_resources(const std::vector<AlibabaNode>& nodes);
// A pod as a job of the core: a gang of its whole GPUs, a fraction of one GPU, or (a
// CPU pod) a gang of 0; a rate of 1 on each model it allows; its lifetime as its steps.
StreamJob alibaba_stream_job(const AlibabaPod& pod, const StreamResources& resources);

// `placement` is best_fit or fragmentation_aware.
GpuShareResult simulate_gpu_share(const std::vector<AlibabaNode>& nodes,
                                  const std::vector<AlibabaPod>& pods, DevicePlacement placement,
                                  bool keep_resources = false);

}  // namespace hetsched
