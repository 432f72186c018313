// The pareto mode as a policy (a static planner): when a job arrives, trace the
// Pareto front of its schedules over (makespan, energy, cost) by ε-constraint
// sweeps seeded with list schedules (src/energy/pareto_front.cpp) and run the one
// with the least weighted sum of normalised objectives, the weights being
// PolicyOptions::objective_weights (makespan, energy, cost).
#include "hetsched/energy/pareto_front.hpp"
#include "hetsched/energy/plan_assignments.hpp"

namespace hetsched {
namespace {

class ParetoPolicy final : public SchedulingPolicy {
 public:
  explicit ParetoPolicy(const PolicyOptions& options) : options_(options) {}
  std::string_view name() const override { return "pareto"; }

  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) override {
    const DagInstance instance(snapshot.graph, job, snapshot.perf);
    const JobEnergyModel model = job_energy_model_now(snapshot, instance, job);
    ParetoOptions pareto;
    for (const Device& d : snapshot.cluster.devices())
      pareto.price_per_hour.push_back(d.spec.price_per_hour);
    // A coarser sweep than the `pareto` command's: the policy plans every job.
    pareto.stretches = {0.0, 0.1, 1.0};
    pareto.subset_size_growth = 2;
    const std::vector<ParetoPoint> front = pareto_front(model, pareto);
    if (front.empty()) return;  // tasks no device can run: placed (or reported) when ready
    emit_dvfs_plan(snapshot, instance,
                   front[pick_by_weights(front, options_.objective_weights)].plan, out);
  }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    place_earliest_finish(snapshot, ready, out);
  }

 private:
  PolicyOptions options_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_pareto_policy(const PolicyOptions& options) {
  return std::make_unique<ParetoPolicy>(options);
}

}  // namespace hetsched
