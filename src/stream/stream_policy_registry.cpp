#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/stream/stream_policy.hpp"

namespace hetsched {

#define HETSCHED_STREAM_POLICY(factory, policy_name, summary) \
  std::unique_ptr<StreamPolicy> factory();
#include "stream_policy_list.inc"
#undef HETSCHED_STREAM_POLICY

double StreamPolicy::queue_key(const StreamJobView& job, const StreamPolicyContext&) const {
  return job.arrival_seconds;
}

std::vector<std::size_t> StreamPolicy::queue_order(std::span<const StreamJobView> jobs,
                                                   const StreamPolicyContext& context) const {
  std::vector<double> key(jobs.size());
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    key[i] = queue_key(jobs[i], context);
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (key[a] != key[b]) return key[a] < key[b];
    if (jobs[a].arrival_seconds != jobs[b].arrival_seconds)
      return jobs[a].arrival_seconds < jobs[b].arrival_seconds;
    return jobs[a].job < jobs[b].job;
  });
  return order;
}

AllocationResult StreamPolicy::allocate(const std::vector<StreamJobView>& jobs,
                                        const StreamPolicyContext& context) {
  AllocationProblem problem;
  problem.capacity = context.capacity;
  problem.price_per_hour = context.price_per_hour;
  for (const StreamJobView& view : jobs)
    problem.jobs.push_back(AllocationJob{*view.rate, view.gang_size, view.priority_weight,
                                         view.remaining_steps, 0.0, 1.0});
  return equal_share_allocation(problem);
}

const std::vector<StreamPolicyInfo>& stream_policy_registry() {
  static const std::vector<StreamPolicyInfo> registry{
#define HETSCHED_STREAM_POLICY(factory, policy_name, summary) \
  StreamPolicyInfo{policy_name, summary, &factory},
#include "stream_policy_list.inc"
#undef HETSCHED_STREAM_POLICY
  };
  return registry;
}

std::vector<std::string> stream_policy_names() {
  std::vector<std::string> names;
  for (const auto& info : stream_policy_registry()) names.emplace_back(info.name);
  return names;
}

bool is_stream_policy(std::string_view name) {
  for (const auto& info : stream_policy_registry())
    if (info.name == name) return true;
  return false;
}

std::unique_ptr<StreamPolicy> make_stream_policy(std::string_view name) {
  for (const auto& info : stream_policy_registry())
    if (info.name == name) return info.make();
  const std::vector<std::string> task_policies = policy_names();
  if (std::find(task_policies.begin(), task_policies.end(), name) != task_policies.end())
    throw InputError(fmt::format(
        "'{}' is a task-scheduling policy, for workloads of jobs and tasks; this workload is a "
        "job stream, whose policies are: {}",
        name, fmt::join(stream_policy_names(), ", ")));
  throw InputError(unknown_name_message("stream policy", name, stream_policy_names()));
}

}  // namespace hetsched
