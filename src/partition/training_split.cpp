#include "hetsched/partition/training_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/partition/data_parallel_split.hpp"

namespace hetsched {

double ring_allreduce_seconds(const Cluster& cluster, const std::vector<DeviceId>& ring,
                              double bytes) {
  const std::size_t n = ring.size();
  if (n < 2) return 0;
  double slowest_bandwidth = std::numeric_limits<double>::infinity(), worst_latency = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const NodeId a = cluster.device(ring[i]).node, b = cluster.device(ring[(i + 1) % n]).node;
    slowest_bandwidth = std::min(slowest_bandwidth, cluster.path_bandwidth(a, b));
    worst_latency = std::max(worst_latency, cluster.path_latency(a, b));
  }
  const double steps = 2.0 * static_cast<double>(n - 1);
  return steps / static_cast<double>(n) * bytes / slowest_bandwidth + steps * worst_latency;
}

TrainingSplit split_training_step(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                                  const TrainingStepSpec& spec) {
  const Cluster& cluster = perf.cluster();
  TrainingSplit out;
  out.devices = candidates;
  out.samples.assign(candidates.size(), 0.0);
  if (candidates.empty()) {
    out.message = "the device set is empty: there is nothing to train on";
    return out;
  }
  if (candidates.size() > 16) {
    out.message = fmt::format("{} devices: at most 16 candidates are searched", candidates.size());
    return out;
  }
  const double flops_per_sample = spec.flops_per_sample > 0
                                      ? spec.flops_per_sample
                                      : 6 * spec.parameters * spec.tokens_per_sample;
  Task step;
  step.name = "training-step";
  step.kernel = KernelClass::dense_matmul;
  step.precision = spec.precision;
  step.flops = flops_per_sample * spec.global_batch_samples;
  step.memory_bytes = spec.parameters * spec.model_memory_bytes_per_parameter;
  const double gradient_bytes = spec.parameters * spec.gradient_bytes_per_parameter;
  std::vector<SplitDevice> rates(candidates.size());
  std::vector<bool> usable(candidates.size(), false);
  std::string unusable;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i] >= cluster.device_count()) {
      out.message = fmt::format("device {} does not exist", candidates[i]);
      return out;
    }
    const Device& d = cluster.device(candidates[i]);
    const double seconds = perf.task_seconds(step, d, 0);
    if (seconds == kCannotRun) {
      unusable += fmt::format(" {} (the model needs {:.3g} GB, it has {:.3g} GB, or it lacks {})",
                              d.name, step.memory_bytes / 1e9, d.spec.memory_bytes / 1e9,
                              to_string(spec.precision));
      continue;
    }
    usable[i] = true;
    const double launch = d.spec.launch_overhead_seconds;
    rates[i] = SplitDevice{d.name, (seconds - launch) / spec.global_batch_samples, launch};
  }
  if (std::none_of(usable.begin(), usable.end(), [](bool b) { return b; })) {
    out.message = "no device can hold the model:" + unusable;
    return out;
  }
  const std::size_t n = candidates.size();
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t mask = 1; mask < (1u << n); ++mask) {
    DataParallelSplitRequest request{spec.global_batch_samples, 1, true, {}};
    std::vector<DeviceId> ring;
    std::vector<std::size_t> members;
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i)
      if (mask & (1u << i)) {
        ok &= usable[i];
        request.devices.push_back(rates[i]);
        ring.push_back(candidates[i]);
        members.push_back(i);
      }
    if (!ok || request.devices.size() > spec.global_batch_samples) continue;
    // Every member takes part: a split that leaves one out is another subset's.
    request.min_chunk_items = 1;
    const DataParallelSplit split = split_data_parallel(request);
    if (!split.feasible ||
        std::count(split.used.begin(), split.used.end(), true) != static_cast<long>(members.size()))
      continue;
    const double allreduce = ring_allreduce_seconds(cluster, ring, gradient_bytes);
    const double step_seconds = split.makespan_seconds + allreduce;
    if (step_seconds < best) {
      best = step_seconds;
      out.samples.assign(n, 0.0);
      for (std::size_t k = 0; k < members.size(); ++k) out.samples[members[k]] = split.items[k];
      out.compute_seconds = split.makespan_seconds;
      out.allreduce_seconds = allreduce;
      out.step_seconds = step_seconds;
    }
  }
  out.samples_per_second = spec.global_batch_samples / out.step_seconds;
  // Equal split over every usable candidate (the heterogeneity-blind baseline).
  std::vector<DeviceId> all;
  double share_compute = 0;
  std::size_t usable_count = std::count(usable.begin(), usable.end(), true);
  const double share = std::ceil(spec.global_batch_samples / static_cast<double>(usable_count));
  for (std::size_t i = 0; i < n; ++i)
    if (usable[i]) {
      all.push_back(candidates[i]);
      share_compute =
          std::max(share_compute, rates[i].startup_seconds + share * rates[i].seconds_per_item);
    }
  out.equal_step_seconds = share_compute + ring_allreduce_seconds(cluster, all, gradient_bytes);
  out.equal_samples_per_second = spec.global_batch_samples / out.equal_step_seconds;
  out.feasible = true;
  return out;
}

}  // namespace hetsched
