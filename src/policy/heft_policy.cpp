// HEFT, Heterogeneous Earliest Finish Time (Topcuoglu, Hariri, Wu, IEEE TPDS 2002).
// Phase 1 ranks every task by its upward rank — its mean compute time over the
// devices plus the longest mean-cost path (mean communication + ranks) to an exit
// task. Phase 2 takes the tasks by decreasing rank and puts each on the device
// where it finishes earliest, allowed to start in an idle gap between two tasks
// already there (insertion) as soon as its inputs have arrived. O(e·p + v·p·log v).
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

StaticSchedule heft_plan(const DagInstance& instance, const ScheduleLimits& limits) {
  return upward_rank_schedule(instance, limits);
}

std::unique_ptr<SchedulingPolicy> make_heft_policy(const PolicyOptions& options) {
  return make_static_planner_policy("heft", heft_plan, options.plan_network);
}

}  // namespace hetsched
