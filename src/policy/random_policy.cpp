// Random: a heterogeneity-agnostic baseline. Each ready task goes to a device drawn
// uniformly among those able to run it, from the run's seeded generator.
#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

class RandomPolicy final : public SchedulingPolicy {
 public:
  explicit RandomPolicy(std::uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "random"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    const auto& devices = snapshot.cluster.devices();
    for (TaskIndex t : ready) {
      const Task& task = snapshot.graph.task(t);
      candidates_.clear();
      for (const Device& d : devices)
        if (can_run(task, d)) candidates_.push_back(d.id);
      if (!candidates_.empty())
        out.assign(Assignment{t, candidates_[rng_.below(candidates_.size())]});
    }
  }

 private:
  Rng rng_;
  std::vector<DeviceId> candidates_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_random_policy(const PolicyOptions& options) {
  return std::make_unique<RandomPolicy>(options.seed);
}

}  // namespace hetsched
