#include "hetsched/policy/schedule_metrics.hpp"

#include <algorithm>

namespace hetsched {
namespace {
double min_cost(const DagInstance& instance, std::uint32_t t) {
  double best = kCannotRun;
  for (DeviceId d = 0; d < instance.device_count(); ++d)
    best = std::min(best, instance.compute_seconds(t, d));
  return best;
}
}  // namespace

double min_cost_critical_path_seconds(const DagInstance& instance) {
  std::vector<double> head(instance.task_count(), 0.0);
  double longest = 0;
  for (const std::uint32_t t : instance.topological_order()) {
    double start = 0;
    for (const DagNeighbor& p : instance.predecessors(t)) start = std::max(start, head[p.task]);
    head[t] = start + min_cost(instance, t);
    longest = std::max(longest, head[t]);
  }
  return longest;
}

ScheduleMetrics schedule_metrics(const DagInstance& instance, const StaticSchedule& schedule) {
  ScheduleMetrics m;
  m.makespan_seconds = schedule.makespan_seconds;
  const double critical = min_cost_critical_path_seconds(instance);
  double min_work = 0;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) min_work += min_cost(instance, t);
  double sequential = kCannotRun;
  for (DeviceId d = 0; d < instance.device_count(); ++d) {
    double total = 0;
    for (std::uint32_t t = 0; t < instance.task_count(); ++t)
      total += instance.compute_seconds(t, d);
    sequential = std::min(sequential, total);
  }
  const double devices = static_cast<double>(std::max<std::size_t>(instance.device_count(), 1));
  m.lower_bound_seconds = std::max(critical, min_work / devices);
  if (m.makespan_seconds > 0) {
    m.slr = critical > 0 ? m.makespan_seconds / critical : 0;
    m.speedup = sequential / m.makespan_seconds;
    m.efficiency = m.speedup / devices;
  }
  m.gap_to_lower_bound =
      m.lower_bound_seconds > 0 ? m.makespan_seconds / m.lower_bound_seconds - 1 : 0;
  return m;
}

}  // namespace hetsched
