#include "hetsched/perf/perf_model.hpp"

#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

double PerfModel::task_seconds(const Task& task, const Device& device, std::size_t pstate) const {
  if (!can_run(task, device) || pstate >= device.spec.pstates.size()) return kCannotRun;
  if (!task.cost_seconds.empty()) {
    // A cost matrix covers the devices the job was read against; a device added
    // since (a node that joined a running service) has no cost, so cannot run it.
    if (device.id >= task.cost_seconds.size()) return kCannotRun;
    return task.cost_seconds[device.id] / device.spec.pstates[pstate].speed_scale;
  }
  return predict_seconds(task, device, pstate);
}

double PerfModel::task_watts(const Task&, const Device& device, std::size_t pstate) const {
  const DeviceSpec& spec = device.spec;
  return spec.idle_watts + (spec.peak_watts - spec.idle_watts) * spec.pstates[pstate].power_scale;
}

}  // namespace hetsched
