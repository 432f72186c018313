// Work stealing with a transfer-aware gain test — the local runtime's balancing
// rule (see work_stealing_rule.hpp) as a policy for the simulator. Each ready task
// has an owner: the device holding its largest input (locality, as in StarPU's lws
// and Cilk's work-first principle), or for tasks without placed inputs the device
// that frees up first. The task goes to its owner unless an idle device would
// finish it sooner, input transfers included — the idle device "steals" it.
//
// The thief with the largest gain is the idle device (free by now) where the task
// finishes first: an idle device starts it when its inputs are in, so its finish is
// the later of now and their arrival plus its run time there, and the gain is the
// owner's finish less that. Both the device that frees up first and that thief come
// from an EarliestFinishIndex (earliest_finish_index.hpp): among thieves of equal gain
// the lowest id of those its search looked at wins.
//
// Cost per decision: the task's predecessors, plus one first_free (O(parts)) and one
// search of the index restricted to idle devices; neither grows with the number of
// devices. Tasks with explicit per-device costs are scanned over every device.
#include <algorithm>

#include "hetsched/policy/earliest_finish_index.hpp"
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
    index_.sync(snapshot);
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
      if (owner == kUnplaced) owner = index_.first_free(snapshot, t);
      if (owner == kUnplaced) continue;  // no device can run it: left for the loop to report
      const double owner_run = snapshot.perf.task_seconds(task, cluster.device(owner));
      const double owner_start =
          std::max(snapshot.device_available_seconds[owner], snapshot.data_ready_seconds(t, owner));
      const double now = snapshot.now_seconds;
      DeviceId chosen = owner;
      const EarliestFinishIndex::Choice thief = index_.earliest_finish(snapshot, t, now);
      if (thief.device != kUnplaced && thief.device != owner) {
        const double run = snapshot.perf.task_seconds(task, cluster.device(thief.device));
        const double transfer = std::max(0.0, snapshot.data_ready_seconds(t, thief.device) - now);
        if (estimate_steal(now, owner_start + owner_run - now, 1.0, run, transfer, 1.0)
                .worth_stealing())
          chosen = thief.device;
      }
      out.assign(Assignment{t, chosen});
    }
  }

 private:
  EarliestFinishIndex index_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_work_stealing_policy(const PolicyOptions&) {
  return std::make_unique<WorkStealingPolicy>();
}

}  // namespace hetsched
