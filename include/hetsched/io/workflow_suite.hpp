// The real workflows of the shared data (WfCommons JSON and Pegasus DAX files in a
// folder such as ../shared/data) as DAG-scheduling instances on a cluster, through
// the importers and the performance model, for `hetsched bench dag`.
#pragma once

#include <string>
#include <vector>

#include "hetsched/perf/perf_model.hpp"
#include "hetsched/policy/dag_benchmark.hpp"

namespace hetsched {

// Every `wfcommons/*.json` and `pegasus/*.xml` under `data_dir` (sorted by name); an
// empty list when the folder does not exist. `perf` must outlive the instances.
std::vector<DagBenchmarkInstance> shared_workflow_instances(const std::string& data_dir,
                                                            const PerfModel& perf);

}  // namespace hetsched
