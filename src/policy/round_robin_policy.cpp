// Round-robin: a heterogeneity-agnostic baseline. Each ready task goes to the next
// device in turn (cyclically, by DeviceId) that is able to run it, whatever its speed.
//
// Cost per decision: O(parts) to find the list of devices that can run the task
// (RunnableDevices), then a binary search in it for the next one in turn.
#include <algorithm>

#include "hetsched/policy/runnable_devices.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {
namespace {

class RoundRobinPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "round-robin"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    const std::size_t devices = snapshot.cluster.device_count();
    for (TaskIndex t : ready) {
      const std::span<const DeviceId> candidates =
          runnable_.of(snapshot.cluster, snapshot.graph.task(t));
      // The turn moves past every device tried: those that cannot run the task too.
      if (candidates.empty()) {
        next_ += devices;
        continue;
      }
      const auto turn = static_cast<DeviceId>(next_ % devices);
      const auto at = std::lower_bound(candidates.begin(), candidates.end(), turn);
      const DeviceId d = at != candidates.end() ? *at : candidates.front();
      next_ += (d >= turn ? d - turn : devices - turn + d) + 1;
      out.assign(Assignment{t, d});
    }
  }

 private:
  std::size_t next_ = 0;
  RunnableDevices runnable_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_round_robin_policy(const PolicyOptions&) {
  return std::make_unique<RoundRobinPolicy>();
}

}  // namespace hetsched
