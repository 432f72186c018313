// PEFT, Predict Earliest Finish Time (Arabnejad, Barbosa, IEEE TPDS 2014).
// The optimistic cost table OCT(t, p) is the longest path from t to an exit task
// when t runs on device p and every later task gets the device that is best for it
// alone (mean communication when it changes device). Tasks are ranked by the mean
// of their OCT row and taken from the ready set by decreasing rank; each goes to
// the device minimising its earliest finish time (with insertion) plus OCT(t, p):
// a one-step look at the cost of what follows. The table costs O(e·p).
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

StaticSchedule peft_plan(const DagInstance& instance, const ScheduleLimits& limits) {
  const std::size_t n = instance.task_count(), devices = instance.device_count();
  const std::vector<double> table = optimistic_cost_table(instance);
  std::vector<double> rank(n, 0.0);
  for (std::size_t t = 0; t < n; ++t) {
    double sum = 0;
    for (std::size_t d = 0; d < devices; ++d) sum += table[t * devices + d];
    rank[t] = devices ? sum / static_cast<double>(devices) : 0.0;
  }
  PartialSchedule partial(instance, limits);
  for (const std::uint32_t t : priority_order(instance, rank)) {
    if (partial.placed(t)) continue;
    PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
    double best_optimistic = kCannotRun;
    for (DeviceId d = 0; d < devices; ++d) {
      const PlannedTask candidate = partial.earliest_placement(t, d);
      const double optimistic = candidate.finish_seconds + table[t * devices + d];
      if (optimistic < best_optimistic) best_optimistic = optimistic, best = candidate;
    }
    if (best.device != kNoDevice) partial.place(t, best);
  }
  return std::move(partial).finish();
}

std::unique_ptr<SchedulingPolicy> make_peft_policy(const PolicyOptions& options) {
  return make_static_planner_policy("peft", peft_plan, options.plan_network);
}

}  // namespace hetsched
