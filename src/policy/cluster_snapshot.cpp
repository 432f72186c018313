#include "hetsched/policy/cluster_snapshot.hpp"

#include <algorithm>

namespace hetsched {

namespace {

// Calls arrive(made, transfer) for each input of `task` bound for `device`: its job's
// external input (made now) and each producer's output (made at the producer's finish,
// actual or predicted), with how long its transfer takes.
template <typename Arrive>
void each_input(const ClusterSnapshot& s, TaskIndex task, DeviceId device, Arrive arrive) {
  const Task& t = s.graph.task(task);
  if (t.input_bytes > 0)
    arrive(s.now_seconds, s.perf.host_to_device_seconds(
                              t.input_bytes, s.graph.job(s.graph.job_of(task)).data_node, device));
  for (const Dependency& p : s.graph.predecessors(task))
    arrive(s.finish_seconds[p.task], s.perf.transfer_seconds(p.bytes, s.placement[p.task], device));
}

}  // namespace

double ClusterSnapshot::data_ready_seconds(TaskIndex task, DeviceId device) const {
  double ready = now_seconds;
  each_input(*this, task, device, [&](double made, double transfer) {
    ready = std::max(ready, std::max(now_seconds, made) + transfer);
  });
  return ready;
}

double ClusterSnapshot::input_transfer_seconds(TaskIndex task, DeviceId device) const {
  double longest = 0;
  each_input(*this, task, device,
             [&](double, double transfer) { longest = std::max(longest, transfer); });
  return longest;
}

}  // namespace hetsched
