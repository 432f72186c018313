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
