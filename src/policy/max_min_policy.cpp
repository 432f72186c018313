// Max-min (batch mode): among all ready tasks, the one with the largest best
// completion time goes first, to its best device; as in Braun et al., JPDC 2001; see
// independent_task_heuristics.cpp for how the rule is carried over to DAGs.
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

std::unique_ptr<SchedulingPolicy> make_max_min_policy(const PolicyOptions& options) {
  return make_static_planner_policy(
      "max-min",
      [](const DagInstance& instance, const ScheduleLimits& limits) {
        return independent_task_plan(instance, limits, IndependentTaskRule::max_min);
      },
      options.plan_network);
}

}  // namespace hetsched
