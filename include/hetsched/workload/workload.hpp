// Workload: the jobs of one run.
#pragma once

#include <vector>

#include "hetsched/workload/job.hpp"

namespace hetsched {

struct Workload {
  std::vector<Job> jobs;

  std::size_t task_count() const {
    std::size_t n = 0;
    for (const auto& job : jobs) n += job.tasks.size();
    return n;
  }
};

}  // namespace hetsched
