// The plan emitter: a static plan of one job, handed to the scheduling loop as one
// Assignment per task — its device, P-state and planned absolute start — in order of
// planned start, so the loop's predictions build on the producers' placements and a
// backend that starts a device's first queued task at once sees the device's earlier
// tasks first. Every static planner emits through it: HEFT and kin
// (StaticPlannerPolicy), the milp policy and the energy planners.
//
// A plan is timed either in absolute time (StaticPlannerPolicy and milp plan so) or
// from now (the energy planners' JobEnergyModel plans so); time_origin_seconds says
// which. Either way it starts each device's tasks no earlier than the device's
// predicted free time: every planner respects device availability.
#pragma once

#include <cstdint>
#include <span>

#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

struct PlanEmission {
  // Added to every planned start: 0 for a plan in absolute time, the snapshot's now
  // for a plan timed from now.
  double time_origin_seconds = 0;
  // Per task of the instance; empty: every task at P-state 0.
  std::span<const std::uint8_t> pstates = {};
  // The order of tasks that start together (see StartTies).
  StartTies ties = StartTies::topological;
  // Leave out the tasks the loop has placed already (a plan asked for again, as the
  // default score of SchedulingPolicy::score_devices asks).
  bool skip_placed = false;
};

// Emits every task of `plan` that has a device and a finite finish; the others (no
// device can run them) are left for the loop to report or to offer again.
void emit_plan(const ClusterSnapshot& snapshot, const DagInstance& instance,
               const StaticSchedule& plan, const PlanEmission& how, AssignmentSink& out);

}  // namespace hetsched
