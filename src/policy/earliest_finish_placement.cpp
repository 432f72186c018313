#include "hetsched/policy/earliest_finish_placement.hpp"

#include <algorithm>

namespace hetsched {

void place_earliest_finish(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                           AssignmentSink& out) {
  for (const TaskIndex t : ready) {
    if (snapshot.placement[t] != kUnplaced) continue;
    const Task& task = snapshot.graph.task(t);
    DeviceId best = kUnplaced;
    double best_finish = kCannotRun;
    for (const Device& d : snapshot.cluster.devices()) {
      const double run = snapshot.perf.task_seconds(task, d, 0);
      if (run == kCannotRun) continue;
      const double finish = std::max({snapshot.now_seconds, snapshot.device_available_seconds[d.id],
                                      snapshot.data_ready_seconds(t, d.id)}) +
                            run;
      if (finish < best_finish) best = d.id, best_finish = finish;
    }
    if (best != kUnplaced) out.assign(Assignment{t, best, 0, kAppend, best_finish});
  }
}

}  // namespace hetsched
