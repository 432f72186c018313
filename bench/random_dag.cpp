#include "random_dag.hpp"

#include <algorithm>
#include <cmath>

#include "hetsched/cluster/device_catalog.hpp"

namespace hetsched {

RandomDag generate_random_dag(const RandomDagParams& params, Rng& rng) {
  RandomDag dag;
  const std::size_t v = std::max<std::size_t>(params.tasks, 1);
  const auto mean_width = static_cast<std::uint64_t>(
      std::max(1.0, std::ceil(std::sqrt(static_cast<double>(v)) * params.shape)));
  // Levels: [first task, end) of each.
  std::vector<std::size_t> level_begin{0};
  while (level_begin.back() < v) {
    const std::size_t width = 1 + rng.below(2 * mean_width - 1);
    level_begin.push_back(std::min(v, level_begin.back() + width));
  }
  dag.level_count = level_begin.size() - 1;
  dag.level.resize(v);
  for (std::size_t l = 0; l < dag.level_count; ++l)
    for (std::size_t t = level_begin[l]; t < level_begin[l + 1]; ++t)
      dag.level[t] = static_cast<std::uint32_t>(l);

  // Edges to the next level.
  const auto max_degree =
      static_cast<std::uint64_t>(std::max(1.0, std::round(2 * params.out_degree - 1)));
  std::vector<bool> has_parent(v, false);
  std::vector<std::uint32_t> candidates;
  for (std::size_t l = 0; l + 1 < dag.level_count; ++l) {
    const std::size_t next_begin = level_begin[l + 1], next_end = level_begin[l + 2];
    const std::size_t next_width = next_end - next_begin;
    for (std::size_t t = level_begin[l]; t < level_begin[l + 1]; ++t) {
      const std::size_t degree = std::min<std::size_t>(1 + rng.below(max_degree), next_width);
      candidates.resize(next_width);
      for (std::size_t i = 0; i < next_width; ++i)
        candidates[i] = static_cast<std::uint32_t>(next_begin + i);
      for (std::size_t i = 0; i < degree; ++i) {  // partial Fisher–Yates
        std::swap(candidates[i], candidates[i + rng.below(next_width - i)]);
        dag.edges.push_back(DagEdge{static_cast<std::uint32_t>(t), candidates[i], 0});
        has_parent[candidates[i]] = true;
      }
    }
    for (std::size_t t = next_begin; t < next_end; ++t)
      if (!has_parent[t]) {
        const std::size_t width = level_begin[l + 1] - level_begin[l];
        dag.edges.push_back(DagEdge{static_cast<std::uint32_t>(level_begin[l] + rng.below(width)),
                                    static_cast<std::uint32_t>(t), 0});
        has_parent[t] = true;
      }
  }
  std::sort(dag.edges.begin(), dag.edges.end(), [](const DagEdge& a, const DagEdge& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });

  // Costs.
  const double beta = std::clamp(params.heterogeneity, 0.0, 2.0);
  dag.compute_seconds.assign(v, std::vector<double>(params.devices, 0.0));
  for (std::size_t t = 0; t < v; ++t) {
    const double mean = rng.uniform(0.0, 2 * params.mean_compute_seconds);
    for (std::size_t d = 0; d < params.devices; ++d)
      dag.compute_seconds[t][d] = rng.uniform(mean * (1 - beta / 2), mean * (1 + beta / 2));
  }
  for (DagEdge& e : dag.edges)
    e.bytes = rng.uniform(0.0, 2 * params.ccr * params.mean_compute_seconds);
  return dag;
}

Job RandomDag::as_job(const std::string& name) const {
  Job job;
  job.name = name;
  job.family = "random-dag";
  job.tasks.resize(compute_seconds.size());
  for (std::size_t t = 0; t < compute_seconds.size(); ++t) {
    job.tasks[t].name = "t" + std::to_string(t);
    job.tasks[t].cost_seconds = compute_seconds[t];
  }
  for (const DagEdge& e : edges) job.edges.push_back(Edge{e.from, e.to, e.bytes});
  return job;
}

Cluster uniform_cost_cluster(std::size_t devices) {
  Cluster cluster;
  Node node;
  node.name = "uniform";
  node.link.kind = "uniform";
  node.link.bandwidth = 1.0;
  node.link.latency_seconds = 0.0;
  const DeviceSpec* cpu = find_catalog_part("EPYC-9654");
  cluster.add_node(node, std::vector<DeviceSpec>(devices, *cpu));
  return cluster;
}

}  // namespace hetsched
