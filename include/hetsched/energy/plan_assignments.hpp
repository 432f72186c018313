// Turning a static DVFS plan of one job into the policy's Assignments through the
// one plan emitter (policy/plan_emitter.hpp): each task's device, P-state and planned
// start, offset by the job's planning time (the energy planners plan from now, each
// device from when the work already placed on it ends). Tasks left unplaced go through the
// policies' shared fallback (policy/earliest_finish_placement.hpp).
#pragma once

#include <span>

#include "hetsched/energy/job_energy_model.hpp"
#include "hetsched/policy/earliest_finish_placement.hpp"
#include "hetsched/policy/plan_emitter.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

// The job's energy model as the cluster stands now: each device free from when the work
// already placed on it is predicted to end (never, while it is down), relative to now.
JobEnergyModel job_energy_model_now(const ClusterSnapshot& snapshot, const DagInstance& instance,
                                    JobIndex job);

// emit_plan with the energy planners' emission: times from the snapshot's now, each
// task's P-state, tasks that start together by finish then index (the order the
// energy code re-times in).
void emit_dvfs_plan(const ClusterSnapshot& snapshot, const DagInstance& instance,
                    const DvfsSchedule& plan, AssignmentSink& out);

// The deadline of `job` relative to now, when it has one and it lies ahead; else 0.
double relative_deadline(const ClusterSnapshot& snapshot, JobIndex job);

// The deadline the energy policies plan `job` to: its own when it has one ahead, else
// the fastest list schedule's makespan × (1 + makespan_stretch).
double energy_planning_deadline(const ClusterSnapshot& snapshot, JobIndex job,
                                const JobEnergyModel& model, double makespan_stretch);

}  // namespace hetsched
