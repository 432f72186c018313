// The stream's plans, job by job in the order given, each around the work placed and the
// plans before it (see the header for the account and the cost).
#include "hetsched/learn/stream_plan.hpp"

#include <algorithm>

#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

void StreamPlan::plan(const ClusterSnapshot& snapshot, std::span<const JobIndex> jobs) {
  const double now = snapshot.now_seconds;
  const std::size_t devices = snapshot.cluster.device_count();
  device_.resize(snapshot.graph.task_count(), kNoDevice);
  start_.resize(snapshot.graph.task_count(), 0);
  // Per device, from now: when the work placed and the plans made so far leave it free.
  std::vector<double> free(devices);
  for (DeviceId d = 0; d < devices; ++d)
    free[d] = std::max(0.0, snapshot.device_available_seconds[d] - now);
  // Per NIC (each node's sending one, then each node's receiving one), from now: when the
  // transfers of the plans made so far leave it free.
  std::vector<double> nic_free(2 * snapshot.cluster.node_count(), 0.0);
  sequence_.assign(devices, {});
  next_.assign(devices, 0);
  for (JobIndex job : jobs) {
    const DagInstance instance(snapshot.graph, job, snapshot.perf);
    placed_.assign(instance.task_count(), PlannedTask{kNoDevice, 0, 0});
    for (std::uint32_t t = 0; t < instance.task_count(); ++t)
      if (const TaskIndex g = instance.global_task(t); snapshot.placement[g] != kUnplaced) {
        const double finish = snapshot.finish_seconds[g] - now;
        placed_[t] = {
            .device = snapshot.placement[g], .start_seconds = finish, .finish_seconds = finish};
      }
    const ScheduleLimits limits{.device_free_seconds = free,
                                .placed = placed_,
                                .network = NetworkModel::one_port_nics,
                                .nic_free_seconds = nic_free};
    StaticSchedule plan = heft_plan(instance, limits);
    if (StaticSchedule peft = peft_plan(instance, limits);
        peft.makespan_seconds < plan.makespan_seconds)
      plan = std::move(peft);
    for (std::uint32_t t : start_order(instance, plan)) {
      const TaskIndex g = instance.global_task(t);
      if (snapshot.placement[g] != kUnplaced) continue;
      const PlannedTask& p = plan.tasks[t];
      device_[g] = p.device;
      start_[g] = now + p.start_seconds;
      if (p.device == kNoDevice) continue;
      sequence_[p.device].push_back(g);
      free[p.device] = std::max(free[p.device], p.finish_seconds);
    }
    SharedNics::book_after(plan.transfers, nic_free);
  }
}

TaskIndex StreamPlan::head(const ClusterSnapshot& snapshot, DeviceId d) {
  if (d >= sequence_.size()) return kNoTask;
  const std::vector<TaskIndex>& sequence = sequence_[d];
  std::size_t& next = next_[d];
  while (next < sequence.size() && snapshot.placement[sequence[next]] != kUnplaced) ++next;
  return next < sequence.size() ? sequence[next] : kNoTask;
}

}  // namespace hetsched
