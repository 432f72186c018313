// Min-min (batch mode): among all ready tasks, the one with the smallest best
// completion time goes first, to that device; as in Braun et al., JPDC 2001; see
// independent_task_heuristics.cpp for how the rule is carried over to DAGs.
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

std::unique_ptr<SchedulingPolicy> make_min_min_policy(const PolicyOptions& options) {
  return make_static_planner_policy(
      "min-min",
      [](const DagInstance& instance, const ScheduleLimits& limits) {
        return independent_task_plan(instance, limits, IndependentTaskRule::min_min);
      },
      options.plan_network);
}

}  // namespace hetsched
