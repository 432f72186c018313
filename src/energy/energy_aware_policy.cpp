// Energy-aware placement under a deadline (a static planner): when a job arrives,
// choose a device and a P-state for each of its tasks so that the job's energy is
// least while it still ends by its deadline — the job's own deadline when it has
// one, else the fastest plan's makespan × (1 + PolicyOptions::makespan_stretch).
// The planning itself is src/energy/energy_aware_planner.cpp (the fastest list
// schedule with DVFS slack reclamation, against an energy-first list schedule with
// sub-deadlines, whichever uses less energy). When the deadline cannot be met the
// fastest plan runs at full speed.
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/energy/plan_assignments.hpp"

namespace hetsched {
namespace {

class EnergyAwarePolicy final : public SchedulingPolicy {
 public:
  explicit EnergyAwarePolicy(const PolicyOptions& options) : options_(options) {}
  std::string_view name() const override { return "energy-aware"; }

  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) override {
    const DagInstance instance(snapshot.graph, job, snapshot.perf);
    const JobEnergyModel model = job_energy_model_now(snapshot, instance, job);
    const EnergyAwarePlan plan = plan_energy_aware(
        model, energy_planning_deadline(snapshot, job, model, options_.makespan_stretch));
    emit_dvfs_plan(snapshot, instance, plan.plan, out);
  }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    place_earliest_finish(snapshot, ready, out);
  }

 private:
  PolicyOptions options_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_energy_aware_policy(const PolicyOptions& options) {
  return std::make_unique<EnergyAwarePolicy>(options);
}

}  // namespace hetsched
