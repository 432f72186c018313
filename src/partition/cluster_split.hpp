// ClusterSplit: a data-parallel split of one divisible task over devices of a
// cluster, with each device's rate taken from the performance model and its
// transfer cost from the links, and the way to run the result: `split_to_job`
// turns it into a Job with one task per part, each pinned to its device (an
// explicit cost on that device, none elsewhere) and reading its share of the input
// from the job's data node, so any policy in the simulator runs it as planned.
#pragma once

#include <string>
#include <vector>

#include "hetsched/partition/data_parallel_split.hpp"
#include "hetsched/perf/perf_model.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched {

struct DivisibleTask {
  std::string name = "divisible";
  Task per_item;                // the work of one item (flops, bytes, memory, precision, kernel)
  double item_input_bytes = 0;  // input each item reads from the data node
  double total_items = 0;
  double min_chunk_items = 1;
  bool integral_items = true;
  NodeId data_node = 0;
};

struct ClusterSplit {
  DataParallelSplit split;
  std::vector<DeviceId> devices;                 // the candidates, in request order
  std::vector<double> compute_seconds_per_item;  // per candidate
  std::vector<double> launch_seconds;            // per candidate
};

// Devices in `candidates` that cannot run the task are left out with the reason in
// split.message when none remains.
ClusterSplit split_over_cluster(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                                const DivisibleTask& work);

// One task per used device, with explicit per-device cost (kCannotRun elsewhere).
Job split_to_job(const PerfModel& perf, const ClusterSplit& split, const DivisibleTask& work);

}  // namespace hetsched
