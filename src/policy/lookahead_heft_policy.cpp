// Lookahead HEFT (Bittencourt, Sakellariou, Madeira, PDP 2010). Tasks are taken in
// HEFT's order (decreasing upward rank). For each device that can run the task,
// the task is placed there tentatively and each of its children is given its
// earliest finish over all devices (with insertion, counting the inputs of the
// parents placed so far); the task goes to the device that minimises the latest of
// those children's finishes (a task without children: its own finish; ties: its
// own finish, then the lower device id). Children are looked at one at a time
// without placing them — the one-level lookahead of the paper. O(v·p²·outdegree).
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

StaticSchedule lookahead_heft_plan(const DagInstance& instance,
                                   std::span<const double> device_free_seconds) {
  const std::vector<double> rank = upward_ranks(instance);
  PartialSchedule partial(instance, device_free_seconds);
  for (const std::uint32_t t : priority_order(instance, rank)) {
    PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
    double best_lookahead = kCannotRun;
    for (DeviceId d = 0; d < instance.device_count(); ++d) {
      const PlannedTask candidate = partial.earliest_placement(t, d);
      if (candidate.finish_seconds == kCannotRun) continue;
      double lookahead = candidate.finish_seconds;
      if (!instance.successors(t).empty()) {
        partial.place(t, candidate);
        lookahead = 0;
        for (const DagNeighbor& s : instance.successors(t))
          lookahead = std::max(lookahead, partial.earliest_finish_placement(s.task).finish_seconds);
        partial.unplace(t);
      }
      if (lookahead < best_lookahead ||
          (lookahead == best_lookahead && candidate.finish_seconds < best.finish_seconds)) {
        best_lookahead = lookahead;
        best = candidate;
      }
    }
    if (best.device != kNoDevice) partial.place(t, best);
  }
  return std::move(partial).finish();
}

namespace {
class LookaheadHeftPolicy final : public StaticPlannerPolicy {
 public:
  std::string_view name() const override { return "heft-lookahead"; }
  StaticSchedule plan(const DagInstance& instance, std::span<const double> free) override {
    return lookahead_heft_plan(instance, free);
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_lookahead_heft_policy(const PolicyOptions&) {
  return std::make_unique<LookaheadHeftPolicy>();
}

}  // namespace hetsched
