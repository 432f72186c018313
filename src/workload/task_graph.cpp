#include "hetsched/workload/task_graph.hpp"

#include <queue>

namespace hetsched {

TaskGraph::TaskGraph() : job_first_task_{0}, predecessor_begin_{0}, successor_begin_{0} {}

TaskGraph::TaskGraph(const Workload& workload) {
  const std::size_t n = workload.task_count();
  jobs_.reserve(workload.jobs.size());
  tasks_.reserve(n);
  job_of_.reserve(n);
  job_first_task_.reserve(workload.jobs.size() + 1);
  // Degrees are counted straight into the offset arrays (shifted by one), then summed.
  predecessor_begin_.assign(n + 1, 0);
  successor_begin_.assign(n + 1, 0);
  for (JobIndex j = 0; j < workload.jobs.size(); ++j) {
    const Job& job = workload.jobs[j];
    jobs_.push_back(&job);
    const TaskIndex base = static_cast<TaskIndex>(tasks_.size());
    job_first_task_.push_back(base);
    for (const Task& task : job.tasks) {
      tasks_.push_back(&task);
      job_of_.push_back(j);
    }
    for (const Edge& e : job.edges) {
      ++successor_begin_[base + e.from + 1];
      ++predecessor_begin_[base + e.to + 1];
    }
  }
  job_first_task_.push_back(static_cast<TaskIndex>(n));

  for (std::size_t t = 0; t < n; ++t) {
    predecessor_begin_[t + 1] += predecessor_begin_[t];
    successor_begin_[t + 1] += successor_begin_[t];
  }
  predecessor_list_.resize(predecessor_begin_[n]);
  successor_list_.resize(successor_begin_[n]);
  if (successor_list_.empty()) return;  // independent tasks: nothing to fill
  LargeVector<std::uint32_t> in_fill(predecessor_begin_.begin(), predecessor_begin_.end() - 1);
  LargeVector<std::uint32_t> out_fill(successor_begin_.begin(), successor_begin_.end() - 1);
  for (JobIndex j = 0; j < workload.jobs.size(); ++j) {
    const TaskIndex base = job_first_task_[j];
    for (const Edge& e : workload.jobs[j].edges) {
      const TaskIndex from = base + e.from, to = base + e.to;
      successor_list_[out_fill[from]++] = Dependency{to, e.bytes};
      predecessor_list_[in_fill[to]++] = Dependency{from, e.bytes};
    }
  }
}

JobIndex TaskGraph::append_job(Job job) {
  const Job& kept = appended_jobs_.emplace_back(std::move(job));
  const auto j = static_cast<JobIndex>(jobs_.size());
  jobs_.push_back(&kept);
  const auto base = static_cast<TaskIndex>(tasks_.size());
  const std::size_t k = kept.tasks.size();
  for (const Task& task : kept.tasks) {
    tasks_.push_back(&task);
    job_of_.push_back(j);
  }
  job_first_task_.push_back(static_cast<TaskIndex>(base + k));
  // Degrees of the new tasks, then their offsets after the lists so far.
  std::vector<std::uint32_t> in_degree(k, 0), out_degree(k, 0);
  for (const Edge& e : kept.edges) ++out_degree[e.from], ++in_degree[e.to];
  for (std::size_t t = 0; t < k; ++t) {
    predecessor_begin_.push_back(predecessor_begin_.back() + in_degree[t]);
    successor_begin_.push_back(successor_begin_.back() + out_degree[t]);
  }
  predecessor_list_.resize(predecessor_begin_.back());
  successor_list_.resize(successor_begin_.back());
  std::vector<std::uint32_t> in_fill(k), out_fill(k);
  for (std::size_t t = 0; t < k; ++t) {
    in_fill[t] = predecessor_begin_[base + t];
    out_fill[t] = successor_begin_[base + t];
  }
  for (const Edge& e : kept.edges) {
    successor_list_[out_fill[e.from]++] = Dependency{base + e.to, e.bytes};
    predecessor_list_[in_fill[e.to]++] = Dependency{base + e.from, e.bytes};
  }
  return j;
}

std::vector<TaskIndex> TaskGraph::topological_order(JobIndex j) const {
  const TaskIndex begin = first_task(j), end = end_task(j);
  std::vector<std::uint32_t> remaining(end - begin);
  std::priority_queue<TaskIndex, std::vector<TaskIndex>, std::greater<>> ready;
  for (TaskIndex t = begin; t < end; ++t) {
    remaining[t - begin] = static_cast<std::uint32_t>(predecessors(t).size());
    if (remaining[t - begin] == 0) ready.push(t);
  }
  std::vector<TaskIndex> order;
  order.reserve(end - begin);
  while (!ready.empty()) {
    const TaskIndex t = ready.top();
    ready.pop();
    order.push_back(t);
    for (const Dependency& s : successors(t))
      if (--remaining[s.task - begin] == 0) ready.push(s.task);
  }
  return order;
}

}  // namespace hetsched
