#include "hetsched/registry/policy_registry.hpp"

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"

namespace hetsched {

#define HETSCHED_POLICY(factory, policy_name, summary) \
  std::unique_ptr<SchedulingPolicy> factory(const PolicyOptions&);
#include "policy_list.inc"
#undef HETSCHED_POLICY

const std::vector<PolicyInfo>& policy_registry() {
  static const std::vector<PolicyInfo> registry{
#define HETSCHED_POLICY(factory, policy_name, summary) PolicyInfo{policy_name, summary, &factory},
#include "policy_list.inc"
#undef HETSCHED_POLICY
  };
  return registry;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& info : policy_registry()) names.emplace_back(info.name);
  return names;
}

std::unique_ptr<SchedulingPolicy> make_policy(std::string_view name, const PolicyOptions& options) {
  for (const auto& info : policy_registry())
    if (info.name == name) return info.make(options);
  throw InputError(unknown_name_message("policy", name, policy_names()));
}

std::unique_ptr<StaticPlannerPolicy> make_static_planner(std::string_view name,
                                                         const PolicyOptions& options) {
  std::unique_ptr<SchedulingPolicy> policy = make_policy(name, options);
  if (auto* planner = dynamic_cast<StaticPlannerPolicy*>(policy.get())) {
    policy.release();
    return std::unique_ptr<StaticPlannerPolicy>(planner);
  }
  throw InputError(std::string("policy '") + std::string(name) +
                   "' is an online policy, not a static DAG planner");
}

}  // namespace hetsched
