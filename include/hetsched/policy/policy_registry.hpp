// The policy registry: every policy by name. Adding a policy is one new file in
// src/policy/ and one line in src/policy/policy_list.inc.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/policy/scheduling_policy.hpp"

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

}  // namespace hetsched
