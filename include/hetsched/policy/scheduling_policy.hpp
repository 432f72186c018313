// SchedulingPolicy: the brain's contract. A policy reads a ClusterSnapshot and
// answers with Assignments (task → device, P-state, order on the device). It never
// touches a clock, a thread or a socket, so the same policy drives the simulator,
// local workers and real cluster managers alike.
//
// Three extension points, in the spirit of Kubernetes' scheduling framework:
//  - on_job_arrival: a static planner places the whole job here (HEFT and kin);
//  - on_tasks_ready: an online policy places tasks whose inputs are complete. A
//    policy may leave some unplaced (waiting for resources); they are offered again
//    at the next decision point.
//  - score_devices: as a Kubernetes Score plugin scores each feasible node for one
//    pod, the policy scores each candidate device for one task, so a body that only
//    ranks (the Kubernetes extender) ranks as the policy would choose. The default
//    (src/policy/scheduling_policy.cpp) asks the two points above and needs no
//    per-policy code; a policy with a natural score may override it.
// A device runs its tasks in the order of their planned start (online: of assignment).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/policy/cluster_snapshot.hpp"
#include "hetsched/policy/network_model.hpp"

namespace hetsched {

// Sentinels of Assignment's two times (no real time is negative); distinct, so one is
// never read as the other.
inline constexpr double kAppend = -1.0;
inline constexpr double kNotPredicted = -2.0;

struct Assignment {
  TaskIndex task = 0;
  DeviceId device = 0;
  std::uint8_t pstate = 0;
  // A planner's planned start time, which also orders the device's queue; kAppend
  // (online policies) puts the task after everything already on the device.
  double planned_start_seconds = kAppend;
  // The finish the policy predicted when it chose this device (the later of the
  // device's predicted free time and the inputs' arrival, plus the run time at
  // this P-state), so the loop need not derive it again; kNotPredicted: the loop
  // derives it from the perf model.
  double predicted_finish_seconds = kNotPredicted;
};

// Where a policy sends its decisions. Each one takes effect at once: the snapshot
// the policy holds already shows it (device availability, placement, finish).
class AssignmentSink {
 public:
  virtual ~AssignmentSink() = default;
  virtual void assign(const Assignment& assignment) = 0;
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  virtual std::string_view name() const = 0;

  virtual void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) {
    (void)snapshot, (void)job, (void)out;
  }
  virtual void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                              AssignmentSink& out) = 0;

  // One score per candidate, in [0, 1], higher is better; the device the policy would
  // place `task` on scores highest. `task` is ready (its job's other tasks finished or
  // absent) and every candidate can run it. Scoring may change the policy's state as
  // a decision would: score with a policy built for it. Default: the policy is asked
  // (on_job_arrival, then on_tasks_ready with `task` alone) where it would place the
  // task; that device scores 1, and every other candidate 0.9 × the earliest predicted
  // finish among the candidates / its own (later of free time and input arrival, plus
  // the run time at P-state 0), so the rest rank by the finish the policy would see.
  virtual std::vector<double> score_devices(const ClusterSnapshot& snapshot, TaskIndex task,
                                            std::span<const DeviceId> candidates);

 protected:
  // Per candidate: the earliest predicted finish among the candidates / its own (later
  // of the device's free time and the inputs' arrival, plus the run time at P-state 0),
  // so 1 where the task would finish first and 0 where it cannot run.
  static std::vector<double> finish_time_scores(const ClusterSnapshot& snapshot, TaskIndex task,
                                                std::span<const DeviceId> candidates);
};

// What a policy is built with: the run's seed (its random choices come from an Rng
// seeded by it) and free-form tuning the user passed on the command line.
struct PolicyOptions {
  std::uint64_t seed = 1;
  double time_budget_seconds = 1.0;    // for policies that search
  std::uint64_t iteration_budget = 0;  // 0: bounded by time only
  // Energy-aware policies ("energy-aware", "pareto"): for a job without a deadline,
  // the makespan bound is the fastest plan's makespan × (1 + makespan_stretch).
  double makespan_stretch = 0.05;
  // "pareto": weights of (makespan, energy, cost) used to pick one schedule of the
  // front, each objective normalised to [0, 1] over the front.
  std::array<double, 3> objective_weights{1.0, 1.0, 0.0};
  // "learned": its model file (empty: the model the repository ships, built in).
  std::string learned_model;
  // The static DAG planners (heft, peft, cpop, heft-lookahead, heft-ils and the
  // independent-task heuristics): how their plans share the network between nodes.
  NetworkModel plan_network = NetworkModel::contention_free;
};

}  // namespace hetsched
