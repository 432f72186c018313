// The policy registry: every policy by name, the online and static ones of src/policy/
// and the energy-aware ones of src/energy/. Adding a policy is one new file in its module
// and one line in src/registry/policy_list.inc.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/policy/static_planner_policy.hpp"

namespace hetsched {

struct PolicyInfo {
  std::string_view name;
  std::string_view summary;
  std::unique_ptr<SchedulingPolicy> (*make)(const PolicyOptions&);
};

const std::vector<PolicyInfo>& policy_registry();
std::vector<std::string> policy_names();
// The named policy; throws InputError naming the closest valid names when unknown.
std::unique_ptr<SchedulingPolicy> make_policy(std::string_view name, const PolicyOptions& options);
// The registered policy `name` if it is a static planner; throws InputError for
// unknown names and for online policies.
std::unique_ptr<StaticPlannerPolicy> make_static_planner(std::string_view name,
                                                         const PolicyOptions& options);

}  // namespace hetsched
