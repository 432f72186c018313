// Lookahead HEFT (Bittencourt, Sakellariou, Madeira, PDP 2010). Tasks are taken in
// HEFT's order (decreasing upward rank). For each device that can run the task,
// the task is placed there tentatively and each of its children is given its
// earliest finish over all devices (with insertion, counting the inputs of the
// parents placed so far); the task goes to the device that minimises the latest of
// those children's finishes (a task without children: its own finish; ties: its
// own finish, then the lower device id). Children are looked at one at a time
// without placing them — the one-level lookahead of the paper. O(v·p²·outdegree).
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

StaticSchedule lookahead_heft_plan(const DagInstance& instance, const ScheduleLimits& limits) {
  const std::vector<double> rank = upward_ranks(instance);
  PartialSchedule partial(instance, limits);
  for (const std::uint32_t t : priority_order(instance, rank)) {
    PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
    double best_lookahead = kCannotRun;
    for (DeviceId d = 0; d < instance.device_count(); ++d) {
      const PlannedTask candidate = partial.earliest_placement(t, d);
      if (candidate.finish_seconds == kCannotRun) continue;
      double lookahead = candidate.finish_seconds;
      if (!instance.successors(t).empty()) {
        partial.place(t, candidate);
        lookahead = 0;
        for (const DagNeighbor& s : instance.successors(t))
          lookahead = std::max(lookahead, partial.earliest_finish_placement(s.task).finish_seconds);
        partial.unplace(t);
      }
      if (lookahead < best_lookahead ||
          (lookahead == best_lookahead && candidate.finish_seconds < best.finish_seconds)) {
        best_lookahead = lookahead;
        best = candidate;
      }
    }
    if (best.device != kNoDevice) partial.place(t, best);
  }
  return std::move(partial).finish();
}

std::unique_ptr<SchedulingPolicy> make_lookahead_heft_policy(const PolicyOptions& options) {
  return make_static_planner_policy("heft-lookahead", lookahead_heft_plan, options.plan_network);
}

}  // namespace hetsched
