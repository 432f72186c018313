// LearningScenario: one run of the twin the learned policy trains or is measured on — a
// cluster, a workload, and the simulator's options (the seed and the duration noise, so
// that every policy run on it meets the same actual durations).
//
// Scenario spaces draw scenarios from a seeded generator:
//  - tiled: one tiled Cholesky, LU or QR factorization (tiles per side drawn from a range)
//    on one node of CPU workers and accelerators (accelerator_node), the count and models
//    drawn from lists — the setting of the local runtime and of READYS;
//  - dag stream: random layered DAG jobs arriving as a Poisson stream on a cluster — the
//    setting of Decima, whose objective is the mean job completion time.
// The objective of a run is the mean over jobs of (completion − arrival): the makespan
// for a single job arriving at 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/learn/learned_policy.hpp"
#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

struct LearningScenario {
  std::string name;
  Cluster cluster;
  Workload workload;
  SimulationOptions simulation;
};

struct TiledScenarioSpace {
  std::uint32_t min_tiles = 4, max_tiles = 10;  // per side, inclusive
  std::uint32_t tile_size = 1024;
  std::vector<std::size_t> cpu_workers{4};
  // Each scenario's accelerators: 2 to 4 drawn (with repeats) from these catalog models.
  std::vector<std::string> accelerator_models{"A100-80GB", "V100"};
  std::size_t min_accelerators = 2, max_accelerators = 4;
  DurationNoiseOptions noise{.sigma = 0.2};
};

struct DagStreamScenarioSpace {
  std::size_t jobs = kJobCountFeatureLimit;    // where the policy's job-count features stop
  std::size_t min_tasks = 10, max_tasks = 60;  // per job
  double mean_interarrival_seconds = 2;
  Cluster cluster;  // empty: a node of 4 CPU workers, an A100 and a V100
  DurationNoiseOptions noise{.sigma = 0.2};
};

// One scenario of the space; `rng` also gives the scenario's simulation seed.
LearningScenario draw_tiled_scenario(const TiledScenarioSpace& space, Rng& rng);
LearningScenario draw_dag_stream_scenario(const DagStreamScenarioSpace& space, Rng& rng);

struct ScenarioOutcome {
  double objective_seconds = 0;  // mean job completion time
  double policy_seconds = 0;     // wall time the policy took to decide (its hooks)
  std::size_t tasks = 0;
};
// Runs `policy` on the scenario in the twin. Throws PolicyError when tasks are left
// unfinished.
ScenarioOutcome run_scenario(const LearningScenario& scenario, SchedulingPolicy& policy);

}  // namespace hetsched
