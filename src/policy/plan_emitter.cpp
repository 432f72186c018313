// The plan emitter (see plan_emitter.hpp): the plan's tasks in start order, each
// with its device, P-state and planned start moved to absolute time.
#include "hetsched/policy/plan_emitter.hpp"

namespace hetsched {

void emit_plan(const ClusterSnapshot& snapshot, const DagInstance& instance,
               const StaticSchedule& plan, const PlanEmission& how, AssignmentSink& out) {
  for (const std::uint32_t t : start_order(instance, plan, how.ties)) {
    const PlannedTask& p = plan.tasks[t];
    if (p.device == kNoDevice || p.finish_seconds == kCannotRun) continue;  // runs nowhere
    if (how.skip_placed && snapshot.placement[instance.global_task(t)] != kUnplaced) continue;
    out.assign(Assignment{instance.global_task(t), instance.global_device(p.device),
                          how.pstates.empty() ? std::uint8_t{0} : how.pstates[t],
                          how.time_origin_seconds + p.start_seconds});
  }
}

}  // namespace hetsched
