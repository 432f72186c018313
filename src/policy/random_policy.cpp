// Random: a heterogeneity-agnostic baseline. Each ready task goes to a device drawn
// uniformly among those able to run it, from the run's seeded generator.
//
// Cost per decision: O(parts) to find the list of devices that can run the task
// (RunnableDevices), then one draw.
#include "hetsched/policy/runnable_devices.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {
namespace {

class RandomPolicy final : public SchedulingPolicy {
 public:
  explicit RandomPolicy(std::uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "random"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    for (TaskIndex t : ready) {
      const std::span<const DeviceId> candidates =
          runnable_.of(snapshot.cluster, snapshot.graph.task(t));
      if (!candidates.empty()) out.assign(Assignment{t, candidates[rng_.below(candidates.size())]});
    }
  }

 private:
  Rng rng_;
  RunnableDevices runnable_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_random_policy(const PolicyOptions& options) {
  return std::make_unique<RandomPolicy>(options.seed);
}

}  // namespace hetsched
