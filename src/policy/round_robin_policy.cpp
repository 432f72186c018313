// Round-robin: a heterogeneity-agnostic baseline. Each ready task goes to the next
// device in turn (cyclically, by DeviceId) that is able to run it, whatever its speed.
#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

class RoundRobinPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "round-robin"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    const auto& devices = snapshot.cluster.devices();
    for (TaskIndex t : ready) {
      const Task& task = snapshot.graph.task(t);
      for (std::size_t tried = 0; tried < devices.size(); ++tried) {
        const DeviceId d = static_cast<DeviceId>(next_++ % devices.size());
        if (can_run(task, devices[d])) {
          out.assign(Assignment{t, d});
          break;
        }
      }
    }
  }

 private:
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_round_robin_policy(const PolicyOptions&) {
  return std::make_unique<RoundRobinPolicy>();
}

}  // namespace hetsched
