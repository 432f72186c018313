// Consistency checks of a workload against a cluster, run at the input boundary:
// edges name existing tasks, every job is acyclic (a cycle is named by its
// tasks), every task can run on some device, numbers are finite and >= 0.
// Violations throw InputError naming the file, the job and the task.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

// Task indices along one cycle of the job's edges (first task repeated last), if any.
// Every edge must name tasks of the job (validate_workload checks that first).
std::optional<std::vector<std::uint32_t>> find_cycle(const Job& job);

// Where job `job` (task empty) or its task `task` was written in the input, so that a
// violation points at it; without one, errors name the file only.
using WorkloadSourceLocator =
    std::function<SourcePosition(std::size_t job, std::optional<std::size_t> task)>;

void validate_workload(const Workload& workload, const Cluster& cluster,
                       const std::string& file = "", const WorkloadSourceLocator& locate = {});

}  // namespace hetsched
