#include "hetsched/workload/workload_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

std::optional<std::vector<std::uint32_t>> find_cycle(const Job& job) {
  const std::size_t n = job.tasks.size();
  std::vector<std::vector<std::uint32_t>> successors(n);
  for (const Edge& e : job.edges) successors[e.from].push_back(e.to);
  // Iterative depth-first search with colours; a grey successor closes a cycle.
  enum : std::uint8_t { white, grey, black };
  std::vector<std::uint8_t> colour(n, white);
  std::vector<std::uint32_t> parent(n, 0);
  for (std::uint32_t root = 0; root < n; ++root) {
    if (colour[root] != white) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{root, 0}};
    colour[root] = grey;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == successors[node].size()) {
        colour[node] = black;
        stack.pop_back();
        continue;
      }
      const std::uint32_t s = successors[node][next++];
      if (colour[s] == grey) {
        std::vector<std::uint32_t> cycle{s};
        for (std::uint32_t v = node; v != s; v = parent[v]) cycle.push_back(v);
        std::reverse(cycle.begin() + 1, cycle.end());
        cycle.push_back(s);
        return cycle;
      }
      if (colour[s] == white) {
        colour[s] = grey;
        parent[s] = node;
        stack.emplace_back(s, 0);
      }
    }
  }
  return std::nullopt;
}

namespace {

void require_non_negative(double value, const std::string& what, const SourcePosition& where) {
  if (!std::isfinite(value) || value < 0)
    throw InputError(where, fmt::format("{} must be a finite number >= 0, got {}", what, value));
}

}  // namespace

void validate_workload(const Workload& workload, const Cluster& cluster, const std::string& file,
                       const WorkloadSourceLocator& locate) {
  for (std::size_t j = 0; j < workload.jobs.size(); ++j) {
    const Job& job = workload.jobs[j];
    const auto task_position = [&](std::size_t t) {
      return locate ? locate(j, t) : SourcePosition{file, 0, 0};
    };
    const SourcePosition where = locate ? locate(j, std::nullopt) : SourcePosition{file, 0, 0};
    const std::string job_label = fmt::format("job '{}'", job.name);
    require_non_negative(job.arrival_seconds, job_label + " arrival", where);
    if (job.data_node >= cluster.node_count() && !job.tasks.empty())
      throw InputError(where, fmt::format("{}: data node {} is not in the cluster ({} nodes)",
                                          job_label, job.data_node, cluster.node_count()));
    for (const Edge& e : job.edges) {
      if (e.from >= job.tasks.size() || e.to >= job.tasks.size())
        throw InputError(where, fmt::format("{}: edge {} -> {} names a task that does not exist",
                                            job_label, e.from, e.to));
      require_non_negative(e.bytes, job_label + " edge bytes", where);
    }
    if (auto cycle = find_cycle(job)) {
      std::string names;
      for (std::size_t i = 0; i < cycle->size(); ++i)
        names += (i ? " -> " : "") + job.tasks[(*cycle)[i]].name;
      throw InputError(task_position(cycle->front()),
                       fmt::format("{} has a dependency cycle: {}", job_label, names));
    }
    for (std::size_t t = 0; t < job.tasks.size(); ++t) {
      const Task& task = job.tasks[t];
      const SourcePosition where = task_position(t);
      const std::string label = fmt::format("{} task '{}'", job_label, task.name);
      require_non_negative(task.flops, label + " flops", where);
      require_non_negative(task.bytes, label + " bytes", where);
      require_non_negative(task.memory_bytes, label + " memory", where);
      require_non_negative(task.input_bytes, label + " input bytes", where);
      for (double c : task.cost_seconds) require_non_negative(c, label + " cost", where);
      if (!task.cost_seconds.empty() && task.cost_seconds.size() != cluster.device_count())
        throw InputError(
            where, fmt::format("{}: cost has {} entries but the cluster has {} devices", label,
                               task.cost_seconds.size(), cluster.device_count()));
      if (const std::string why = why_no_device_can_run(task, cluster); !why.empty())
        throw InputError(where, fmt::format("{} cannot run on any device: {}", label, why));
    }
  }
}

}  // namespace hetsched
