// CPOP, Critical Path On a Processor (Topcuoglu, Hariri, Wu, IEEE TPDS 2002).
// Each task's priority is its upward plus downward rank; the tasks whose priority
// equals the entry task's lie on the critical path. The critical path goes whole
// onto the one device that runs its tasks fastest in total; the other tasks go to
// their earliest-finish device (with insertion). Tasks are taken from the ready
// set by decreasing priority (ties in topological order).
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

StaticSchedule cpop_plan(const DagInstance& instance, const ScheduleLimits& limits) {
  const std::size_t n = instance.task_count();
  const std::vector<double> up = upward_ranks(instance), down = downward_ranks(instance);
  std::vector<double> priority(n);
  for (std::size_t t = 0; t < n; ++t) priority[t] = up[t] + down[t];

  // The critical path: from the entry task of highest priority, follow at each step
  // the successor of highest priority (ties: lowest index).
  std::vector<bool> on_critical_path(n, false);
  std::uint32_t entry = static_cast<std::uint32_t>(n);
  for (std::uint32_t t = 0; t < n; ++t)
    if (instance.predecessors(t).empty() && (entry == n || priority[t] > priority[entry]))
      entry = t;
  for (std::uint32_t t = entry; t < n;) {
    on_critical_path[t] = true;
    std::uint32_t next = static_cast<std::uint32_t>(n);
    for (const DagNeighbor& s : instance.successors(t))
      if (next == n || priority[s.task] > priority[next] ||
          (priority[s.task] == priority[next] && s.task < next))
        next = s.task;
    t = next;
  }
  // The device that runs the whole critical path fastest.
  DeviceId critical_device = kNoDevice;
  double best_total = kCannotRun;
  for (DeviceId d = 0; d < instance.device_count(); ++d) {
    double total = 0;
    for (std::uint32_t t = 0; t < n; ++t)
      if (on_critical_path[t]) total += instance.compute_seconds(t, d);
    if (total < best_total) best_total = total, critical_device = d;
  }

  PartialSchedule partial(instance, limits);
  for (const std::uint32_t t : priority_order(instance, priority)) {
    PlannedTask placement{kNoDevice, kCannotRun, kCannotRun};
    if (on_critical_path[t] && critical_device != kNoDevice)
      placement = partial.earliest_placement(t, critical_device);
    if (placement.finish_seconds == kCannotRun) placement = partial.earliest_finish_placement(t);
    if (placement.device != kNoDevice) partial.place(t, placement);
  }
  return std::move(partial).finish();
}

std::unique_ptr<SchedulingPolicy> make_cpop_policy(const PolicyOptions& options) {
  return make_static_planner_policy("cpop", cpop_plan, options.plan_network);
}

}  // namespace hetsched
