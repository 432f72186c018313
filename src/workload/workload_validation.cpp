#include "hetsched/workload/workload_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

std::optional<std::vector<std::uint32_t>> find_cycle(const Job& job) {
  const std::size_t n = job.tasks.size();
  // Successors as one array (CSR): task v's are successors[first[v] .. first[v + 1]).
  std::vector<std::uint32_t> first(n + 1, 0), successors(job.edges.size());
  for (const Edge& e : job.edges) ++first[e.from + 1];
  for (std::size_t v = 0; v < n; ++v) first[v + 1] += first[v];
  {
    std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
    for (const Edge& e : job.edges) successors[next[e.from]++] = e.to;
  }
  // Iterative depth-first search with colours; a grey successor closes a cycle.
  enum : std::uint8_t { white, grey, black };
  std::vector<std::uint8_t> colour(n, white);
  std::vector<std::uint32_t> parent(n, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // node, its next successor
  for (std::uint32_t root = 0; root < n; ++root) {
    if (colour[root] != white) continue;
    stack.assign(1, {root, first[root]});
    colour[root] = grey;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == first[node + 1]) {
        colour[node] = black;
        stack.pop_back();
        continue;
      }
      const std::uint32_t s = successors[next++];
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
        stack.emplace_back(s, first[s]);
      }
    }
  }
  return std::nullopt;
}

namespace {

bool is_non_negative(double value) { return std::isfinite(value) && value >= 0; }

}  // namespace

// Positions and labels are made only for an error: this runs once per task of a big file.
void validate_workload(const Workload& workload, const Cluster& cluster, const std::string& file,
                       const WorkloadSourceLocator& locate) {
  for (std::size_t j = 0; j < workload.jobs.size(); ++j) {
    const Job& job = workload.jobs[j];
    const auto where = [&](std::optional<std::size_t> t = std::nullopt) {
      return locate ? locate(j, t) : SourcePosition{file, 0, 0};
    };
    const auto job_label = [&] { return fmt::format("job '{}'", job.name); };
    const auto negative = [](std::string_view what, double value) {
      return fmt::format("{} must be a finite number >= 0, got {}", what, value);
    };
    if (!is_non_negative(job.arrival_seconds))
      throw InputError(where(), negative(job_label() + " arrival", job.arrival_seconds));
    if (job.data_node >= cluster.node_count() && !job.tasks.empty())
      throw InputError(where(), fmt::format("{}: data node {} is not in the cluster ({} nodes)",
                                            job_label(), job.data_node, cluster.node_count()));
    for (const Edge& e : job.edges) {
      if (e.from >= job.tasks.size() || e.to >= job.tasks.size())
        throw InputError(where(), fmt::format("{}: edge {} -> {} names a task that does not exist",
                                              job_label(), e.from, e.to));
      if (!is_non_negative(e.bytes))
        throw InputError(where(), negative(job_label() + " edge bytes", e.bytes));
    }
    if (auto cycle = find_cycle(job)) {
      std::string names;
      for (std::size_t i = 0; i < cycle->size(); ++i)
        names += (i ? " -> " : "") + job.tasks[(*cycle)[i]].name;
      throw InputError(where(cycle->front()),
                       fmt::format("{} has a dependency cycle: {}", job_label(), names));
    }
    for (std::size_t t = 0; t < job.tasks.size(); ++t) {
      const Task& task = job.tasks[t];
      const auto label = [&] { return fmt::format("{} task '{}'", job_label(), task.name); };
      const auto require = [&](double value, std::string_view what) {
        if (!is_non_negative(value))
          throw InputError(where(t), negative(fmt::format("{} {}", label(), what), value));
      };
      require(task.flops, "flops");
      require(task.bytes, "bytes");
      require(task.memory_bytes, "memory");
      require(task.input_bytes, "input bytes");
      for (double c : task.cost_seconds) require(c, "cost");
      if (!task.cost_seconds.empty() && task.cost_seconds.size() != cluster.device_count())
        throw InputError(
            where(t), fmt::format("{}: cost has {} entries but the cluster has {} devices", label(),
                                  task.cost_seconds.size(), cluster.device_count()));
      if (const Status runnable = check_runnable(task, cluster); !runnable)
        throw InputError(where(t),
                         fmt::format("{} cannot run on any device: {}", label(), runnable.error()));
    }
  }
}

}  // namespace hetsched
