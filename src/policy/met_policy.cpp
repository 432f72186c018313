// MET, minimum execution time: each ready task to the device where it runs
// fastest, whatever that device's load, as in Braun et al., JPDC 2001; see
// independent_task_heuristics.cpp for how the rule is carried over to DAGs.
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

std::unique_ptr<SchedulingPolicy> make_met_policy(const PolicyOptions& options) {
  return make_static_planner_policy(
      "met",
      [](const DagInstance& instance, const ScheduleLimits& limits) {
        return independent_task_plan(instance, limits, IndependentTaskRule::met);
      },
      options.plan_network);
}

}  // namespace hetsched
