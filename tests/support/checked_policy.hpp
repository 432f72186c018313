// Shared by the tests of the online policies' fast paths: a registered policy run as it
// is, with a check of every assignment it makes against the snapshot it decided on (the
// tests check it against a scan of every device), and the runs whose free times go down as
// well as up (run times that drift from the predictions, devices that fail and come back).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {

class CheckedPolicy final : public SchedulingPolicy, public AssignmentSink {
 public:
  using Check = std::function<void(const ClusterSnapshot&, const Assignment&)>;
  CheckedPolicy(const std::string& policy, Check check)
      : inner_(make_policy(policy, {})), check_(std::move(check)) {}

  std::string_view name() const override { return inner_->name(); }
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    snapshot_ = &snapshot;
    out_ = &out;
    inner_->on_tasks_ready(snapshot, ready, *this);
  }
  void assign(const Assignment& a) override {
    check_(*snapshot_, a);
    ++checked;
    out_->assign(a);
  }
  std::size_t checked = 0;

 private:
  std::unique_ptr<SchedulingPolicy> inner_;
  Check check_;
  const ClusterSnapshot* snapshot_ = nullptr;
  AssignmentSink* out_ = nullptr;
};

// Actual run times drawn around the predictions (sigma 0.5): devices drain before their
// predicted free time as often as after it.
inline SimulationOptions drifting_run_times() {
  SimulationOptions options;
  options.noise.sigma = 0.5;
  return options;
}

// Devices that fail (one MTBF for every device) and come back after `repair_seconds`.
inline SimulationOptions failing_devices(double mtbf_hours, double repair_seconds) {
  SimulationOptions options;
  options.faults.enabled = true;
  options.faults.model.mtbf_hours_override = mtbf_hours;
  options.faults.model.repair_seconds = repair_seconds;
  return options;
}

}  // namespace hetsched
