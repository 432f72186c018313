#include "cluster_split.hpp"

#include <fmt/format.h>

#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

Task scaled_per_item(const Task& per_item, double items) {
  Task t = per_item;
  t.flops *= items;
  t.bytes *= items;
  t.memory_bytes *= items;
  return t;
}

}  // namespace

ClusterSplit split_over_cluster(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                                const DivisibleTask& work) {
  const Cluster& cluster = perf.cluster();
  ClusterSplit out;
  DataParallelSplitRequest request;
  request.total_items = work.total_items;
  request.min_chunk_items = work.min_chunk_items;
  request.integral_items = work.integral_items;
  // Rates from the model on the whole task (so launch overhead counts once).
  const Task whole = scaled_per_item(work.per_item, work.total_items);
  std::string excluded;
  for (DeviceId id : candidates) {
    if (id >= cluster.device_count()) {
      excluded += fmt::format(" device {} does not exist;", id);
      continue;
    }
    const Device& d = cluster.device(id);
    Task probe = whole;
    probe.memory_bytes = work.per_item.memory_bytes * std::max(1.0, work.min_chunk_items);
    const double seconds = perf.task_seconds(probe, d, 0);
    if (seconds == kCannotRun) {
      excluded += fmt::format(" {} cannot run it;", d.name);
      continue;
    }
    const double launch = d.spec.launch_overhead_seconds;
    const double compute_per_item = (seconds - launch) / work.total_items;
    const NodeId node = d.node;
    const double bandwidth = cluster.path_bandwidth(work.data_node, node);
    const double latency =
        work.item_input_bytes > 0 ? cluster.path_latency(work.data_node, node) : 0;
    out.devices.push_back(id);
    out.compute_seconds_per_item.push_back(compute_per_item);
    out.launch_seconds.push_back(launch);
    request.devices.push_back(SplitDevice{
        d.name, compute_per_item + work.item_input_bytes / bandwidth, launch + latency});
  }
  out.split = split_data_parallel(request);
  if (!out.split.feasible && !excluded.empty()) out.split.message += ";" + excluded;
  return out;
}

Job split_to_job(const PerfModel& perf, const ClusterSplit& split, const DivisibleTask& work) {
  const Cluster& cluster = perf.cluster();
  Job job;
  job.name = work.name;
  job.family = "partitioned";
  job.data_node = work.data_node;
  for (std::size_t i = 0; i < split.devices.size(); ++i) {
    if (!split.split.used[i]) continue;
    const double items = split.split.items[i];
    Task part = scaled_per_item(work.per_item, items);
    part.name = fmt::format("{}/part{}@{}", work.name, job.tasks.size(),
                            cluster.device(split.devices[i]).name);
    part.input_bytes = items * work.item_input_bytes;
    part.cost_seconds.assign(cluster.device_count(), kCannotRun);
    part.cost_seconds[split.devices[i]] =
        split.launch_seconds[i] + items * split.compute_seconds_per_item[i];
    job.tasks.push_back(std::move(part));
  }
  return job;
}

}  // namespace hetsched
