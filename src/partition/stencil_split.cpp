#include "hetsched/partition/stencil_split.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace hetsched {

StencilSplit split_stencil(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                           const StencilSpec& spec) {
  const Cluster& cluster = perf.cluster();
  StencilSplit out;
  DataParallelSplitRequest request{spec.planes, 1, true, {}};
  Task sweep;
  sweep.name = "stencil-sweep";
  sweep.kernel = KernelClass::elementwise;
  sweep.precision = spec.precision;
  sweep.flops = spec.flops_per_cell * spec.cells_per_plane * spec.planes;
  sweep.bytes = spec.bytes_per_cell * spec.cells_per_plane * spec.planes;
  const double halo_bytes = spec.halo_bytes_per_cell * spec.cells_per_plane;
  std::string unusable;
  for (DeviceId id : candidates) {
    if (id >= cluster.device_count()) {
      out.split.message = fmt::format("device {} does not exist", id);
      return out;
    }
    const Device& d = cluster.device(id);
    Task probe = sweep;
    probe.memory_bytes = 2 * spec.bytes_per_cell * spec.cells_per_plane;  // at least one plane
    const double seconds = perf.task_seconds(probe, d, 0);
    if (seconds == kCannotRun) {
      unusable += fmt::format(" {} cannot run {} stencils;", d.name, to_string(spec.precision));
      continue;
    }
    const double launch = d.spec.launch_overhead_seconds;
    // One halo plane in and one out per neighbour; two neighbours for an inner slab.
    // The worst link from this device to any other candidate bounds the exchange.
    double bandwidth = std::numeric_limits<double>::infinity(), latency = 0;
    for (DeviceId other : candidates)
      if (other != id && other < cluster.device_count()) {
        const NodeId a = d.node, b = cluster.device(other).node;
        bandwidth = std::min(bandwidth, cluster.path_bandwidth(a, b));
        latency = std::max(latency, cluster.path_latency(a, b));
      }
    const double halo = candidates.size() > 1 ? 2 * (latency + halo_bytes / bandwidth) : 0.0;
    out.devices.push_back(id);
    request.devices.push_back(SplitDevice{d.name, (seconds - launch) / spec.planes, launch + halo});
  }
  out.split = split_data_parallel(request);
  if (!out.split.feasible) {
    out.split.message += unusable.empty() ? "" : ";" + unusable;
    return out;
  }
  out.iteration_seconds = out.split.makespan_seconds;
  out.total_seconds = out.iteration_seconds * spec.iterations;
  out.equal_iteration_seconds = out.split.equal_split_makespan_seconds;
  return out;
}

}  // namespace hetsched
