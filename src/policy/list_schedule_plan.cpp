#include "hetsched/policy/list_schedule_plan.hpp"

#include <algorithm>
#include <queue>

namespace hetsched {

double data_ready_seconds(const DagInstance& instance, const StaticSchedule& schedule,
                          const ReleaseTimes& release, std::uint32_t task, DeviceId device) {
  double ready = release.empty() ? 0.0 : release[task][device];
  for (const DagNeighbor& p : instance.predecessors(task)) {
    const PlannedTask& producer = schedule.tasks[p.task];
    ready = std::max(
        ready, producer.finish_seconds + instance.comm_seconds(p.edge, producer.device, device));
  }
  return ready;
}

StaticSchedule earliest_finish_list_schedule(const DagInstance& instance,
                                             const ReleaseTimes& release) {
  const std::size_t n = instance.task_count();
  std::vector<double> rank(n, 0.0);
  const auto& order = instance.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    double longest_tail = 0;
    for (const DagNeighbor& s : instance.successors(*it))
      longest_tail = std::max(longest_tail, instance.mean_comm_seconds(s.edge) + rank[s.task]);
    rank[*it] = instance.mean_compute_seconds(*it) + longest_tail;
  }
  // Highest rank first among the tasks whose predecessors are listed, so the list
  // is a topological order even where zero costs make ranks tie; ties go to the
  // earlier topological position.
  std::vector<std::uint32_t> position(n);
  for (std::uint32_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  const auto lower_priority = [&](std::uint32_t a, std::uint32_t b) {
    return rank[a] != rank[b] ? rank[a] < rank[b] : position[a] > position[b];
  };
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(lower_priority)> ready(
      lower_priority);
  std::vector<std::uint32_t> remaining(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    remaining[t] = static_cast<std::uint32_t>(instance.predecessors(t).size());
    if (remaining[t] == 0) ready.push(t);
  }
  std::vector<std::uint32_t> listed;
  listed.reserve(n);
  while (!ready.empty()) {
    const std::uint32_t t = ready.top();
    ready.pop();
    listed.push_back(t);
    for (const DagNeighbor& s : instance.successors(t))
      if (--remaining[s.task] == 0) ready.push(s.task);
  }
  StaticSchedule schedule;
  schedule.tasks.resize(n);
  std::vector<double> device_free(instance.device_count(), 0.0);
  for (std::uint32_t t : listed) {
    DeviceId best = 0;
    double best_finish = kCannotRun, best_start = 0;
    for (DeviceId d = 0; d < instance.device_count(); ++d) {
      const double run = instance.compute_seconds(t, d);
      if (run == kCannotRun) continue;
      const double start =
          std::max(device_free[d], data_ready_seconds(instance, schedule, release, t, d));
      if (start + run < best_finish) best = d, best_finish = start + run, best_start = start;
    }
    if (best_finish == kCannotRun) return StaticSchedule{};
    schedule.tasks[t] = PlannedTask{best, best_start, best_finish};
    device_free[best] = best_finish;
    schedule.makespan_seconds = std::max(schedule.makespan_seconds, best_finish);
  }
  return schedule;
}

}  // namespace hetsched
