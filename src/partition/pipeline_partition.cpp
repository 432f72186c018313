#include "hetsched/partition/pipeline_partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace hetsched {
namespace {
constexpr double kUnplaceable = std::numeric_limits<double>::infinity();

double layer_memory(const PipelineLayer& l, const PipelineOptions& o) {
  return l.parameter_bytes * o.optimizer_memory_factor +
         l.activation_bytes * o.activations_in_flight;
}
}  // namespace

double pipeline_stage_seconds(const std::vector<PipelineLayer>& layers, std::size_t first,
                              std::size_t end, const PipelineDevice& device,
                              const PipelineOptions& options) {
  if (end <= first) return 0;
  double flops = 0, memory = 0;
  for (std::size_t i = first; i < end; ++i) {
    flops += layers[i].flops;
    memory += layer_memory(layers[i], options);
  }
  if (memory > device.memory_bytes || !(device.flops_per_second > 0)) return kUnplaceable;
  double seconds = flops / device.flops_per_second;
  if (end < layers.size() && layers[end - 1].activation_bytes > 0)
    seconds += device.link_latency_seconds +
               (device.link_bandwidth > 0 ? layers[end - 1].activation_bytes / device.link_bandwidth
                                          : kUnplaceable);
  return seconds;
}

PipelinePartition partition_pipeline(const std::vector<PipelineLayer>& layers,
                                     const std::vector<PipelineDevice>& devices,
                                     const PipelineOptions& options) {
  PipelinePartition out;
  const std::size_t k_count = devices.size(), l_count = layers.size();
  if (k_count == 0) {
    out.message = "the device set is empty: there is nowhere to place the layers";
    return out;
  }
  if (l_count == 0) {
    out.message = "the model has no layers";
    return out;
  }
  double largest = 0;
  std::string largest_name;
  for (const PipelineDevice& d : devices)
    if (d.memory_bytes > largest) largest = d.memory_bytes, largest_name = d.name;
  for (std::size_t i = 0; i < l_count; ++i)
    if (layer_memory(layers[i], options) > largest) {
      out.message = fmt::format(
          "layer {} needs {:.4g} GB but the largest device ({}) has {:.4g} GB: it fits no device",
          i, layer_memory(layers[i], options) / 1e9, largest_name, largest / 1e9);
      return out;
    }
  // best[k][j]: least bottleneck placing layers [0, j) on devices [0, k).
  std::vector<std::vector<double>> best(k_count + 1,
                                        std::vector<double>(l_count + 1, kUnplaceable));
  std::vector<std::vector<std::size_t>> cut(k_count + 1, std::vector<std::size_t>(l_count + 1, 0));
  best[0][0] = 0;
  for (std::size_t k = 1; k <= k_count; ++k) {
    for (std::size_t j = 0; j <= l_count; ++j) {
      best[k][j] = best[k - 1][j];  // device k−1 idle
      cut[k][j] = j;
      for (std::size_t i = 0; i < j; ++i) {
        if (best[k - 1][i] == kUnplaceable) continue;
        const double stage = pipeline_stage_seconds(layers, i, j, devices[k - 1], options);
        const double value = std::max(best[k - 1][i], stage);
        if (value < best[k][j]) best[k][j] = value, cut[k][j] = i;
      }
    }
  }
  if (best[k_count][l_count] == kUnplaceable) {
    out.message = "the layers do not fit the devices' memory in any contiguous split";
    return out;
  }
  out.first_layer.assign(k_count, 0);
  out.end_layer.assign(k_count, 0);
  out.stage_seconds.assign(k_count, 0.0);
  std::size_t j = l_count;
  for (std::size_t k = k_count; k >= 1; --k) {
    const std::size_t i = cut[k][j];
    out.first_layer[k - 1] = i;
    out.end_layer[k - 1] = j;
    out.stage_seconds[k - 1] = pipeline_stage_seconds(layers, i, j, devices[k - 1], options);
    j = i;
  }
  out.bottleneck_seconds = best[k_count][l_count];
  out.feasible = true;
  return out;
}

}  // namespace hetsched
