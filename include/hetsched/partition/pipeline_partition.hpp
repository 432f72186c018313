// Model/pipeline-parallel partition: a chain of layers split into contiguous
// stages on an ordered list of heterogeneous devices so that the slowest stage —
// its compute plus sending its boundary activations to the next stage — is as
// short as possible, each stage fitting its device's memory. Dynamic programming
// over (devices used so far, layers placed so far), as PipeDream's partitioner
// does (Narayanan et al., SOSP 2019), here with per-device speeds and memories:
//   best[k][j] = min( best[k−1][j],                        device k−1 left idle
//                     min_{i<j} max(best[k−1][i], stage(k−1, i, j)) )
// in O(devices × layers²). A device may be left without a stage when that helps.
// Stage memory = Σ over its layers of parameter bytes × the optimizer factor plus
// activation bytes × the number of micro-batches in flight (1 by default).
#pragma once

#include <string>
#include <vector>

namespace hetsched {

struct PipelineLayer {
  double flops = 0;             // forward + backward per micro-batch
  double activation_bytes = 0;  // output sent to the next layer per micro-batch
  double parameter_bytes = 0;
};

struct PipelineDevice {
  std::string name;
  double flops_per_second = 0;  // sustained on these layers
  double memory_bytes = 0;
  double link_bandwidth = 0;  // to the next stage's device, bytes/s
  double link_latency_seconds = 0;
};

struct PipelineOptions {
  double optimizer_memory_factor = 1;  // parameter bytes × this must fit (e.g. 8 for Adam, fp16)
  double activations_in_flight = 1;
};

struct PipelinePartition {
  bool feasible = false;
  std::string message;
  // Per device: the layers [first_layer, end_layer) of its stage; empty when unused.
  std::vector<std::size_t> first_layer, end_layer;
  std::vector<double> stage_seconds;  // compute + boundary transfer, per device
  double bottleneck_seconds = 0;      // the slowest stage: the pipeline's time per micro-batch
};

// Seconds of a stage of layers [first, end) on `device`, or infinity when it does
// not fit the device's memory (end > first). `last` says whether it ends the chain
// (no boundary transfer).
double pipeline_stage_seconds(const std::vector<PipelineLayer>& layers, std::size_t first,
                              std::size_t end, const PipelineDevice& device,
                              const PipelineOptions& options);

PipelinePartition partition_pipeline(const std::vector<PipelineLayer>& layers,
                                     const std::vector<PipelineDevice>& devices,
                                     const PipelineOptions& options = {});

}  // namespace hetsched
