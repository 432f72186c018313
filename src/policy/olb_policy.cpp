// OLB, opportunistic load balancing: each ready task to the device that frees up
// first, whatever its run time there, as in Braun et al., JPDC 2001; see
// independent_task_heuristics.cpp for how the rule is carried over to DAGs.
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

std::unique_ptr<SchedulingPolicy> make_olb_policy(const PolicyOptions& options) {
  return make_static_planner_policy(
      "olb",
      [](const DagInstance& instance, const ScheduleLimits& limits) {
        return independent_task_plan(instance, limits, IndependentTaskRule::olb);
      },
      options.plan_network);
}

}  // namespace hetsched
