// Quality measures of a static schedule (Topcuoglu, Hariri, Wu 2002, §5.1):
//  - SLR, schedule length ratio: makespan / the sum, over the critical path of the
//    DAG weighted by each task's minimum cost (no communication), of those costs;
//  - speedup: the best single-device sequential time (all tasks on the device that
//    runs them all fastest) / makespan; efficiency: speedup / devices;
//  - lower bound: max(that min-cost critical path, total minimum work / devices),
//    no schedule can be shorter; gap: makespan / lower bound − 1.
#pragma once

#include "hetsched/perf/dag_instance.hpp"

namespace hetsched {

struct ScheduleMetrics {
  double makespan_seconds = 0;
  double slr = 0;
  double speedup = 0;
  double efficiency = 0;
  double lower_bound_seconds = 0;
  double gap_to_lower_bound = 0;
};

// Length of the longest path when each task costs its minimum over the devices.
double min_cost_critical_path_seconds(const DagInstance& instance);
ScheduleMetrics schedule_metrics(const DagInstance& instance, const StaticSchedule& schedule);

}  // namespace hetsched
