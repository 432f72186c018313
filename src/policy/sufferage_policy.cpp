// Sufferage (batch mode): the ready task that would suffer most if denied its
// best device (second-best minus best completion) goes first, to its best device; as in Braun et
// al., JPDC 2001; see independent_task_heuristics.cpp for how the rule is carried over to DAGs.
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

std::unique_ptr<SchedulingPolicy> make_sufferage_policy(const PolicyOptions& options) {
  return make_static_planner_policy(
      "sufferage",
      [](const DagInstance& instance, const ScheduleLimits& limits) {
        return independent_task_plan(instance, limits, IndependentTaskRule::sufferage);
      },
      options.plan_network);
}

}  // namespace hetsched
