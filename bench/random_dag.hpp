// Random DAGs with the parameters of Topcuoglu, Hariri, Wu (IEEE TPDS 2002, §5):
//  - v tasks laid out in levels; each level's width is uniform in 1 … 2·⌈√v·α⌉ − 1
//    (mean ≈ √v·α), so the height is ≈ √v/α (α < 1: long and thin; α > 1: short
//    and wide);
//  - each task of a level but the last gets k successors in the next level, k
//    uniform in 1 … 2·out_degree − 1 (mean out_degree, capped by that level's
//    width); a task left without a predecessor gets one from the level above;
//  - the task's mean cost w̄ᵢ is uniform in [0, 2·w_DAG]; its cost on device j is
//    uniform in [w̄ᵢ(1 − β/2), w̄ᵢ(1 + β/2)] (β: heterogeneity);
//  - each edge's communication cost is uniform in [0, 2·CCR·w_DAG], so the mean
//    communication over the mean computation is CCR.
// Every draw comes from the caller's seeded Rng. The same DAG can be planned
// directly (instance()) or run in the simulator (as_job() on uniform_cost_cluster():
// one node whose link moves 1 byte per second with no latency, so an edge's bytes
// are its communication seconds, as in the paper's model).
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched {

struct RandomDagParams {
  std::size_t tasks = 100;             // v
  double shape = 1.0;                  // α
  double out_degree = 3.0;             // mean successors of a non-exit task
  double ccr = 1.0;                    // communication-to-computation ratio
  double heterogeneity = 1.0;          // β, in [0, 2]
  double mean_compute_seconds = 50.0;  // w_DAG
  std::size_t devices = 4;
};

struct RandomDag {
  std::vector<std::vector<double>> compute_seconds;  // [task][device]
  std::vector<DagEdge> edges;                        // bytes = communication seconds
  std::vector<std::uint32_t> level;                  // per task
  std::size_t level_count = 0;

  DagInstance instance() const { return DagInstance(compute_seconds, edges); }
  // The same DAG as a job for the simulator on uniform_cost_cluster(devices).
  Job as_job(const std::string& name) const;
};

RandomDag generate_random_dag(const RandomDagParams& params, Rng& rng);

// `devices` identical CPUs on one node whose link has bandwidth 1 B/s and no
// latency: a transfer of b bytes between two of them takes b seconds, with no
// contention; tasks run for their explicit cost_seconds.
Cluster uniform_cost_cluster(std::size_t devices);

}  // namespace hetsched
