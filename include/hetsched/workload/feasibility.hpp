// Which devices may run a task: the device's kind is allowed, it supports the
// task's precision and the task's footprint fits its memory.
#pragma once

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/expected.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

// Inline: the simulator's hot path asks it for every prediction.
inline bool can_run(const Task& task, const DeviceSpec& spec) {
  return task.allowed_kinds.contains(spec.kind) && spec.supports(task.precision) &&
         task.memory_bytes <= spec.memory_bytes;
}
inline bool can_run(const Task& task, const Device& device) { return can_run(task, device.spec); }

// Succeeds when some device of the cluster can run the task; otherwise fails with why
// none can ("needs 200 GB but the largest device memory is 141 GB", ...).
Status check_runnable(const Task& task, const Cluster& cluster);

}  // namespace hetsched
