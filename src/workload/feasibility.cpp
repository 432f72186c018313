#include "hetsched/workload/feasibility.hpp"

#include <fmt/format.h>

namespace hetsched {

Status check_runnable(const Task& task, const Cluster& cluster) {
  bool kind_allowed = false, precision_supported = false;
  double largest_memory = 0;
  for (const Device& d : cluster.devices()) {
    if (can_run(task, d)) return {};
    if (!task.allowed_kinds.contains(d.spec.kind)) continue;
    kind_allowed = true;
    if (!d.spec.supports(task.precision)) continue;
    precision_supported = true;
    largest_memory = std::max(largest_memory, d.spec.memory_bytes);
  }
  if (cluster.device_count() == 0) return failure("the cluster has no devices");
  if (!kind_allowed) return failure("no device of an allowed kind in the cluster");
  if (!precision_supported)
    return failure(fmt::format("no allowed device supports {}", to_string(task.precision)));
  return failure(
      fmt::format("needs {:.3g} GB of memory but the largest allowed device has {:.3g} GB",
                  task.memory_bytes / 1e9, largest_memory / 1e9));
}

}  // namespace hetsched
