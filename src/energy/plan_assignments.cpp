#include "hetsched/energy/plan_assignments.hpp"

#include <algorithm>

#include "hetsched/energy/dvfs_slack_reclamation.hpp"

namespace hetsched {

void emit_plan(const ClusterSnapshot& snapshot, const DagInstance& instance,
               const DvfsSchedule& plan, AssignmentSink& out) {
  for (std::uint32_t t : start_order(plan.schedule)) {
    const PlannedTask& p = plan.schedule.tasks[t];
    if (p.finish_seconds == kCannotRun) continue;  // no device can run it: the loop reports it
    out.assign(Assignment{instance.global_task(t), p.device, plan.pstates[t],
                          snapshot.now_seconds + p.start_seconds});
  }
}

void place_earliest_finish(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                           AssignmentSink& out) {
  for (TaskIndex t : ready) {
    if (snapshot.placement[t] != kUnplaced) continue;
    const Task& task = snapshot.graph.task(t);
    DeviceId best = kUnplaced;
    double best_finish = kCannotRun;
    for (const Device& d : snapshot.cluster.devices()) {
      const double run = snapshot.perf.task_seconds(task, d, 0);
      if (run == kCannotRun) continue;
      const double finish =
          std::max(snapshot.device_available_seconds[d.id], snapshot.data_ready_seconds(t, d.id)) +
          run;
      if (finish < best_finish) best_finish = finish, best = d.id;
    }
    if (best != kUnplaced) out.assign(Assignment{t, best});
  }
}

double relative_deadline(const ClusterSnapshot& snapshot, JobIndex job) {
  const auto& deadline = snapshot.graph.job(job).deadline_seconds;
  if (!deadline || *deadline <= snapshot.now_seconds) return 0;
  return *deadline - snapshot.now_seconds;
}

double energy_planning_deadline(const ClusterSnapshot& snapshot, JobIndex job,
                                const JobEnergyModel& model, double makespan_stretch) {
  const double deadline = relative_deadline(snapshot, job);
  if (deadline > 0) return deadline;
  return insertion_eft_schedule(model).makespan_seconds * (1 + makespan_stretch);
}

}  // namespace hetsched
