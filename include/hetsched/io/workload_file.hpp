// Loading a workload from a YAML (or JSON) file: jobs, each a DAG of tasks with their
// kernel class, precision, work, memory, allowed device kinds and optional measured
// costs, joined by edges. Task and node names are resolved against the cluster, then
// validate_workload checks cycles and that every task can run somewhere. The format is
// described in docs/file-formats.md; every problem is an InputError with file:line:column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

// Bounds that keep a malicious file from allocating unbounded memory or time, checked
// before the memory is allocated. The defaults suit real workloads; a service or a fuzzer
// may pass tighter ones.
struct WorkloadFileLimits {
  std::int64_t max_job_replicas = 100'000;     // a job's `count`
  std::int64_t max_jobs = 1'000'000;           // jobs, replicas included
  std::int64_t max_tasks = 10'000'000;         // tasks, replicas included
  std::int64_t max_edges = 10'000'000;         // edges, replicas included
  std::int64_t max_cost_entries = 50'000'000;  // cost_seconds numbers in all
  // Threads that read a big file's jobs at once (0: one per core, at most 8). The result,
  // and the first error on bad input, are the same for any number.
  unsigned reader_threads = 0;
};

// Parses the text of a workload file against the cluster it will run on (for node
// names, device counts and feasibility); `file_name` is used in error positions only.
Workload parse_workload(std::string_view text, const std::string& file_name, const Cluster& cluster,
                        const WorkloadFileLimits& limits = {});

// Reads and parses a workload file; an unreadable file is an InputError naming it.
Workload load_workload_file(const std::string& path, const Cluster& cluster,
                            const WorkloadFileLimits& limits = {});

}  // namespace hetsched
