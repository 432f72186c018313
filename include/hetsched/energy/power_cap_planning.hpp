// Planning within power caps: re-time a DVFS plan so that its planned draw stays
// within a cluster-wide cap and a per-node cap at every instant, as the simulator
// enforces them (every device draws its idle power all the time; a running task
// adds its power above idle). Tasks are taken in the plan's start order; each
// starts at the earliest time (after its inputs and its device's previous task)
// at which its added power fits under both caps for its whole run, at its planned
// P-state or a slower one — the choice that finishes first, ties to less energy.
// So a cap turns into slower clocks where that costs less time than waiting, and
// into waiting where it does not: power-capped list scheduling in the spirit of
// Pegasus/PowerShift-style capping (slow down before serialising) but planned
// ahead, so the simulator's cap enforcement has nothing left to correct for a
// single job. Several jobs planned one by one do not see each other's draw; the
// simulator's enforcement still holds the cap then.
//
// `make_power_capped_energy_aware_policy` is the energy-aware policy (least energy
// within the deadline or makespan stretch) followed by this re-timing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hetsched/energy/job_energy_model.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

struct PowerCaps {
  double cluster_watts = 0;  // 0: none
  double node_watts = 0;     // each node's devices together; 0: none
  bool any() const { return cluster_watts > 0 || node_watts > 0; }
};

struct PowerCappedPlan {
  DvfsSchedule plan;
  bool feasible = true;
  std::string message;            // why not: a cap below idle power, a task that fits no P-state
  double peak_watts = 0;          // planned peak of the cluster's draw
  double peak_node_watts = 0;     // planned peak of any node's draw
  std::size_t tasks_slowed = 0;   // run below their planned P-state to fit
  std::size_t tasks_delayed = 0;  // start later than their inputs and device allow, to fit
};

// node_of_device[d]: the node of device d (the caps' grouping).
PowerCappedPlan fit_to_power_caps(const JobEnergyModel& model, const DvfsSchedule& plan,
                                  const PowerCaps& caps, const std::vector<NodeId>& node_of_device);

std::unique_ptr<SchedulingPolicy> make_power_capped_energy_aware_policy(
    const PolicyOptions& options, const PowerCaps& caps);

}  // namespace hetsched
