// DVFS slack reclamation: after a makespan-oriented schedule, run tasks that are
// not on the critical path at lower P-states as far as their slack allows, keeping
// each task on its device and each device's order (as the DVFS-enabled HEFT
// variants do: Rizvandi et al.'s slack reclamation, DEWTS of Tang et al. 2016).
//
// The search is greedy and exact in its check: tasks are visited in decreasing
// order of the energy a full slow-down would save; for each, the lowest P-state
// whose schedule (every task as early as its device and inputs allow) still ends
// within the makespan bound is kept. The bound is the original makespan (no
// stretch) or the original makespan × (1 + stretch) for the mode that trades time
// for energy. Total energy (tasks + idle over the stretched makespan) is checked
// too: a change that would cost more idle energy than it saves is not taken. So the
// result never ends later than the bound and never uses more energy than the input.
//
// The baseline planner here, `insertion_eft_schedule`, is HEFT on the job's energy
// model (policy/list_scheduling.hpp's upward_rank_schedule at P-state 0, each task's
// external input counted); any StaticSchedule can be fed instead.
#pragma once

#include "hetsched/energy/job_energy_model.hpp"

namespace hetsched {

// HEFT's insertion-based earliest-finish-time list schedule at P-state 0, with the
// model's run times and external inputs. A task no device can run is left on device
// 0 with an infinite finish, and the makespan is infinite.
StaticSchedule insertion_eft_schedule(const JobEnergyModel& model);

struct SlackReclamationResult {
  DvfsSchedule plan;
  ScheduleEnergy before;  // the input schedule at full speed
  ScheduleEnergy after;
  double makespan_bound_seconds = 0;
  std::size_t tasks_slowed = 0;
  double energy_saved_fraction() const {
    return before.total_joules() > 0 ? 1 - after.total_joules() / before.total_joules() : 0;
  }
};

// Lowers P-states of `schedule` (all tasks at P-state 0) without letting the
// makespan exceed schedule.makespan × (1 + makespan_stretch).
SlackReclamationResult reclaim_slack(const JobEnergyModel& model, const StaticSchedule& schedule,
                                     double makespan_stretch = 0.0);

// The same, from a schedule that already has P-states (they are only lowered) and
// an absolute makespan bound.
SlackReclamationResult reclaim_slack_within(const JobEnergyModel& model, const DvfsSchedule& start,
                                            double makespan_bound_seconds);

}  // namespace hetsched
