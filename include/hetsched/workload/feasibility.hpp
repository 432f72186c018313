// Which devices may run a task: the device's kind is allowed, it supports the
// task's precision and the task's footprint fits its memory.
#pragma once

#include <string>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

// Inline: the simulator's hot path asks it for every prediction.
inline bool can_run(const Task& task, const DeviceSpec& spec) {
  return task.allowed_kinds.contains(spec.kind) && spec.supports(task.precision) &&
         task.memory_bytes <= spec.memory_bytes;
}
inline bool can_run(const Task& task, const Device& device) { return can_run(task, device.spec); }

// Empty when some device of the cluster can run the task; otherwise why none can
// ("needs 200 GB but the largest device memory is 141 GB", ...).
std::string why_no_device_can_run(const Task& task, const Cluster& cluster);

}  // namespace hetsched
