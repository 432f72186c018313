// The real workflows of a data folder (WfCommons JSON and Pegasus DAX files, such as the
// repository's data/) as DAG-scheduling instances on a cluster, through
// the importers and the performance model, for `hetsched bench dag`.
#pragma once

#include <string>
#include <vector>

#include "dag_benchmark.hpp"
#include "hetsched/perf/perf_model.hpp"

namespace hetsched {

// Every `wfcommons/*.json` and `pegasus/*.xml` under `data_dir` (sorted by name). A folder
// with neither subfolder is an InputError. `perf` must outlive the instances.
std::vector<DagBenchmarkInstance> workflow_suite_instances(const std::string& data_dir,
                                                           const PerfModel& perf);

}  // namespace hetsched
