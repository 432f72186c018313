// The six independent-task mapping heuristics of Braun et al., "A comparison of
// eleven static heuristics for mapping a class of independent tasks onto
// heterogeneous distributed computing systems" (JPDC 2001), carried over to DAGs:
// a task becomes eligible once every predecessor is placed, and its earliest start
// on a device is the later of the device's availability (after its last task; no
// insertion, as in the paper's model) and the arrival of its inputs.
//  - OLB: each task, as it becomes ready, to the device that frees up first,
//    whatever its run time there.
//  - MET: each task to the device where it runs fastest, whatever its load.
//  - MCT: each task to the device where it completes first.
//  - min-min (batch): among all ready tasks, the one whose best completion time is
//    smallest goes first, to that device; repeat.
//  - max-min (batch): the same, taking the task whose best completion is largest.
//  - sufferage (batch): the task that would suffer most if denied its best device
//    (second-best minus best completion time) goes first, to its best device.
// Immediate-mode rules take ready tasks in order of index (Kahn's order); batch
// rules keep each ready task's per-device input arrival and re-evaluate the
// completion times of the whole ready set at every step: O(v · ready · p).
#include <algorithm>

#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {
namespace {

PlannedTask immediate_choice(const PartialSchedule& partial, std::uint32_t t,
                             IndependentTaskRule rule) {
  const DagInstance& instance = partial.instance();
  PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
  double best_key = kCannotRun;
  for (DeviceId d = 0; d < instance.device_count(); ++d) {
    const PlannedTask candidate = partial.appending_placement(t, d);
    if (candidate.finish_seconds == kCannotRun) continue;
    double key = candidate.finish_seconds;
    if (rule == IndependentTaskRule::olb) key = partial.timeline().last_finish(d);
    if (rule == IndependentTaskRule::met) key = instance.compute_seconds(t, d);
    if (key < best_key) best_key = key, best = candidate;
  }
  return best;
}

}  // namespace

StaticSchedule independent_task_plan(const DagInstance& instance, const ScheduleLimits& limits,
                                     IndependentTaskRule rule) {
  const std::size_t n = instance.task_count(), devices = instance.device_count();
  PartialSchedule partial(instance, limits);
  std::vector<std::uint32_t> waiting(n);
  std::vector<std::uint32_t> ready;
  for (std::uint32_t t = 0; t < n; ++t) {
    waiting[t] = static_cast<std::uint32_t>(instance.predecessors(t).size());
    if (waiting[t] == 0) ready.push_back(t);
  }
  const bool immediate = rule == IndependentTaskRule::olb || rule == IndependentTaskRule::met ||
                         rule == IndependentTaskRule::mct;
  if (immediate) {
    for (const std::uint32_t t : instance.topological_order()) {
      const PlannedTask choice = immediate_choice(partial, t, rule);
      if (choice.device != kNoDevice) partial.place(t, choice);
    }
    return std::move(partial).finish();
  }

  // Batch mode. input_ready[t * devices + d]: when t's inputs can all be on d; fixed
  // once t is ready, because all its predecessors are placed by then.
  std::vector<double> input_ready(n * devices, 0.0);
  auto make_ready = [&](std::uint32_t t) {
    for (DeviceId d = 0; d < devices; ++d)
      input_ready[t * devices + d] = partial.data_ready_seconds(t, d);
  };
  for (const std::uint32_t t : ready) make_ready(t);
  std::vector<double> device_free(devices);
  while (!ready.empty()) {
    for (DeviceId d = 0; d < devices; ++d) device_free[d] = partial.timeline().last_finish(d);
    std::size_t chosen = ready.size();
    PlannedTask chosen_placement{kNoDevice, kCannotRun, kCannotRun};
    double chosen_key = 0;
    for (std::size_t i = 0; i < ready.size(); ++i) {
      const std::uint32_t t = ready[i];
      PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
      double second = kCannotRun;
      for (DeviceId d = 0; d < devices; ++d) {
        const double run = instance.compute_seconds(t, d);
        if (run == kCannotRun) continue;
        const double start = std::max(device_free[d], input_ready[t * devices + d]);
        const double finish = start + run;
        if (finish < best.finish_seconds) {
          second = best.finish_seconds;
          best = PlannedTask{d, start, finish};
        } else if (finish < second) {
          second = finish;
        }
      }
      if (best.device == kNoDevice) continue;
      double key = best.finish_seconds;  // min-min: smallest first
      if (rule == IndependentTaskRule::max_min) key = -best.finish_seconds;
      if (rule == IndependentTaskRule::sufferage)
        key = second == kCannotRun ? -kCannotRun : -(second - best.finish_seconds);
      if (chosen == ready.size() || key < chosen_key) {
        chosen = i;
        chosen_key = key;
        chosen_placement = best;
      }
    }
    if (chosen == ready.size()) break;  // nothing ready can run anywhere
    const std::uint32_t t = ready[chosen];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(chosen));
    partial.place(t, chosen_placement);
    for (const DagNeighbor& s : instance.successors(t))
      if (--waiting[s.task] == 0) {
        make_ready(s.task);
        ready.push_back(s.task);
      }
  }
  return std::move(partial).finish();
}

}  // namespace hetsched
