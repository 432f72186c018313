// TaskGraph: every task of a workload in one numbering (TaskIndex), with each
// task's predecessors and successors in compressed arrays. It is the read-only
// view the scheduling loop, the policies and the simulator share.
//
// A graph is built whole from a workload (the simulator, the local runtime), or
// grows job by job (append_job) for a world where jobs arrive while the loop runs
// (the service): edges never cross jobs, so a new job's tasks and edges go at the
// end of every array and nothing already numbered moves.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "hetsched/core/huge_page_allocator.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

using TaskIndex = std::uint32_t;
using JobIndex = std::uint32_t;

struct Dependency {
  TaskIndex task;  // the other end of the edge
  double bytes;
};

class TaskGraph {
 public:
  // An open-ended graph with no jobs yet.
  TaskGraph();
  // The workload must outlive the graph and be acyclic (see validate_workload).
  explicit TaskGraph(const Workload& workload);
  TaskGraph(const TaskGraph&) = delete;
  TaskGraph& operator=(const TaskGraph&) = delete;
  TaskGraph(TaskGraph&&) = default;  // the kept jobs do not move
  TaskGraph& operator=(TaskGraph&&) = default;

  // Adds an acyclic job (the graph keeps it) after every task numbered so far;
  // returns its index. References to tasks and jobs already in the graph stay valid.
  JobIndex append_job(Job job);

  std::size_t task_count() const { return tasks_.size(); }
  std::size_t job_count() const { return job_first_task_.size() - 1; }
  std::size_t edge_count() const { return successor_list_.size(); }

  const Task& task(TaskIndex t) const { return *tasks_[t]; }
  JobIndex job_of(TaskIndex t) const { return job_of_[t]; }
  const Job& job(JobIndex j) const { return *jobs_[j]; }
  TaskIndex first_task(JobIndex j) const { return job_first_task_[j]; }
  TaskIndex end_task(JobIndex j) const { return job_first_task_[j + 1]; }

  std::span<const Dependency> predecessors(TaskIndex t) const {
    return {predecessor_list_.data() + predecessor_begin_[t],
            predecessor_list_.data() + predecessor_begin_[t + 1]};
  }
  std::span<const Dependency> successors(TaskIndex t) const {
    return {successor_list_.data() + successor_begin_[t],
            successor_list_.data() + successor_begin_[t + 1]};
  }

  // Asks the processor to fetch what a task's finish reads of the graph (its job, where
  // its successors are).
  void prefetch_task(TaskIndex t) const {
    __builtin_prefetch(&job_of_[t]);
    __builtin_prefetch(&successor_begin_[t]);
  }
  // Asks for what a policy reads of a task that has just become ready: its record and
  // where its predecessors are listed.
  void prefetch_ready_task(TaskIndex t) const {
    // Every cache line the record touches (it need not start on one).
    const auto* record = reinterpret_cast<const char*>(tasks_[t]);
    for (std::size_t offset = 0; offset < sizeof(Task); offset += 64)
      __builtin_prefetch(record + offset);
    __builtin_prefetch(record + sizeof(Task) - 1);
    __builtin_prefetch(&job_of_[t]);
    __builtin_prefetch(&predecessor_begin_[t]);
  }

  // Tasks of one job in a topological order (Kahn's algorithm, ties by index).
  std::vector<TaskIndex> topological_order(JobIndex j) const;

 private:
  std::vector<const Job*> jobs_;
  std::deque<Job> appended_jobs_;  // the jobs append_job was given
  LargeVector<const Task*> tasks_;
  LargeVector<JobIndex> job_of_;
  std::vector<TaskIndex> job_first_task_;
  LargeVector<std::uint32_t> predecessor_begin_, successor_begin_;
  LargeVector<Dependency> predecessor_list_, successor_list_;
};

}  // namespace hetsched
