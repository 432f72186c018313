// A quick list schedule of a DagInstance: tasks in decreasing upward rank (mean
// compute plus mean communication along the longest path to an exit, as in HEFT,
// Topcuoglu et al. 2002), each appended on the device where it finishes earliest
// (no idle-slot insertion). The exact solver uses it as its first incumbent and to
// bound its big-M constants; the milp policy falls back to it on jobs too large to
// solve exactly. O(edges × devices + tasks × devices + tasks log tasks).
#pragma once

#include <vector>

#include "hetsched/perf/dag_instance.hpp"

namespace hetsched {

// release[t][d]: the earliest time task t may start on device d regardless of its
// DAG inputs (the device is busy with earlier work, or the job's external input is
// still arriving). Empty means every task may start at time 0.
using ReleaseTimes = std::vector<std::vector<double>>;

// The schedule, or an empty one (no tasks) when some task can run on no device.
StaticSchedule earliest_finish_list_schedule(const DagInstance& instance,
                                             const ReleaseTimes& release = {});

// The task's earliest start on the device given the planned producers in
// `schedule` (finish plus communication) and the release time.
double data_ready_seconds(const DagInstance& instance, const StaticSchedule& schedule,
                          const ReleaseTimes& release, std::uint32_t task, DeviceId device);

}  // namespace hetsched
