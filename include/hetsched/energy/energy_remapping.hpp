// Energy-aware re-mapping within a makespan budget: after a makespan-oriented
// schedule, move tasks to the (device, P-state) where they cost the least energy
// as long as the whole schedule still ends within the bound, then reclaim the
// remaining slack by DVFS. This is the re-mapping step of the energy-efficient
// DAG schedulers that start from HEFT (DEWTS, Tang et al. 2016; EES, which moves
// tasks into the slack of other processors): a task whose
// fastest device is not its most energy-efficient one (an fp64 matmul that HEFT put
// on a slower, hungrier GPU to shorten the schedule; branchy code on a GPU that a
// CPU runs with less energy) goes where it costs less if the schedule's slack
// allows it.
//
// The search is a local search over one-task moves. The schedule
// is a placement, a P-state per task and a global order (a topological order; each
// device runs its tasks in this order); a move changes one task's device and
// P-state, and the schedule is re-timed with every task as early as its device and
// inputs allow (so the move is exact, communication included). A move is kept if
// the re-timed schedule ends within the bound and its total energy (tasks plus the
// idle energy of every device over the makespan) is lower. For each task every
// (device, P-state) is first estimated in O(degree): when the task could start there
// (its inputs, the task before it on that device in the order — both exact, since
// nothing before it in the order moves), the chains after it, and the energy change
// (its dynamic energy, idle power of a longer schedule, a device taken into or out of
// use); only the four moves with the lowest estimated energy that the estimate keeps
// within the bound are re-timed exactly. A pass therefore costs O(tasks × (tasks +
// edges)) whatever the number of devices, so re-mapping runs on the suite's 1,000-task,
// 64-device graphs. Tasks are visited by decreasing energy; passes repeat until none
// improves (or a pass limit). The
// result is then handed to slack reclamation, and the candidates (slack
// reclamation alone; re-mapping then reclamation; slack reclamation by steps of
// the best energy saved per second of slack used) are compared: the least total
// energy within the bound wins (with a stretch, the candidates found within the
// original makespan too), so the result never uses more energy than slack
// reclamation alone, nor than with less stretch.
#pragma once

#include <string>

#include "hetsched/energy/dvfs_slack_reclamation.hpp"

namespace hetsched {

struct EnergyRemapResult {
  DvfsSchedule plan;
  ScheduleEnergy before;  // the input schedule at full speed
  ScheduleEnergy after;
  double makespan_bound_seconds = 0;
  std::size_t tasks_moved = 0;   // tasks on another device than in the input
  std::size_t tasks_slowed = 0;  // tasks below P-state 0
  std::string candidate;         // which construction won
  double energy_saved_fraction() const {
    return before.total_joules() > 0 ? 1 - after.total_joules() / before.total_joules() : 0;
  }
};

// One-task (device, P-state) moves that lower total energy and keep the makespan
// within the bound, from `start`; no slack reclamation afterwards.
DvfsSchedule remap_for_energy(const JobEnergyModel& model, const DvfsSchedule& start,
                              double makespan_bound_seconds, std::size_t max_passes = 8);

// Slack reclamation by single P-state steps, each time the step with the most
// energy saved per second it lengthens its task among those that keep the bound:
// slack goes first where it buys the most (the first step down saves the most per
// second, so spreading slack over a chain beats spending it on one task).
SlackReclamationResult reclaim_slack_stepwise(const JobEnergyModel& model,
                                              const DvfsSchedule& start,
                                              double makespan_bound_seconds);

// The least-energy schedule within schedule.makespan × (1 + stretch) among slack
// reclamation, stepwise slack reclamation and re-mapping followed by both.
EnergyRemapResult minimise_energy_within(const JobEnergyModel& model,
                                         const StaticSchedule& schedule, double makespan_stretch);
// The same within an absolute bound (the schedule itself must end within it).
// `remap_passes` bounds each re-mapping's passes (each O(tasks × (tasks + edges))).
// A looser bound than the schedule's own makespan also considers what the searches find
// within that makespan (they are greedy): `within_own_makespan`, when given, is that
// result, computed once by a caller that sweeps bounds over one schedule (this function
// with the schedule's makespan as the bound and the same passes).
EnergyRemapResult minimise_energy_within_bound(
    const JobEnergyModel& model, const StaticSchedule& schedule, double makespan_bound_seconds,
    std::size_t remap_passes = 8, const EnergyRemapResult* within_own_makespan = nullptr);

}  // namespace hetsched
