// OLB, opportunistic load balancing: each ready task to the device that frees up
// first, whatever its run time there, as in Braun et al., JPDC 2001; see
// independent_task_heuristics.cpp for how the rule is carried over to DAGs.
#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {
namespace {
class OlbPolicy final : public StaticPlannerPolicy {
 public:
  std::string_view name() const override { return "olb"; }
  StaticSchedule plan(const DagInstance& instance, std::span<const double> free) override {
    return independent_task_plan(instance, free, IndependentTaskRule::olb);
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_olb_policy(const PolicyOptions&) {
  return std::make_unique<OlbPolicy>();
}

}  // namespace hetsched
