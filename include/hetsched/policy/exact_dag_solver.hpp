// Exact DAG scheduling for small instances (≤ 12 tasks on ≤ 3 devices) as a
// mixed-integer linear program solved by COIN-OR CBC: which device runs each task
// (binary assignment), when it starts (continuous), precedence with communication
// whenever producer and consumer sit on different devices, and no two tasks
// overlapping on a device (a binary order per pair of independent tasks, with
// big-M constraints). It measures how far the heuristics are from optimal.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "hetsched/perf/dag_instance.hpp"

namespace hetsched {

inline constexpr std::size_t kExactSolverMaxTasks = 12;
inline constexpr std::size_t kExactSolverMaxDevices = 3;

enum class ExactSolveStatus {
  optimal,     // the schedule is proven optimal
  not_proven,  // stopped at the time limit (or the solver gave up); `schedule` is the
               // best found, without proof
  too_large,   // more tasks or devices than the solver takes; nothing solved
  infeasible,  // some task can run on no device
};

struct ExactSolveOptions {
  double time_limit_seconds = 10;
  // Branch-and-bound nodes at most (0: no limit). Unlike the time limit, a node limit
  // stops at the same point on every machine, so results stay deterministic.
  long long node_limit = 0;
  // Per task and device, row-major [t * devices + d]: the earliest start of the task
  // on the device (the device busy, the task's input still arriving); empty: 0.
  std::vector<double> release_seconds;
};

struct ExactSolveResult {
  ExactSolveStatus status = ExactSolveStatus::too_large;
  std::optional<StaticSchedule> schedule;  // best schedule known (optimal when status is)
  double lower_bound_seconds = 0;          // the solver's proven lower bound on the makespan
  double heuristic_makespan_seconds = 0;   // the list schedule the search started from
  long long branch_and_bound_nodes = 0;
};

ExactSolveResult solve_exact_schedule_with_status(const DagInstance& instance,
                                                  const ExactSolveOptions& options);

// The proven-optimal schedule, or nullopt when none is proven within the limit (or
// the instance is too large or infeasible).
std::optional<StaticSchedule> solve_exact_schedule(const DagInstance& instance,
                                                   double time_limit_seconds);

}  // namespace hetsched
