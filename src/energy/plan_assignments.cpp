#include "hetsched/energy/plan_assignments.hpp"

#include <algorithm>
#include <vector>

#include "hetsched/energy/dvfs_slack_reclamation.hpp"

namespace hetsched {

JobEnergyModel job_energy_model_now(const ClusterSnapshot& snapshot, const DagInstance& instance,
                                    JobIndex job) {
  JobEnergyModel model(instance, snapshot.graph, job, snapshot.perf);
  std::vector<double> free(model.device_count(), 0.0);
  for (DeviceId d = 0; d < free.size() && d < snapshot.device_available_seconds.size(); ++d)
    free[d] = snapshot.device_available_seconds[d] - snapshot.now_seconds;
  model.set_device_free_seconds(free);
  return model;
}

void emit_dvfs_plan(const ClusterSnapshot& snapshot, const DagInstance& instance,
                    const DvfsSchedule& plan, AssignmentSink& out) {
  emit_plan(snapshot, instance, plan.schedule,
            PlanEmission{.time_origin_seconds = snapshot.now_seconds,
                         .pstates = plan.pstates,
                         .ties = StartTies::finish_then_index},
            out);
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
