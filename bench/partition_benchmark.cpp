#include "partition_benchmark.hpp"

#include <algorithm>
#include <numeric>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/units.hpp"
#include "hetsched/partition/map_reduce_partition.hpp"
#include "hetsched/partition/pipeline_partition.hpp"
#include "hetsched/partition/stencil_split.hpp"
#include "hetsched/partition/training_split.hpp"
#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {

Cluster partition_benchmark_cluster() {
  Cluster cluster;
  struct Part {
    const char* model;
    IntraNodeLink link;
  };
  const Part parts[] = {{"H100-SXM", {"nvlink4", 450e9, 2e-6}},
                        {"A100-80GB", {"nvlink3", 300e9, 2e-6}},
                        {"V100", {"nvlink2", 150e9, 2e-6}},
                        {"TPU-v5e", {"ici", 200e9, 2e-6}}};
  for (const Part& p : parts) {
    Node n;
    n.name = std::string(p.model) + "-node";
    n.link = p.link;
    n.host_memory_bytes = 1024 * units::gigabyte;
    n.nic_bandwidth = 100 * units::gigabit_per_second;
    const DeviceSpec& spec = *find_catalog_part(p.model);
    cluster.add_node(std::move(n), {spec, spec});
  }
  return cluster;
}

PartitionBenchmarkResult run_partition_benchmark() {
  PartitionBenchmarkResult out;
  const Cluster cluster = partition_benchmark_cluster();
  const RooflineModel perf(cluster);
  std::vector<DeviceId> all(cluster.device_count());
  std::iota(all.begin(), all.end(), DeviceId{0});
  out.devices = static_cast<std::uint32_t>(all.size());

  // A 700M-parameter transformer, bf16, 1024-token samples, global batch 512.
  TrainingStepSpec training;
  training.parameters = 7e8;
  training.global_batch_samples = 512;
  const TrainingSplit t = split_training_step(perf, all, training);
  out.training_step_seconds = t.step_seconds;
  out.training_equal_step_seconds = t.equal_step_seconds;
  out.training_allreduce_seconds = t.allreduce_seconds;
  out.training_devices_used = static_cast<std::uint32_t>(
      std::count_if(t.samples.begin(), t.samples.end(), [](double s) { return s > 0; }));
  out.training_split_speedup = t.speedup_over_equal();
  {
    Task step;
    step.kernel = KernelClass::dense_matmul;
    step.precision = Precision::fp16;
    step.flops = 1e15;
    double fastest = 0, slowest = kCannotRun;
    for (const Device& d : cluster.devices()) {
      const double rate = 1 / perf.task_seconds(step, d, 0);
      fastest = std::max(fastest, rate), slowest = std::min(slowest, rate);
    }
    out.training_fastest_to_slowest = fastest / slowest;
  }

  // A 1024³ fp32 3-D stencil, cut into slabs of 1024² planes.
  StencilSpec stencil;
  stencil.planes = 1024;
  stencil.cells_per_plane = 1024.0 * 1024.0;
  const StencilSplit s = split_stencil(perf, all, stencil);
  out.stencil_iteration_seconds = s.iteration_seconds;
  out.stencil_equal_iteration_seconds = s.equal_iteration_seconds;
  out.stencil_devices_used =
      static_cast<std::uint32_t>(std::count(s.split.used.begin(), s.split.used.end(), true));
  out.stencil_split_speedup = s.speedup_over_equal();
  {
    double fastest = 0, slowest = kCannotRun;
    Task sweep;
    sweep.kernel = KernelClass::elementwise;
    sweep.precision = Precision::fp32;
    sweep.flops = 8e9;
    sweep.bytes = 16e9;
    for (const Device& d : cluster.devices()) {
      const double seconds = perf.task_seconds(sweep, d, 0);
      if (seconds == kCannotRun) continue;
      fastest = std::max(fastest, 1 / seconds), slowest = std::min(slowest, 1 / seconds);
    }
    out.stencil_fastest_to_slowest = fastest / slowest;
  }

  // Pipeline: 48 equal transformer layers (hidden 4096, micro-batch of 8 × 2048
  // tokens) over the 8 devices in node order, against 6 layers per device.
  std::vector<PipelineLayer> layers(48);
  const double hidden = 4096, tokens = 8 * 2048;
  for (PipelineLayer& l : layers) {
    l.flops = 6 * 12 * hidden * hidden * tokens;  // forward + backward
    l.activation_bytes = 2 * hidden * tokens;
    l.parameter_bytes = 2 * 12 * hidden * hidden;
  }
  std::vector<PipelineDevice> devices;
  Task layer_task;
  layer_task.kernel = KernelClass::dense_matmul;
  layer_task.precision = Precision::fp16;
  layer_task.flops = layers[0].flops;
  for (const Device& d : cluster.devices()) {
    const double seconds = perf.task_seconds(layer_task, d, 0) - d.spec.launch_overhead_seconds;
    const NodeId next = cluster.device(std::min<DeviceId>(d.id + 1, out.devices - 1)).node;
    devices.push_back(PipelineDevice{d.name, layer_task.flops / seconds, d.spec.memory_bytes,
                                     cluster.path_bandwidth(d.node, next),
                                     cluster.path_latency(d.node, next)});
  }
  PipelineOptions options;
  options.optimizer_memory_factor =
      4;  // bf16 weights and gradients, optimizer state sharded elsewhere
  const PipelinePartition p = partition_pipeline(layers, devices, options);
  out.pipeline_bottleneck_seconds = p.bottleneck_seconds;
  const std::size_t per_device = layers.size() / devices.size();
  for (std::size_t k = 0; k < devices.size(); ++k)
    out.pipeline_equal_layers_bottleneck_seconds = std::max(
        out.pipeline_equal_layers_bottleneck_seconds,
        pipeline_stage_seconds(layers, k * per_device, (k + 1) * per_device, devices[k], options));
  out.pipeline_speedup = p.bottleneck_seconds > 0
                             ? out.pipeline_equal_layers_bottleneck_seconds / p.bottleneck_seconds
                             : 0;

  // Map-reduce: batch inference of a vision model over 20 GB of images stored
  // evenly on the nodes (4e5 flop per input byte, fp16 matrix work, ~60 GFLOP per
  // 150 KB image), emitting 1 % of the input as embeddings that reducers aggregate
  // (memory-bound).
  MapReduceSpec mr;
  mr.name = "image-inference-etl";
  mr.input_bytes = 20e9;
  mr.map_per_byte.kernel = KernelClass::dense_matmul;
  mr.map_per_byte.precision = Precision::fp16;
  mr.map_per_byte.flops = 4e5;
  mr.map_per_byte.bytes = 4;
  mr.map_per_byte.memory_bytes = 4e9;
  mr.reduce_per_byte.kernel = KernelClass::reduction;
  mr.reduce_per_byte.precision = Precision::fp32;
  mr.reduce_per_byte.flops = 2;
  mr.reduce_per_byte.bytes = 8;
  mr.reduce_per_byte.memory_bytes = 1e9;
  mr.map_output_ratio = 0.01;
  const MapReducePlan plan = plan_map_reduce(perf, all, mr);
  out.map_reduce_seconds = plan.makespan_seconds();
  out.map_reduce_equal_seconds = plan.equal.total_seconds();
  out.map_reduce_fetch_seconds = plan.phases.map_fetch_seconds;
  out.map_reduce_map_seconds = plan.phases.map_seconds;
  out.map_reduce_shuffle_seconds = plan.phases.shuffle_seconds;
  out.map_reduce_reduce_seconds = plan.phases.reduce_seconds;
  out.map_reduce_split_speedup = plan.speedup_over_equal();
  {
    double fastest = 0, slowest = kCannotRun;
    const Task probe = [&] {
      Task t = mr.map_per_byte;
      t.flops *= 1e9;
      t.bytes *= 1e9;
      return t;
    }();
    for (const Device& d : cluster.devices()) {
      const double seconds = perf.task_seconds(probe, d, 0);
      if (seconds == kCannotRun) continue;
      fastest = std::max(fastest, 1 / seconds), slowest = std::min(slowest, 1 / seconds);
    }
    out.map_reduce_fastest_to_slowest = fastest / slowest;
  }
  return out;
}

}  // namespace hetsched
