// ClusterSnapshot: everything a policy may read when it decides — the cluster,
// the tasks, the performance model, the current time and what each device and
// task is doing. It is a read-only view handed to the policy at each decision.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/perf_model.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

inline constexpr DeviceId kUnplaced = std::numeric_limits<DeviceId>::max();

enum class TaskState : std::uint8_t { pending, ready, placed, running, finished };

struct ClusterSnapshot {
  double now_seconds = 0;
  const Cluster& cluster;
  const TaskGraph& graph;
  const PerfModel& perf;
  // Predicted time at which each device finishes all the work already placed on it.
  std::span<const double> device_available_seconds;
  std::span<const DeviceId> placement;   // per task; kUnplaced when not placed
  std::span<const std::uint8_t> pstate;  // per task, meaningful when placed
  std::span<const TaskState> state;      // per task
  // Per task: actual finish time when finished, predicted finish when placed.
  std::span<const double> finish_seconds;
  // Predicted free times only grow as work is placed, except where reality wins (a device
  // that has drained earlier than predicted is free from now) or a device comes back: those
  // devices, in order, numbered from availability_lowered_first, since the loop began (an
  // index of devices by free time corrects the ones listed since it last looked; one that
  // finds entries it has not seen dropped from the front rebuilds).
  std::span<const DeviceId> availability_lowered = {};
  std::uint64_t availability_lowered_first = 0;

  // Earliest time the task's inputs can all be on `device`, from what is known now:
  // finished (or predicted) producers plus the transfer of each edge, and the job's
  // external input from its data node.
  double data_ready_seconds(TaskIndex task, DeviceId device) const;
  // The longest transfer of the task's inputs to `device` (its job's external input from
  // the data node, each producer's output from the producer's device): once every producer
  // has finished, data_ready_seconds is now plus this, whenever now is.
  double input_transfer_seconds(TaskIndex task, DeviceId device) const;
};

}  // namespace hetsched
