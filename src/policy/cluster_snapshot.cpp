#include "hetsched/policy/cluster_snapshot.hpp"

#include <algorithm>

namespace hetsched {

double ClusterSnapshot::data_ready_seconds(TaskIndex task, DeviceId device) const {
  double ready = now_seconds;
  const Task& t = graph.task(task);
  if (t.input_bytes > 0)
    ready = std::max(
        ready, now_seconds + perf.host_to_device_seconds(
                                 t.input_bytes, graph.job(graph.job_of(task)).data_node, device));
  for (const Dependency& p : graph.predecessors(task)) {
    const double producer_done = std::max(now_seconds, finish_seconds[p.task]);
    ready =
        std::max(ready, producer_done + perf.transfer_seconds(p.bytes, placement[p.task], device));
  }
  return ready;
}

double ClusterSnapshot::input_transfer_seconds(TaskIndex task, DeviceId device) const {
  double longest = 0;
  const Task& t = graph.task(task);
  if (t.input_bytes > 0)
    longest =
        std::max(longest, perf.host_to_device_seconds(
                              t.input_bytes, graph.job(graph.job_of(task)).data_node, device));
  for (const Dependency& p : graph.predecessors(task))
    longest = std::max(longest, perf.transfer_seconds(p.bytes, placement[p.task], device));
  return longest;
}

}  // namespace hetsched
