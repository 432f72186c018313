// What `simulate`, `pareto` and `validate` schedule: a cluster and a workload, from any
// format that hetsched reads, told by content (config_kind.hpp) rather than by name.
//
//   workload file         on --cluster, else the cluster its `cluster` field names, else
//                         the built-in cluster
//   WfCommons, DAX        one job, on --cluster or the built-in cluster
//   cost matrix           one job on the matrix's own devices (--cluster is refused: the
//                         matrix's columns are its devices)
//   no workload file      the built-in mix, on --cluster or the built-in cluster
//
// A cluster, fault or unknown file given as the workload is an InputError that says what
// the file is and what was expected. Job streams (`kind: stream`) are a different model
// (stream_workload_file.hpp): for one, only workload_kind is set (no cluster is loaded), so
// that the caller hands the file to the stream reader without telling its kind again.
#pragma once

#include <cstdint>
#include <string>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/io/config_kind.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

struct SchedulingInput {
  Cluster cluster;
  Workload workload;
  ConfigKind workload_kind = ConfigKind::workload;  // of the workload file, if any
  std::string cluster_source;                       // a path, or "<built-in cluster>"
};

// `cluster_file` and `workload_file` may be empty (built-in); `seed` seeds the built-in
// workload.
SchedulingInput load_scheduling_input(const std::string& cluster_file,
                                      const std::string& workload_file, std::uint64_t seed);

}  // namespace hetsched
