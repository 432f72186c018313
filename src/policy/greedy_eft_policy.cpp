// Greedy earliest finish time (online EFT, as StarPU's dm/dmda schedulers and the
// MCT heuristic of Braun et al. 2001): each ready task, in the order it became
// ready, goes to the device where it would finish first — the later of the
// device's predicted free time and the arrival of its inputs, plus its predicted
// run time there.
//
// It never scans every device: EarliestFinishIndex (earliest_finish_index.hpp) finds the
// device, exactly the earliest finish, among devices of equal finish the lowest id of those
// its search looked at. Cost per decision: that of one search, which does not grow with the
// number of devices (O(log classes) per heap step; see the index). Tasks with explicit
// per-device costs are scanned over every device.
//
// Its score for a candidate device (score_devices) is its own rule as a number: the
// earliest predicted finish among the candidates / the device's, 1 where it would
// place the task.
#include "hetsched/policy/earliest_finish_index.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {
namespace {

class GreedyEftPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "greedy-eft"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    index_.sync(snapshot);
    for (TaskIndex t : ready) {
      const EarliestFinishIndex::Choice best = index_.earliest_finish(snapshot, t);
      if (best.device == kUnplaced) continue;  // no device can run it: left for the loop to report
      out.assign(Assignment{.task = t,
                            .device = best.device,
                            .pstate = 0,
                            .planned_start_seconds = kAppend,
                            .predicted_finish_seconds = best.finish});
    }
  }

  std::vector<double> score_devices(const ClusterSnapshot& snapshot, TaskIndex task,
                                    std::span<const DeviceId> candidates) override {
    return finish_time_scores(snapshot, task, candidates);
  }

 private:
  EarliestFinishIndex index_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_greedy_eft_policy(const PolicyOptions&) {
  return std::make_unique<GreedyEftPolicy>();
}

}  // namespace hetsched
