// Job: a DAG of tasks submitted together, with its arrival time, priority,
// optional deadline and owner. Edges carry the bytes the consumer reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

struct Edge {
  std::uint32_t from = 0;  // index of the producing task within the job
  std::uint32_t to = 0;    // index of the consuming task
  double bytes = 0;
};

struct Job {
  std::string name;
  std::string family;  // ml, bigdata, cloud, scientific, or what an importer says
  std::string owner;
  double arrival_seconds = 0;
  int priority = 0;                        // larger is more important
  std::optional<double> deadline_seconds;  // absolute simulated time
  NodeId data_node = 0;                    // where the job's external input lives
  std::vector<Task> tasks;
  std::vector<Edge> edges;
};

}  // namespace hetsched
