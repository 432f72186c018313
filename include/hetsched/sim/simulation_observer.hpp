// SimulationObserver: what a Simulator in an open world (the service's twin) tells its
// owner beside the SchedulingLoop: each task's start and end on the virtual clock, with
// the energy it drew, so the owner can keep its own records of where and when work ran.
#pragma once

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  virtual void task_started(TaskIndex task, DeviceId device, double now) = 0;
  virtual void task_finished(TaskIndex task, DeviceId device, double now, double joules) = 0;
};

}  // namespace hetsched
