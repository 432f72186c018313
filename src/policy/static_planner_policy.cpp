#include "hetsched/policy/static_planner_policy.hpp"

#include <algorithm>

#include "hetsched/policy/earliest_finish_placement.hpp"
#include "hetsched/policy/plan_emitter.hpp"

namespace hetsched {

void StaticPlannerPolicy::on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job,
                                         AssignmentSink& out) {
  const DagInstance instance(snapshot.graph, job, snapshot.perf);
  if (instance.task_count() == 0) return;
  std::vector<double> device_free(instance.device_count());
  for (std::size_t d = 0; d < device_free.size(); ++d)
    device_free[d] = std::max(snapshot.now_seconds, snapshot.device_available_seconds[d]);
  // On shared NICs, each plan after the NIC time its earlier plans booked.
  nic_free_.resize(2 * snapshot.cluster.node_count(), 0.0);
  for (double& free : nic_free_) free = std::max(free, snapshot.now_seconds);
  // Planned in absolute time; tasks already running (a plan asked for again) are left out.
  const StaticSchedule schedule =
      plan(instance, ScheduleLimits{.device_free_seconds = device_free,
                                    .network = network_,
                                    .external_inputs_from_seconds = snapshot.now_seconds,
                                    .nic_free_seconds = nic_free_});
  SharedNics::book_after(schedule.transfers, nic_free_);
  emit_plan(snapshot, instance, schedule, PlanEmission{.skip_placed = true}, out);
}

void StaticPlannerPolicy::on_tasks_ready(const ClusterSnapshot& snapshot,
                                         std::span<const TaskIndex> ready, AssignmentSink& out) {
  place_earliest_finish(snapshot, ready, out);  // tasks the plan left out, re-offered
}

}  // namespace hetsched

#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {

namespace {
class NamedPlannerPolicy final : public StaticPlannerPolicy {
 public:
  NamedPlannerPolicy(std::string_view name, PlanFunction plan, NetworkModel network)
      : StaticPlannerPolicy(network), name_(name), plan_(std::move(plan)) {}
  std::string_view name() const override { return name_; }
  StaticSchedule plan(const DagInstance& instance, const ScheduleLimits& limits) override {
    return plan_(instance, limits);
  }

 private:
  std::string_view name_;
  PlanFunction plan_;
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_static_planner_policy(std::string_view name,
                                                             PlanFunction plan,
                                                             NetworkModel network) {
  return std::make_unique<NamedPlannerPolicy>(name, std::move(plan), network);
}

}  // namespace hetsched
