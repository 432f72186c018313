// Work stealing with a transfer-aware gain test — the local runtime's balancing
// rule (see work_stealing_rule.hpp) as a policy for the simulator. Each ready task
// has an owner: the device holding its largest input (locality, as in StarPU's lws
// and Cilk's work-first principle), or for tasks without placed inputs the device
// that frees up first. The task goes to its owner unless an idle device would
// finish it sooner, input transfers included — the idle device "steals" it.
#include <algorithm>

#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/policy/work_stealing_rule.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

class WorkStealingPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "work-stealing"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    const Cluster& cluster = snapshot.cluster;
    for (TaskIndex t : ready) {
      const Task& task = snapshot.graph.task(t);
      DeviceId owner = kUnplaced;
      double largest_input = -1;
      for (const Dependency& p : snapshot.graph.predecessors(t)) {
        const DeviceId d = snapshot.placement[p.task];
        if (d != kUnplaced && p.bytes > largest_input && can_run(task, cluster.device(d))) {
          owner = d;
          largest_input = p.bytes;
        }
      }
      if (owner == kUnplaced) {
        for (const Device& d : cluster.devices())
          if (can_run(task, d) &&
              (owner == kUnplaced ||
               snapshot.device_available_seconds[d.id] < snapshot.device_available_seconds[owner]))
            owner = d.id;
      }
      if (owner == kUnplaced) continue;  // no device can run it: left for the loop to report
      const double owner_run = snapshot.perf.task_seconds(task, cluster.device(owner));
      const double owner_start =
          std::max(snapshot.device_available_seconds[owner], snapshot.data_ready_seconds(t, owner));
      const double now = snapshot.now_seconds;
      DeviceId chosen = owner;
      double best_gain = 0;
      for (const Device& thief : cluster.devices()) {
        if (thief.id == owner || snapshot.device_available_seconds[thief.id] > now ||
            !can_run(task, thief))
          continue;
        const double run = snapshot.perf.task_seconds(task, thief);
        if (run == kCannotRun) continue;
        const double transfer = std::max(0.0, snapshot.data_ready_seconds(t, thief.id) - now);
        const StealEstimate estimate =
            estimate_steal(now, owner_start + owner_run - now, 1.0, run, transfer, 1.0);
        if (estimate.gain_seconds() > best_gain) {
          best_gain = estimate.gain_seconds();
          chosen = thief.id;
        }
      }
      out.assign(Assignment{t, chosen});
    }
  }
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_work_stealing_policy(const PolicyOptions&) {
  return std::make_unique<WorkStealingPolicy>();
}

}  // namespace hetsched
