// Energy-aware placement under a deadline: choose a device and a P-state for every
// task of a DAG so that the energy is least and the job still ends by the deadline.
//
// Four candidates are built and the one with less energy that meets the deadline is
// kept. (1) The fastest list schedule (insertion EFT) with its slack reclaimed up to
// the deadline. (2) An energy-first list schedule: each task, in upward-rank order,
// gets a sub-deadline (the deadline scaled by how much of the longest path lies
// before and within it, as in the deadline-distribution step of Yu and Buyya's
// workflow scheduling) and goes to the (device, P-state) that adds the least energy
// among those that finish by its sub-deadline (the fastest finish when none does);
// its slack is then reclaimed too. (3) The fastest schedule re-mapped for energy
// within the deadline (energy_remapping.hpp: tasks moved to the device and P-state
// where they cost less, then slack reclaimed). (4) The job on fewer devices
// (device_consolidation.hpp), re-mapped and slowed the same way, so the devices it
// leaves are released. When even the fastest schedule misses the
// deadline the answer says so, by how much, and whether any schedule at all could
// meet it (the critical path at the fastest device's speed, with free
// communication, is a lower bound no schedule beats).
#pragma once

#include <string>

#include "hetsched/energy/dvfs_slack_reclamation.hpp"
#include "hetsched/energy/energy_remapping.hpp"

namespace hetsched {

struct EnergyAwarePlan {
  DvfsSchedule plan;
  ScheduleEnergy energy;
  ScheduleEnergy fastest_energy;  // the fastest schedule at full speed, for comparison
  double deadline_seconds = 0;
  double fastest_makespan_seconds = 0;
  double critical_path_lower_bound_seconds = 0;
  bool deadline_met = true;
  double deadline_shortfall_seconds = 0;  // > 0 when the deadline cannot be met
  std::string candidate;                  // which construction won
  std::string message;                    // empty when the deadline is met
};

// Lower bound on any schedule's makespan: the longest path where every task runs at
// its fastest device's speed and data moves for free.
double critical_path_lower_bound(const JobEnergyModel& model);

struct EnergyAwareOptions {
  // Candidate (4), fewer devices. Callers that sweep device subsets themselves (the
  // Pareto front) turn it off.
  bool consolidate = true;
  // Passes of each re-mapping local search (the Pareto front, which plans many
  // subsets and bounds, uses one).
  std::size_t remap_passes = 8;
  // The re-mapping's result within the fastest schedule's own makespan, for callers that
  // plan one schedule under several deadlines (minimise_energy_within_bound).
  const EnergyRemapResult* remap_within_fastest_makespan = nullptr;
};

// deadline_seconds is relative to the job's start.
EnergyAwarePlan plan_energy_aware(const JobEnergyModel& model, double deadline_seconds);
// The same, given the fastest list schedule already computed for this model.
EnergyAwarePlan plan_energy_aware(const JobEnergyModel& model, double deadline_seconds,
                                  const StaticSchedule& fastest,
                                  const EnergyAwareOptions& options = {});

}  // namespace hetsched
